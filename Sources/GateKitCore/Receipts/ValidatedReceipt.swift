import GateKitCrypto
import GateKitSupport
import GateKitTrust

/// A receipt that passed every check, with how it was verified.
public struct ValidatedReceipt: Sendable {
    public let receipt: Receipt
    /// Signed under a caller-supplied test anchor (Xcode receipts): never an App Store purchase.
    public let isTestSigned: Bool
    public let digest: DigestAlgorithm
    /// Unix seconds at which the chain was verified.
    public let verificationTime: Int64
    /// When the validation ran (epoch ms): verifyReceipt's request_date.
    public let validatedAt: Int64
    /// The signed payload (the eContent octets the signature covers).
    let signedPayload: [UInt8]

    /// What hosts dedupe receipts on: SHA-256 of the signed payload, the same for every
    /// re-encoding of one genuine receipt (computed on demand: most validations never ask).
    public func identity() throws(GateKitError) -> ReplayIdentity {
        try ReplayIdentity(signedContent: signedPayload)
    }

    public var provenance: Provenance { Provenance(isTestSigned: isTestSigned, signedContent: signedPayload) }
}
