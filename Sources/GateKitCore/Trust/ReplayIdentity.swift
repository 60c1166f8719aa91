import GateKitCrypto
import GateKitSupport

/// What a host dedupes verified data on: the SHA-256 of exactly the bytes the signature
/// covers as content (a receipt's payload, a JWS's decoded payload).
///
/// Genuine signed data is malleable outside those bytes — reordered or extra certificates,
/// unsigned attributes, BER instead of DER, white space in base64 text, a high-S ECDSA
/// signature — and every such variant still verifies. None of them changes this identity,
/// while any change to the signed content does.
public struct ReplayIdentity: Sendable, Hashable {
    public let sha256: [UInt8]

    public init(signedContent: [UInt8]) throws(GateKitError) {
        sha256 = try Digest.hash(.sha256, signedContent)
    }

    /// 64 lowercase hex digits.
    public var hex: String { Hex.encode(sha256) }
}
