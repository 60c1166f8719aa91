import GateKitSupport

/// Every way receipt bytes fail to parse — the BER reader, the CMS structures, the payload —
/// as one error type thrown with typed throws. The kind decides the GateKit code.
struct ReceiptParseError: Error {
    enum Kind: Sendable {
        /// Not a well-formed PKCS#7 SignedData receipt (`.ERECEIPT_MALFORMED`).
        case malformed
        /// The signed payload is not a well-formed attribute SET (`.ERECEIPT_PAYLOAD`).
        case payload
        /// An algorithm or signer id Apple does not use (`.ERECEIPT_ALGORITHM`).
        case unsupportedAlgorithm
        /// Signed attributes: Apple receipts sign the payload directly (`.ERECEIPT_SIGNED_ATTRS`).
        case signedAttributes
    }

    var kind: Kind
    let message: String

    init(_ message: String, kind: Kind = .malformed) {
        self.kind = kind
        self.message = message
    }

    /// The same failure, found inside the signed payload.
    func inPayload() -> ReceiptParseError { ReceiptParseError(message, kind: .payload) }

    var gateKitError: GateKitError {
        switch kind {
        case .malformed: GateKitError(.ERECEIPT_MALFORMED, message)
        case .payload: GateKitError(.ERECEIPT_PAYLOAD, message)
        case .unsupportedAlgorithm: GateKitError(.ERECEIPT_ALGORITHM, message)
        case .signedAttributes: GateKitError(.ERECEIPT_SIGNED_ATTRS, message)
        }
    }
}
