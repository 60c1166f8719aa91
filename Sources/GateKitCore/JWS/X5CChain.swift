import COpenSSL
import GateKitCrypto
import GateKitSupport
import GateKitTrust

/// The x5c certificate chain of a JWS, verified with the shared trust module: Apple Root CA -
/// G3 pinned by fingerprint, or — test mode only — the caller's explicit test anchor.
enum X5CChain {
    /// Trust policies for test anchors, by anchor bytes: decoding and hashing the anchor once,
    /// not per call, keeps test-mode verification as fast as production.
    private static let testPolicies = TestPolicyCache()

    static func clearTestPolicies() { testPolicies.removeAll() }

    static func verifiedChain(_ certificates: [[UInt8]], at time: Int64, testAnchor: [UInt8]?) throws(GateKitError) -> VerifiedChain {
        let policy: TrustPolicy
        if let testAnchor {
            guard certificates.count == 3 || certificates.count == 1 else {
                throw GateKitError(.EJWS_CHAIN_LENGTH, "x5c has \(certificates.count) certificates; exactly 3 (or, in test mode, the one test certificate) are required")
            }
            // The same shape rules as production: three certificates must be leaf →
            // intermediate → anchor with Apple's OIDs; the anchor signs by itself only as the
            // single x5c certificate (StoreKit Testing in Xcode), never as x5c[0] of three.
            var testPolicy = try testPolicies.policy(for: testAnchor)
            testPolicy.length = certificates.count == 1 ? .anchorItselfOr(3) : .exactly(3)
            policy = testPolicy
        } else {
            if certificates.count == 1 {
                throw GateKitError(.EJWS_TEST_SIGNED, "x5c holds one certificate (\(Quoted.text(subject(certificates[0])))): data signed by StoreKit Testing in Xcode, accepted only in test mode with that certificate as the test anchor")
            }
            guard certificates.count == 3 else {
                throw GateKitError(.EJWS_CHAIN_LENGTH, "x5c has \(certificates.count) certificates; exactly 3 are required")
            }
            do {
                policy = try TrustPolicy.appStoreSignedData()
            } catch {
                throw map(error)
            }
        }
        // x5c[2] is never an anchor (Apple's verifier ignores it too): only the intermediate
        // is offered, and the chain must end at the policy's own root.
        let untrusted = certificates.count == 3 ? [certificates[1]] : []
        if certificates.count == 1, let testAnchor, certificates[0] != testAnchor {
            throw GateKitError(.EJWS_UNTRUSTED, "the single x5c certificate (\(Quoted.text(subject(certificates[0])))) is not the test anchor")
        }
        do {
            return try ChainVerifier.shared.verify(leaf: certificates[0], untrusted: untrusted, at: time, policy: policy)
        } catch {
            throw map(error)
        }
    }

    static func map(_ failure: TrustFailure) -> GateKitError {
        switch failure {
        case let .malformedCertificate(m): GateKitError(.EJWS_CERTIFICATE, m)
        case let .untrustedRoot(m): GateKitError(.EJWS_UNTRUSTED, m)
        case let .chainLength(m): GateKitError(.EJWS_CHAIN_LENGTH, m)
        case let .leafOID(m): GateKitError(.EJWS_LEAF_OID, m)
        case let .intermediateOID(m): GateKitError(.EJWS_INTERMEDIATE_OID, m)
        case let .notValidAtTime(m): GateKitError(.EJWS_CERT_TIME, m)
        case let .weakDigest(m): GateKitError(.EJWS_UNTRUSTED, m)
        case let .certificateSignature(m): GateKitError(.EJWS_UNTRUSTED, m)
        case let .chainInvalid(m): GateKitError(.EJWS_UNTRUSTED, m)
        case let .pinnedRootMismatch(m): GateKitError(.EINTERNAL, m)
        case let .resources(m): GateKitError(.ENOMEM, m)
        }
    }

    /// The subject of a DER certificate for messages ("unparseable" when it does not decode).
    static func subject(_ der: [UInt8]) -> String {
        guard let cert = try? Certificate(der: der, role: "x5c certificate") else { return "unparseable certificate" }
        return cert.subject
    }

    private final class TestPolicyCache: @unchecked Sendable {
        private let lock = Lock()
        private var policies: [SampledBytesKey: TrustPolicy] = [:]

        func removeAll() { lock.withLock { policies.removeAll() } }

        func policy(for anchor: [UInt8]) throws(GateKitError) -> TrustPolicy {
            let key = SampledBytesKey(bytes: anchor)
            if let p = lock.withLock({ policies[key] }) { return p }
            let p: TrustPolicy
            do {
                p = try TrustPolicy.testing(anchorDER: anchor)
            } catch {
                if case let .malformedCertificate(m) = error { throw GateKitError(.EINVAL, "test_anchor_der: \(m)") }
                throw map(error)
            }
            lock.withLock {
                if policies.count >= 8 { policies.removeAll() }
                policies[key] = p
            }
            return p
        }
    }
}
