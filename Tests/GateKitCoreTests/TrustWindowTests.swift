import Glibc
import Testing
@testable import GateKitTrust

/// Certificate and chain-cache windows to the second, and a chain one certificate too long (issue 32).
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
