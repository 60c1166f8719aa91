import COpenSSL
import GateKitCrypto
import GateKitSupport

/// A chain that passed a `TrustPolicy`: the leaf's public key, ready for signature checks,
/// and the time window (intersection of every certificate's validity) in which the verdict holds.
public final class VerifiedChain: @unchecked Sendable {
    public enum KeyType: Sendable { case rsa, ec, other }

    /// Owned `EVP_PKEY*` of the leaf. Immutable after init; OpenSSL allows concurrent verifies.
    package let leafKey: OpaquePointer
    public let keyType: KeyType
    /// An EC key on P-256 (what ES256 signs with), asked of OpenSSL once, not per signature.
    public let isP256: Bool
    public let leafSubject: String
    /// Certificates in the built chain, anchor included.
    public let length: Int
    /// Latest notBefore of the chain (Unix seconds).
    public let validFrom: Int64
    /// Earliest notAfter of the chain (Unix seconds).
    public let validUntil: Int64
    /// The anchor was a caller-supplied test anchor: never an App Store chain.
    public let isTestAnchored: Bool
    /// Digest NIDs of the non-anchor certificate signatures, leaf first (for reporting).
    public let signatureDigests: [String]

    init(leafKey: OpaquePointer, leafSubject: String, length: Int, validFrom: Int64, validUntil: Int64,
         isTestAnchored: Bool, signatureDigests: [String]) {
        self.leafKey = leafKey
        switch EVP_PKEY_get_base_id(leafKey) {
        case EVP_PKEY_RSA: keyType = .rsa
        case EVP_PKEY_EC: keyType = .ec
        default: keyType = .other
        }
        isP256 = ES256.isP256(leafKey)
        self.leafSubject = leafSubject
        self.length = length
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.isTestAnchored = isTestAnchored
        self.signatureDigests = signatureDigests
    }

    deinit { EVP_PKEY_free(leafKey) }

    /// The leaf's public key as PEM ("BEGIN PUBLIC KEY", SubjectPublicKeyInfo).
    public func leafPublicKeyPEM() throws(GateKitError) -> String {
        String(decoding: try PEMWriter.text("PEM_write_bio_PUBKEY") { PEM_write_bio_PUBKEY($0, leafKey) }, as: UTF8.self)
    }

    /// True when `time` (Unix seconds) lies strictly inside every certificate's validity, so
    /// a full verification at that time would reach the same verdict.
    public func holds(at time: Int64) -> Bool { time > validFrom && time < validUntil }

    /// Verifies `signature` over `message` with the leaf key: RSA PKCS#1 v1.5 for RSA keys,
    /// ECDSA with a DER-encoded (r, s) signature for EC keys.
    public func verifySignature(_ signature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer,
                                digest: DigestAlgorithm) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, digest.evp, nil, leafKey) == 1 else { ERR_clear_error(); return false }
        let sigBase = signature.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let msgBase = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let rc = EVP_DigestVerify(ctx, sigBase, signature.count, msgBase, message.count)
        if rc != 1 { ERR_clear_error() }
        return rc == 1
    }
}
