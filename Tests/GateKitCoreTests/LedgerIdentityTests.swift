import Testing
@testable import GateKitLedger

/// Hardening III's ledger rules on versions alone: whose a subscription is after an account
/// transfer, the two kinds of customer, a lone upgraded transaction, and the compacted record
/// ingestion keeps between a batch's items.
@Suite struct LedgerIdentityTests {
    static let t = LedgerModelTests.t0, d = LedgerModelTests.day
    static let old = "1f0e9a2c-0000-4000-8000-000000000001", new = "1f0e9a2c-0000-4000-8000-000000000002"

    static func tokened(_ token: String?, signed: Int64, identity: String) -> TransactionVersion {
        var v = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d, signed: signed, identity: identity)
        v.appAccountToken = token
        return v
    }

    @Test func onlyTheNewestTokenIsTheSubscriptionsAccount() {
        let versions = [Self.tokened(Self.old, signed: Self.t, identity: "a"), Self.tokened(Self.new, signed: Self.t + Self.d, identity: "b"),
                        Self.tokened(nil, signed: Self.t + 2 * Self.d, identity: "c")]  // a receipt purchase: no opinion on tokens
        for order in [versions, versions.reversed()] {
            let asNew = CustomerRecord(transactions: order, token: Self.new).view(at: Self.t + 3 * Self.d, knownBy: nil)
            let asOld = CustomerRecord(transactions: order, token: Self.old).view(at: Self.t + 3 * Self.d, knownBy: nil)
            #expect(asNew.entitlement(to: "pro").isEntitled)
            #expect(asNew.entitlement(to: "pro").transactionID == "1")
            #expect(asOld.entitlement(to: "pro").reason == .noPurchase)
            // Before the transfer was signed, the old account had it.
            let before = CustomerRecord(transactions: order, token: Self.old).view(at: Self.t + Self.d / 2, knownBy: Self.t + Self.d / 2)
            #expect(before.entitlement(to: "pro").isEntitled)
        }
    }

    @Test func aUUIDIsATokenAndAnythingElseAnOriginalTransactionID() {
        #expect(LedgerCustomer(Self.old.uppercased()) == .token(Self.old))
        #expect(LedgerCustomer("2000000123456789") == .purchaseID("2000000123456789"))
        #expect(LedgerCustomer("not-a-uuid-but-close-0000-000000000001") == .purchaseID("not-a-uuid-but-close-0000-000000000001"))
        #expect(LedgerCustomer.normalizedToken("1000") == nil)
        #expect(LedgerCustomer.normalizedToken(Self.new.uppercased()) == Self.new)
    }

    @Test func aLoneUpgradedTransactionEntitlesNowhere() {
        let upgraded = LedgerModelTests.tx("1", purchase: Self.t, expires: Self.t + 30 * Self.d, upgraded: true)
        let view = CustomerRecord(transactions: [upgraded]).view(at: Self.t + Self.d, knownBy: nil)
        #expect(view.subscriptions.first?.status == .expired)
        #expect(view.entitlement(to: "pro").reason == .upgraded)
        #expect(view.active.isEmpty)
    }

    /// The compacted record answers every "now" question as the whole record does, whatever
    /// the versions (refunds, reinstatements, tokens, receipt purchases without a group).
    @Test func theCompactedRecordAnswersAsTheWholeRecord() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var versions: [TransactionVersion] = []
            for i in 0..<Int.random(in: 1...12, using: &random) {
                var v = LedgerModelTests.tx(String(Int.random(in: 1...3, using: &random)), original: String(Int.random(in: 1...2, using: &random)),
                                            group: Bool.random(using: &random) ? "g1" : nil, purchase: Self.t + Int64(i) * Self.d,
                                            expires: Self.t + Int64(i + 30) * Self.d, signed: Self.t + Int64.random(in: 0...5, using: &random) * Self.d,
                                            revoked: Bool.random(using: &random) ? Self.t + Int64(i) * Self.d : nil, identity: String(i))
                v.appAccountToken = [nil, Self.old, Self.new].randomElement(using: &random) ?? nil
                versions.append(v)
            }
            let renewals = (0..<Int.random(in: 0...3, using: &random)).map { i in
                LedgerModelTests.renewal(original: String(Int.random(in: 1...2, using: &random)), signed: Self.t + Int64(i) * Self.d,
                                         retry: Bool.random(using: &random), grace: Self.t + 40 * Self.d, identity: String(i))
            }
            for token in [nil, Self.old] {
                let whole = CustomerRecord(transactions: versions, renewals: renewals, token: token)
                for at in [Self.t, Self.t + 10 * Self.d, Self.t + 45 * Self.d] {
                    let a = whole.view(at: at, knownBy: nil), b = whole.compacted().view(at: at, knownBy: nil)
                    #expect(a.active == b.active)
                    #expect(a.entitlement(to: "g1") == b.entitlement(to: "g1"))
                    #expect(a.subscriptions.map(\.status) == b.subscriptions.map(\.status))
                }
            }
        }
    }
}
