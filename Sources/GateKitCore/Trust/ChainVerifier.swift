import COpenSSL
import Glibc
import GateKitCrypto
import GateKitSupport

/// Certificate-chain trust for Apple-signed data, on OpenSSL's X509_STORE.
///
/// Public API (shared by receipts and StoreKit 2 JWS):
/// - `TrustAnchor`: a root. `appleIncRoot()` (receipts) and `appleRootCAG3()` (JWS) are
///   embedded DER, pinned by SHA-256 (checked before first use); `test(der:)` is a
///   caller-supplied anchor, flagged `isTestAnchor`, for explicit test modes only.
/// - `TrustPolicy`: anchor + exact chain length + leaf/intermediate marker OIDs + optional
///   "SHA-256 only". Presets: `.appStoreReceipts()`, `.appStoreSignedData()`, `.testing(anchorDER:)`.
/// - `ChainVerifier.shared.verify(leaf:untrusted:at:policy:)` → `VerifiedChain` (leaf key,
///   `verifySignature`, validity window) or throws `TrustFailure` with the precise reason.
///
/// Rules, in order: certificates decode as exact DER; certificates from the input are only
/// untrusted intermediates (the anchor comes from the policy, never from the input);
/// OpenSSL builds and verifies the chain at the given time (`X509_VERIFY_PARAM_set_time`), purpose
/// ANY, auth level 0 (historic SHA-1 Apple chains verify); the built chain must have the policy's
/// exact length and end at the anchor's exact bytes; the leaf and the intermediate must carry
/// the policy's OIDs; with `requireSHA256`, no non-anchor certificate may be signed with SHA-1.
///
/// Verified chains are cached by the exact DER bytes of the offered certificates (and the policy),
/// and a cached chain answers only for times strictly inside the intersection of the chain's
/// validity windows — where a full verification would reach the same verdict — so a cache hit
/// never changes a result. Thread-safe; the cache is bounded.
public final class ChainVerifier: @unchecked Sendable {
    public static let shared = ChainVerifier(cacheCapacity: 64)

    private let cache: VerifiedChainCache
    private let storesLock = Lock()
    private var stores: [TrustAnchor: AnchorStore] = [:]
    private static let maximumStores = 16

    public init(cacheCapacity: Int) {
        cache = VerifiedChainCache(capacity: cacheCapacity)
    }

    /// Number of cached chains (for tests and diagnostics).
    public var cachedChains: Int { cache.count }

    public func clearCache() { cache.removeAll() }

    /// Verifies that `leaf` chains to `policy.anchor` at Unix time `time`, using `untrusted`
    /// (typically every certificate shipped with the signed data, leaf included or not) only
    /// as candidate intermediates.
    public func verify(leaf: [UInt8], untrusted: [[UInt8]], at time: Int64, policy: TrustPolicy) throws(TrustFailure) -> VerifiedChain {
        let key = VerifiedChainCache.Key(policy: policy, certificates: [leaf] + untrusted)
        if let hit = cache.lookup(key, at: time) { return hit }
        let chain = try verifyUncached(leaf: leaf, untrusted: untrusted, at: time, policy: policy)
        cache.insert(key, chain)
        return chain
    }

    /// The same verification with no cache involved (reference path for tests and benchmarks).
    public func verifyUncached(leaf: [UInt8], untrusted: [[UInt8]], at time: Int64, policy: TrustPolicy) throws(TrustFailure) -> VerifiedChain {
        let store = try store(for: policy.anchor)
        guard let stack = gk_sk_X509_new_null() else { throw .resources("sk_X509_new_null failed") }
        defer { gk_sk_X509_pop_free(stack) }
        // Decode each offered certificate once: the signer is taken from the same decoding, and
        // a copy of the anchor itself is skipped (the store already holds the trusted one).
        var decodedLeaf: Certificate?
        for (index, der) in untrusted.enumerated() {
            if der == policy.anchor.der && der != leaf { continue }
            let cert = try Certificate(der: der, role: "certificate \(index + 1) of the input")
            if decodedLeaf == nil && der == leaf { decodedLeaf = cert }
            guard X509_up_ref(cert.x509) == 1 else { throw .resources("X509_up_ref failed") }
            guard gk_sk_X509_push(stack, cert.x509) > 0 else {
                X509_free(cert.x509)
                throw .resources("sk_X509_push failed")
            }
        }
        let leafCert: Certificate
        if let decodedLeaf { leafCert = decodedLeaf } else { leafCert = try Certificate(der: leaf, role: "signer certificate") }
        guard let ctx = X509_STORE_CTX_new() else { throw .resources("X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(ctx) }
        ERR_clear_error()
        guard X509_STORE_CTX_init(ctx, store.x509Store, leafCert.x509, stack) == 1,
              let param = X509_STORE_CTX_get0_param(ctx) else {
            ERR_clear_error()
            throw .resources("X509_STORE_CTX_init failed")
        }
        X509_VERIFY_PARAM_set_time(param, time_t(ChainVerifier.representable(time)))
        X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_ANY)
        X509_VERIFY_PARAM_set_auth_level(param, 0)
        X509_VERIFY_PARAM_set_depth(param, 8)

        if X509_verify_cert(ctx) != 1 {
            let failure = Self.failure(ctx, time: ChainVerifier.representable(time), anchor: policy.anchor)
            ERR_clear_error()
            throw failure
        }
        guard let built = X509_STORE_CTX_get0_chain(ctx) else { throw .chainInvalid("OpenSSL returned no chain") }
        var chain: [OpaquePointer] = []
        for i in 0..<gk_sk_X509_num(built) {
            guard let x = gk_sk_X509_value(built, i) else { throw .chainInvalid("hole in the built chain") }
            chain.append(x)
        }
        guard let top = chain.last, let topDER = Certificate.der(of: top), topDER == policy.anchor.der else {
            throw .untrustedRoot("the chain does not end at \(policy.anchor.name)")
        }
        try checkShape(chain, policy: policy)

        var validFrom = Int64.min
        var validUntil = Int64.max
        for x in chain {
            guard let v = Certificate.validity(of: x) else {
                throw .malformedCertificate("unreadable validity dates in \(Certificate.subject(of: x))")
            }
            validFrom = max(validFrom, v.notBefore)
            validUntil = min(validUntil, v.notAfter)
        }
        let digests = chain.dropLast().map { x -> String in
            let nid = Certificate.signatureDigestNID(x)
            guard nid != NID_undef, let name = OBJ_nid2sn(nid) else { return "unknown" }
            return String(cString: name)
        }
        guard let key = X509_get_pubkey(leafCert.x509) else {
            ERR_clear_error()
            throw .malformedCertificate("the signer certificate's public key is unreadable")
        }
        return VerifiedChain(leafKey: key, leafSubject: leafCert.subject, length: chain.count,
                             validFrom: validFrom, validUntil: validUntil,
                             isTestAnchored: policy.anchor.isTestAnchor, signatureDigests: digests)
    }

    /// Checks a signature with a certificate's key alone, trusting nothing (used on failure
    /// paths to report "the content was modified" ahead of chain problems). Nil when the
    /// certificate or its key cannot be read.
    public static func signatureVerifies(certificate der: [UInt8], signature: [UInt8], over message: [UInt8],
                                         digest: DigestAlgorithm) -> Bool? {
        guard let cert = try? Certificate(der: der, role: "signer"), let key = X509_get_pubkey(cert.x509) else {
            ERR_clear_error()
            return nil
        }
        let chain = VerifiedChain(leafKey: key, leafSubject: "", length: 0, validFrom: 0, validUntil: 0,
                                  isTestAnchored: false, signatureDigests: [])
        return signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in chain.verifySignature(sig, over: msg, digest: digest) }
        }
    }

    /// Years 0000 to 9999, the range X.509 times can express: a time outside it compares
    /// like the nearest end (before every notBefore, after every notAfter), where OpenSSL
    /// would otherwise fail to convert it and blame the certificate's date fields.
    static let representableTimes: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    static func representable(_ time: Int64) -> Int64 {
        min(max(time, representableTimes.lowerBound), representableTimes.upperBound)
    }

    private func checkShape(_ chain: [OpaquePointer], policy: TrustPolicy) throws(TrustFailure) {
        let required: Int
        switch policy.length {
        case let .exactly(n):
            required = n
        case let .anchorItselfOr(n):
            if chain.count == 1 { return }  // the anchor signed directly: nothing else to check
            required = n
        }
        guard chain.count == required else {
            throw .chainLength("the chain to \(policy.anchor.name) has \(chain.count) certificates; exactly \(required) are required")
        }
        if let oid = policy.leafOID, let leaf = chain.first, !Certificate.hasExtension(leaf, oid: oid) {
            throw .leafOID("the signer certificate \(Quoted.text(Certificate.subject(of: leaf))) lacks the extension \(oid)")
        }
        if let oid = policy.intermediateOID, chain.count >= 3, !Certificate.hasExtension(chain[1], oid: oid) {
            throw .intermediateOID("the intermediate certificate \(Quoted.text(Certificate.subject(of: chain[1]))) lacks the extension \(oid)")
        }
        if policy.requireSHA256 {
            for x in chain.dropLast() {
                let nid = Certificate.signatureDigestNID(x)
                guard nid == NID_sha256 || nid == NID_sha384 || nid == NID_sha512 else {
                    let name = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "unknown"
                    throw .weakDigest("\(Quoted.text(Certificate.subject(of: x))) is signed with \(name); SHA-256 or stronger is required")
                }
            }
        }
    }

    private static func failure(_ ctx: OpaquePointer, time: Int64, anchor: TrustAnchor) -> TrustFailure {
        let error = X509_STORE_CTX_get_error(ctx)
        let subject = Certificate.subject(of: X509_STORE_CTX_get_current_cert(ctx))
        let reason = X509_verify_cert_error_string(Int(error)).map { String(cString: $0) } ?? "error \(error)"
        switch error {
        case X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED:
            return .notValidAtTime("\(Quoted.text(subject)) is not valid at \(Timestamp.rfc3339Milliseconds(time &* 1000)) (\(reason))")
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            return .untrustedRoot("\(Quoted.text(subject)) does not chain to \(anchor.name) (\(reason))")
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
             X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            return .certificateSignature("the signature on \(Quoted.text(subject)) does not verify (\(reason))")
        case X509_V_ERR_CA_MD_TOO_WEAK, X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL:
            return .weakDigest("\(Quoted.text(subject)): \(reason)")
        default:
            return .chainInvalid("\(Quoted.text(subject)): \(reason)")
        }
    }

    // MARK: stores

    /// An X509_STORE holding only the anchor. Read-only after creation (safe to share).
    private final class AnchorStore: @unchecked Sendable {
        let x509Store: OpaquePointer
        init(_ s: OpaquePointer) { x509Store = s }
        deinit { X509_STORE_free(x509Store) }
    }

    private func store(for anchor: TrustAnchor) throws(TrustFailure) -> AnchorStore {
        if let existing = storesLock.withLock({ stores[anchor] }) { return existing }
        let cert = try Certificate(der: anchor.der, role: anchor.name)
        guard let raw = X509_STORE_new() else { throw .resources("X509_STORE_new failed") }
        let store = AnchorStore(raw)
        guard X509_STORE_add_cert(raw, cert.x509) == 1 else {
            ERR_clear_error()
            throw .resources("X509_STORE_add_cert failed")
        }
        storesLock.withLock {
            if stores.count >= Self.maximumStores { stores.removeAll() }
            stores[anchor] = store
        }
        return store
    }
}
