import Glibc
import Testing
@testable import GateKitCore

/// Rules that had no Swift test of their own (issue 32): each would let `make mutation`'s
/// mutant of it survive the focused Swift suites.
@Suite struct AppStoreSigningTests {
    /// A SEC1 PEM P-256 key with exactly this private scalar and no public point.
    static func sec1(_ scalar: [UInt8]) -> [UInt8] {
        let der: [UInt8] = [0x30, 49, 0x02, 0x01, 0x01, 0x04, 32] + scalar + [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        return Array(("-----BEGIN EC PRIVATE KEY-----\n" + Base64.encode(der) + "\n-----END EC PRIVATE KEY-----\n").utf8)
    }

    static func load(_ pem: [UInt8]) -> GateKitError.Code? {
        failure { try pem.withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: "i", bundleID: "b") } }
    }

    @Test func keysWhoseScalarCannotSignAreRefused() {
        let n = ES256.p256Order
        var nPlusOne = n
        nPlusOne[31] &+= 1
        var nMinusOne = n
        nMinusOne[31] &-= 1
        #expect(Self.load(Self.sec1([UInt8](repeating: 0, count: 32))) == .appStoreKey)
        #expect(Self.load(Self.sec1(n)) == .appStoreKey)
        #expect(Self.load(Self.sec1(nPlusOne)) == .appStoreKey)
        #expect(Self.load(Self.sec1(nMinusOne)) == nil)  // the largest scalar that signs
        #expect(Self.load(Self.sec1([UInt8](repeating: 0, count: 31) + [1])) == nil)
    }

    @Test func anOfferFieldHoldingTheSeparatorIsRefused() throws {
        var one = [UInt8](repeating: 0, count: 31) + [7]
        let key = try Self.sec1(one).withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: nil, bundleID: "b") }
        one = []
        let nonce = "20fba8a0-2b80-4a7d-a17f-85c1854727f8"
        #expect(failure { try PromotionalOfferSignature.create(productIdentifier: "p", subscriptionOfferID: "o", applicationUsername: "u",
                                                              nonce: nonce, timestamp: 1, key: key) } == nil)
        for (p, o, u) in [("p\u{2063}x", "o", "u"), ("p", "o\u{2063}", "u"), ("p", "o", "\u{2063}u")] {
            #expect(failure { try PromotionalOfferSignature.create(productIdentifier: p, subscriptionOfferID: o, applicationUsername: u,
                                                                  nonce: nonce, timestamp: 1, key: key) } == .invalidArgument)
        }
    }

    @Test func aBaseURLWithCredentialsAndWhatIsRetried() throws {
        let key = try Self.sec1([UInt8](repeating: 0, count: 31) + [9]).withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: "i", bundleID: "b") }
        var options = AppStoreServerClient.Options(environment: .sandbox)
        options.baseURL = "https://user:secret@127.0.0.1:1"
        #expect(failure { try AppStoreServerClient(key: key, options: options) } == .invalidArgument)
        options.baseURL = "https://127.0.0.1:1/path@x"
        #expect(failure { try AppStoreServerClient(key: key, options: options) } == nil)  // '@' in the path is no user
        // Not every server error is retried: only 429 and Apple's retryable codes.
        let body = Array(#"{"errorCode":5000000,"errorMessage":"x"}"#.utf8)
        #expect(!APIFailure(HTTPResponse(status: 500, contentType: "application/json", retryAfter: nil, body: body)).isRetryable)
        #expect(!APIFailure(HTTPResponse(status: 503, contentType: nil, retryAfter: nil, body: [])).isRetryable)
    }
}

@Suite struct SignedKindTests {
    @Test func aPayloadIsAMemberOfTheKindItsMembersSay() throws {
        let renewal = try JSONParser.parse(Array(#"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1}"#.utf8))
        #expect(failure { try SignedKind.requireRenewalInfo(renewal, path: "r") } == nil)
        for other in [#"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"requestIdentifier":"x"}"#,
                      #"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"userLocale":"en_US"}"#,
                      #"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"transactionId":"2"}"#,
                      #"{"originalTransactionId":"1","signedDate":1}"#] {
            #expect(failure { try SignedKind.requireRenewalInfo(try JSONParser.parse(Array(other.utf8)), path: "r") } == .jwsPayloadField, "\(other)")
        }
    }

    @Test func signedStringsHoldNoNULAndNoMemberTwice() throws {
        let nul = try JSONParser.parse(Array(#"{"transactionId":"1\u0000evil","productId":"p"}"#.utf8))
        #expect(failure { try JWSTransaction(json: nul) } == .jwsPayloadField)
        let list = try JSONParser.parse(Array(#"{"eligibleWinBackOfferIds":["a","b\u0000"]}"#.utf8))
        #expect(failure { try JWSRenewalInfo(json: list) } == .jwsPayloadField)
        let twice = try JSONParser.parse(Array(#"{"productId":"a","productId":"b"}"#.utf8))
        #expect(failure { try JWSTransaction(json: twice) } == .jwsPayloadField)
    }
}

@Suite struct TrustWindowTests {
    /// Apple's chains are exactly three certificates: a fourth (a second intermediate that
    /// also carries Apple's OID) is refused by its length, whatever else it gets right.
    @Test func aChainLongerThanThreeIsRefusedByItsLength() throws {
        guard let pki = JWSTestPKI.shared else { return }
        let policy = try TrustPolicy.testing(anchorDER: pki.der("root"), length: .exactly(3))
        let verifier = ChainVerifier(cacheCapacity: 4)
        _ = try verifier.verifyUncached(leaf: pki.der("leaf"), untrusted: [pki.der("int")], at: nowSeconds(), policy: policy)
        do {
            _ = try verifier.verifyUncached(leaf: pki.der("leaf_deep"), untrusted: [pki.der("int_sub"), pki.der("int_long")],
                                            at: nowSeconds(), policy: policy)
            Issue.record("a four-certificate chain was accepted")
        } catch {
            guard case .chainLength = error else { Issue.record("refused as \(error), not by its length"); return }
        }
    }

    /// Certificates are valid from notBefore (included) to notAfter (excluded), to the second:
    /// OpenSSL's X509_cmp_time counts a time equal to notAfter as expired. The chain cache
    /// answers only strictly inside that window, so both edges take a full verification.
    @Test func certificatesAreValidToTheSecondOfTheirWindow() throws {
        guard let pki = JWSTestPKI.shared else { return }
        let policy = try TrustPolicy.testing(anchorDER: pki.der("root"), length: .exactly(3))
        let verifier = ChainVerifier(cacheCapacity: 4)
        let chain = try verifier.verifyUncached(leaf: pki.der("leaf"), untrusted: [pki.der("int")], at: nowSeconds(), policy: policy)
        for (time, valid) in [(chain.validFrom - 1, false), (chain.validFrom, true), (chain.validUntil - 1, true), (chain.validUntil, false)] {
            let verdict: Bool
            do {
                _ = try verifier.verifyUncached(leaf: pki.der("leaf"), untrusted: [pki.der("int")], at: time, policy: policy)
                verdict = true
            } catch {
                guard case .notValidAtTime = error else { Issue.record("at \(time): \(error), not a certificate time"); continue }
                verdict = false
            }
            #expect(verdict == valid, "at \(time) (window \(chain.validFrom)...\(chain.validUntil))")
        }
    }

    /// A verified chain answers from the cache only strictly inside its validity window: at
    /// either edge a full verification decides.
    @Test func theChainCacheAnswersOnlyStrictlyInsideTheWindow() throws {
        guard let pki = JWSTestPKI.shared else { return }
        let policy = try TrustPolicy.testing(anchorDER: pki.der("root"), length: .exactly(3))
        let chain = try ChainVerifier(cacheCapacity: 4).verifyUncached(leaf: pki.der("leaf"), untrusted: [pki.der("int")],
                                                                        at: nowSeconds(), policy: policy)
        #expect(!chain.holds(at: chain.validFrom) && chain.holds(at: chain.validFrom + 1))
        #expect(chain.holds(at: chain.validUntil - 1) && !chain.holds(at: chain.validUntil))
    }
}

@Suite struct StoreFolderTests {
    @Test func aWorldWritableFolderWithoutTheStickyBitIsRefused() throws {
        let folder = TemporaryFolder()
        let open = folder.file("open")
        // Writable by others but not by the group: only the world-writable rule refuses it.
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o707) == 0)
        #expect(failure { try Store(path: open + "/s.sqlite", appID: nil) } == .unsafeStore)
        #expect(access(open + "/s.sqlite", F_OK) != 0)  // nothing created
        #expect(chmod(open, 0o1707) == 0)
        #expect(failure { try Store(path: open + "/s.sqlite", appID: nil) } == nil)
    }
}
