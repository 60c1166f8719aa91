import Testing
@testable import GateKitSupport
@testable import GateKitTrust

@Suite struct TrustTests {
    static let validTime: Int64 = 1_761_962_975     // 2025-11-01: the x509 vectors are valid
    static let expiredTime: Int64 = 2_280_946_846   // 2042: they are not

    func x509(_ name: String) -> [UInt8]? { FixtureFiles.read("jws/x509/\(name).der") }

    @Test func pinnedRootsMatchTheirFingerprints() throws {
        let root = try TrustAnchor.appleIncRoot()
        #expect(Hex.encode(root.sha256) == TrustAnchor.appleIncRootFingerprint)
        #expect(root.der.count == 1215)
        let g3 = try TrustAnchor.appleRootCAG3()
        #expect(Hex.encode(g3.sha256) == TrustAnchor.appleRootCAG3Fingerprint)
        #expect(!root.isTestAnchor && !g3.isTestAnchor)
    }

    @Test func realAppleSignedDataChainVerifiesUnderPinnedG3() throws {
        guard let leaf = x509("REAL_APPLE_SIGNING_CERTIFICATE"), let mid = x509("REAL_APPLE_INTERMEDIATE"),
              let root = x509("REAL_APPLE_ROOT") else { return FixtureFiles.skipNote("jws/x509") }
        let verifier = ChainVerifier(cacheCapacity: 4)
        let chain = try verifier.verify(leaf: leaf, untrusted: [mid, root], at: 1_780_000_000, policy: try .appStoreSignedData())
        #expect(chain.length == 3 && chain.keyType == .ec && !chain.isTestAnchored)
        // The same chain is not an App Store *receipt* chain.
        #expect(throws: TrustFailure.self) {
            try verifier.verify(leaf: leaf, untrusted: [mid, root], at: 1_780_000_000, policy: try .appStoreReceipts())
        }
    }

    @Test func testChainRequiresExplicitTestAnchor() throws {
        guard let root = x509("ROOT_CA"), let mid = x509("INTERMEDIATE_CA"), let leaf = x509("LEAF_CERT")
        else { return FixtureFiles.skipNote("jws/x509") }
        let verifier = ChainVerifier(cacheCapacity: 4)
        // Offering the test root inside the input never makes it an anchor.
        #expect(throws: TrustFailure.self) {
            try verifier.verify(leaf: leaf, untrusted: [mid, root], at: Self.validTime, policy: try .appStoreSignedData())
        }
        let policy = try TrustPolicy.testing(anchorDER: root, length: .exactly(3))
        let chain = try verifier.verify(leaf: leaf, untrusted: [mid], at: Self.validTime, policy: policy)
        #expect(chain.isTestAnchored && chain.length == 3)
        #expect(verifier.cachedChains == 1)
        do {
            _ = try verifier.verify(leaf: leaf, untrusted: [mid], at: Self.expiredTime, policy: policy)
            Issue.record("expired chain accepted")
        } catch {
            guard case .notValidAtTime = error else { Issue.record("wrong failure \(error)"); return }
        }
    }

    @Test func wrongOIDsAndShortChainsAreRejectedWithTheirReasons() throws {
        guard let root = x509("ROOT_CA"), let mid = x509("INTERMEDIATE_CA"), let leaf = x509("LEAF_CERT"),
              let badLeaf = x509("LEAF_CERT_INVALID_OID"), let badMid = x509("INTERMEDIATE_CA_INVALID_OID"),
              let leafUnderBadMid = x509("LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID")
        else { return FixtureFiles.skipNote("jws/x509") }
        let verifier = ChainVerifier(cacheCapacity: 4)
        let policy = try TrustPolicy.testing(anchorDER: root, length: .exactly(3))
        func failure(_ leaf: [UInt8], _ untrusted: [[UInt8]], _ p: TrustPolicy) -> TrustFailure? {
            do { _ = try verifier.verify(leaf: leaf, untrusted: untrusted, at: Self.validTime, policy: p); return nil }
            catch { return error }
        }
        guard case .leafOID = failure(badLeaf, [mid], policy) else { Issue.record("leaf OID"); return }
        guard case .intermediateOID = failure(leafUnderBadMid, [badMid], policy) else { Issue.record("intermediate OID"); return }
        // The intermediate presented as the signer: a two-certificate chain under the root.
        guard case .chainLength = failure(mid, [], policy) else { Issue.record("chain length"); return }
        // A non-self-signed anchor is never a partial-chain shortcut.
        let midAnchor = try TrustPolicy.testing(anchorDER: mid, length: .exactly(2))
        guard case .untrustedRoot = failure(leaf, [], midAnchor) else { Issue.record("partial chain"); return }
        guard case .untrustedRoot = failure(leaf, [], policy) else { Issue.record("missing intermediate"); return }
        guard case .malformedCertificate = failure(Array(leaf.dropLast()), [mid], policy) else { Issue.record("truncated"); return }
        guard case .malformedCertificate = failure(leaf + [0], [mid], policy) else { Issue.record("trailing"); return }
    }

    @Test func cachedChainNeverAnswersOutsideItsWindow() throws {
        guard let root = x509("ROOT_CA"), let mid = x509("INTERMEDIATE_CA"), let leaf = x509("LEAF_CERT")
        else { return FixtureFiles.skipNote("jws/x509") }
        let verifier = ChainVerifier(cacheCapacity: 2)
        let policy = try TrustPolicy.testing(anchorDER: root, length: .exactly(3))
        let chain = try verifier.verify(leaf: leaf, untrusted: [mid], at: Self.validTime, policy: policy)
        #expect(chain.holds(at: Self.validTime))
        #expect(!chain.holds(at: chain.validUntil))
        #expect(!chain.holds(at: chain.validFrom))
        #expect(throws: TrustFailure.self) {
            try verifier.verify(leaf: leaf, untrusted: [mid], at: chain.validUntil + 1, policy: policy)
        }
        #expect(throws: TrustFailure.self) {
            try verifier.verify(leaf: leaf, untrusted: [mid], at: Self.validTime, policy: try .testing(anchorDER: mid, length: .exactly(3)))
        }
    }

    @Test func requireSHA256RejectsSHA1Chains() throws {
        guard let wwdr = FixtureFiles.read("certs/AppleWWDRCA.cer") else { return FixtureFiles.skipNote("certs") }
        // WWDR G1 is signed by Apple Inc. Root CA with SHA-1; as a "leaf" with the length-2 policy
        // only the digest rule can reject it.
        let base = try TrustAnchor.appleIncRoot()
        let lax = TrustPolicy(anchor: base, length: .exactly(2), leafOID: nil, intermediateOID: nil, requireSHA256: false)
        let strict = TrustPolicy(anchor: base, length: .exactly(2), leafOID: nil, intermediateOID: nil, requireSHA256: true)
        let verifier = ChainVerifier(cacheCapacity: 2)
        _ = try verifier.verify(leaf: wwdr, untrusted: [], at: 1_400_000_000, policy: lax)
        do {
            _ = try verifier.verify(leaf: wwdr, untrusted: [], at: 1_400_000_000, policy: strict)
            Issue.record("SHA-1 accepted under requireSHA256")
        } catch {
            guard case .weakDigest = error else { Issue.record("wrong failure \(error)"); return }
        }
    }
}
