import GateKitSupport

/// Every way receipt bytes fail to parse — the BER reader, the CMS structures, the payload —
/// as one error type thrown with typed throws. The kind decides the GateKit code.
struct ReceiptParseError: Error {
    enum Kind: Sendable {
        /// Not a well-formed PKCS#7 SignedData receipt (`.receiptMalformed`).
        case malformed
        /// The signed payload is not a well-formed attribute SET (`.receiptPayloadMalformed`).
        case payload
        /// An algorithm or signer id Apple does not use (`.receiptUnsupportedAlgorithm`).
        case unsupportedAlgorithm
        /// Signed attributes: Apple receipts sign the payload directly (`.receiptSignedAttributes`).
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
        case .malformed: GateKitError(.receiptMalformed, message)
        case .payload: GateKitError(.receiptPayloadMalformed, message)
        case .unsupportedAlgorithm: GateKitError(.receiptUnsupportedAlgorithm, message)
        case .signedAttributes: GateKitError(.receiptSignedAttributes, message)
        }
    }
}
