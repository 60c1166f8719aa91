import Testing
@testable import GateKitLedger

/// The ledger's rules on versions alone (no store, no signatures): Apple's status numbers, the
/// entitlement table, as-of answers, and order independence over thousands of random orders.
@Suite struct LedgerModelTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_735_689_600_000

    static func tx(_ id: String, original: String = "1", product: String = "pro", group: String? = "g1",
                   type: ProductType = .autoRenewable, purchase: Int64, expires: Int64? = nil, signed: Int64? = nil,
                   revoked: Int64? = nil, upgraded: Bool = false, family: Bool = false, offer: Offer? = nil,
                   identity: String = "a") -> TransactionVersion {
        TransactionVersion(transactionID: id, purchaseID: original, appAccountToken: nil, productID: product,
                           groupID: group, productType: type, familyShared: family, purchaseMs: purchase, originalPurchaseMs: purchase,
                           expiresMs: expires, revocationMs: revoked, revocationReason: revoked == nil ? nil : .other, isUpgraded: upgraded,
                           offer: offer, vouchedMs: signed ?? purchase, identity: identity)
    }

    static func renewal(original: String = "1", signed: Int64, retry: Bool = false, grace: Int64? = nil, pausedUntil: Int64? = nil,
                        identity: String = "r") -> RenewalVersion {
        RenewalVersion(purchaseID: original, productID: "pro", autoRenewProductID: "pro", willAutoRenew: true,
                       isInBillingRetryPeriod: retry, gracePeriodExpiresMs: grace, expirationCause: nil, renewalMs: nil,
                       pausedUntilMs: pausedUntil, vouchedMs: signed, identity: identity)
    }

    /// Hardening IV, 21d: a purchase whose type the data does not name (a receipt without its
    /// product type) is never guessed to be a non-consumable — an unfinished consumable would
    /// entitle for good: with no end it entitles only as the catalog's type for its product.
    @Test func aPurchaseOfUnknownTypeEntitlesOnlyAsTheCatalogSays() throws {
        let d = Self.day, t = Self.t0
        let untyped = Self.tx("1", product: "gems", group: nil, type: .unknown, purchase: t)
        let record = CustomerRecord(transactions: [untyped])
        func answer(_ catalog: String?) throws -> Entitlement {
            try record.view(at: t + d, knownBy: nil, catalog: catalog.map { try ProductCatalog(json: Array($0.utf8)) } ?? .empty).entitlement(to: "gems")
        }
        #expect(try answer(nil).reason == .unknownType && !(try answer(nil)).isEntitled)
        #expect(try answer(#"{"products":{"gems":{"type":"consumable"}}}"#).reason == .consumable)
        #expect(try answer(#"{"products":{"gems":{"type":"non-consumable"}}}"#).reason == .nonConsumable)
        #expect(try answer(#"{"products":{"gems":{"type":"non-renewing","term":"P7D"}}}"#).untilMs == t + 7 * d)
        #expect(try answer(#"{"products":{"other":{"type":"non-consumable"}}}"#).reason == .unknownType)
        // With an end in its data, it is a period, as before.
        let period = CustomerRecord(transactions: [Self.tx("2", product: "gems", group: nil, type: .unknown, purchase: t, expires: t + 2 * d)])
        #expect(period.view(at: t + d, knownBy: nil).entitlement(to: "gems").untilMs == t + 2 * d)
        #expect(period.view(at: t + 3 * d, knownBy: nil).entitlement(to: "gems").reason == .expired)
    }

    /// Hardening IV, 21c: nothing entitles before its purchase instant, a subscription included
    /// (one bought and signed ten days ahead counted as entitled now, and its status active).
    @Test func aSubscriptionEntitlesFromItsPurchaseInstantOn() {
        let d = Self.day, t = Self.t0
        let ahead = Self.tx("1", purchase: t + 10 * d, expires: t + 40 * d, signed: t + 10 * d)
        let record = CustomerRecord(transactions: [ahead])
        func answer(_ at: Int64) -> Entitlement { record.view(at: at, knownBy: nil).entitlement(to: "pro") }
        #expect(answer(t).reason == .notYetPurchased && !answer(t).isEntitled)
        #expect(answer(t + 10 * d - 1).reason == .notYetPurchased)
        #expect(answer(t + 10 * d).reason == .subscription && answer(t + 10 * d).untilMs == t + 40 * d)  // at the purchase instant
        #expect(record.view(at: t, knownBy: nil).subscriptions.isEmpty)
        #expect(record.view(at: t, knownBy: nil).active.isEmpty)
        // A renewal bought ahead leaves the period bought before it in force until then.
        let month = Self.tx("0", purchase: t - 20 * d, expires: t + 10 * d)
        let both = CustomerRecord(transactions: [month, ahead])
        let now = both.view(at: t, knownBy: nil)
        #expect(now.entitlement(to: "pro").transactionID == "0" && now.entitlement(to: "pro").untilMs == t + 10 * d)
        #expect(now.subscriptions.first?.status == .active && now.subscriptions.first?.latest.transactionID == "0")
        #expect(both.view(at: t + 10 * d, knownBy: nil).entitlement(to: "pro").transactionID == "1")
    }

    @Test func appleStatusNumbersFromTheLatestTransactionAndRenewalInfo() {
        let d = Self.day, t = Self.t0
        let month = Self.tx("1", purchase: t, expires: t + 30 * d)
        func status(_ txs: [TransactionVersion], _ renewals: [RenewalVersion], at: Int64) -> SubscriptionStatus? {
            CustomerRecord(transactions: txs, renewals: renewals).view(at: at, knownBy: nil).subscriptions.first?.status
        }
        #expect(status([month], [], at: t + d) == .active)
        #expect(status([month], [], at: t + 31 * d) == .expired)
        #expect(status([month], [Self.renewal(signed: t + 30 * d, retry: true, grace: t + 46 * d)], at: t + 31 * d) == .billingGracePeriod)
        #expect(status([month], [Self.renewal(signed: t + 30 * d, retry: true, grace: t + 46 * d)], at: t + 47 * d) == .billingRetry)
        #expect(status([month], [Self.renewal(signed: t + 30 * d, retry: true)], at: t + 31 * d) == .billingRetry)
        let refunded = Self.tx("1", purchase: t, expires: t + 30 * d, signed: t + 5 * d, revoked: t + 5 * d, identity: "b")
        #expect(status([month, refunded], [], at: t + 6 * d) == .revoked)
        // As of before the refund was signed, the subscription was active.
        #expect(CustomerRecord(transactions: [month, refunded]).view(at: t + 4 * d, knownBy: t + 4 * d).subscriptions.first?.status == .active)
        // An upgraded-away transaction is never the latest.
        let old = Self.tx("1", product: "basic", purchase: t, expires: t + 30 * d, signed: t + 2 * d, upgraded: true)
        let new = Self.tx("2", product: "pro", purchase: t + 2 * d, expires: t + 32 * d)
        let view = CustomerRecord(transactions: [old, new]).view(at: t + 3 * d, knownBy: nil)
        #expect(view.subscriptions.first?.latest.productID == "pro")
        #expect(view.entitlement(to: "basic").reason == .upgraded)
        #expect(view.entitlement(to: "g1").productID == "pro")
    }

    @Test func entitlementRules() {
        let d = Self.day, t = Self.t0
        let lifetime = Self.tx("10", original: "10", product: "life", group: nil, type: .nonConsumable, purchase: t)
        let coins = Self.tx("11", original: "11", product: "coins", group: nil, type: .consumable, purchase: t)
        let season = Self.tx("12", original: "12", product: "season", group: nil, type: .nonRenewing, purchase: t, expires: t + 90 * d)
        let shared = Self.tx("13", original: "13", product: "fam", purchase: t, expires: t + 30 * d, family: true)
        let view = CustomerRecord(transactions: [lifetime, coins, season, shared]).view(at: t + d, knownBy: nil)
        #expect(view.entitlement(to: "life").reason == .nonConsumable && view.entitlement(to: "life").untilMs == nil)
        #expect(view.entitlement(to: "coins").reason == .consumable && !view.entitlement(to: "coins").isEntitled)
        #expect(view.entitlement(to: "season").reason == .nonRenewing && view.entitlement(to: "season").untilMs == t + 90 * d)
        #expect(view.entitlement(to: "fam").familyShared && view.entitlement(to: "fam").isEntitled)
        #expect(view.entitlement(to: "nothing").reason == .noPurchase)
        #expect(view.active.map(\.productID) == ["fam", "life", "season"])
        let before = CustomerRecord(transactions: [lifetime]).view(at: t - d, knownBy: nil)
        #expect(before.entitlement(to: "life").reason == .notYetPurchased)
        let later = CustomerRecord(transactions: [season]).view(at: t + 91 * d, knownBy: nil)
        #expect(later.entitlement(to: "season").reason == .expired)
        // Introductory offers: ineligible once the group had any subscription.
        #expect(view.isEligibleForIntroductoryOffer(group: "g2"))
        #expect(!view.isEligibleForIntroductoryOffer(group: "g1"))
        // A receipt purchase (no group) takes its product's group from signed data.
        var receiptPurchase = Self.tx("14", original: "14", product: "pro", group: nil, purchase: t, expires: t + 30 * d)
        receiptPurchase.identity = "receipt"
        let inferred = CustomerRecord(transactions: [receiptPurchase], productGroups: ["pro": "g9"]).view(at: t + d, knownBy: nil)
        #expect(inferred.entitlement(to: "g9").isEntitled)
        #expect(!inferred.isEligibleForIntroductoryOffer(group: "g9"))
    }

    /// Random customers: several transactions, each in several versions (some signed in the
    /// same millisecond, told apart by identity), renewal infos likewise, then thousands of
    /// random orders with repeats. Every order gives the same answers at every instant.
    @Test func anyOrderWithRepeatsGivesTheSameAnswers() {
        var rng = SplitMix(seed: 20261123)
        let d = Self.day, t = Self.t0
        var orders = 0
        for _ in 0..<20 {
            var versions: [TransactionVersion] = []
            var renewals: [RenewalVersion] = []
            for original in 0..<3 {
                for n in 0..<4 {
                    let purchase = t + Int64(n) * 30 * d + Int64(rng.next(5)) * d
                    let type: ProductType = [.autoRenewable, .autoRenewable, .nonConsumable, .consumable, .nonRenewing][rng.next(5)]
                    for v in 0..<(1 + rng.next(3)) {
                        versions.append(Self.tx("\(original)-\(n)", original: "\(original)", product: ["a", "b", "c"][rng.next(3)],
                                                group: rng.next(4) == 0 ? nil : "g\(original % 2)", type: type, purchase: purchase,
                                                expires: rng.next(5) == 0 ? nil : purchase + Int64(10 + rng.next(40)) * d,
                                                signed: purchase + Int64(rng.next(3)) * d, revoked: rng.next(4) == 0 ? purchase + 3 * d : nil,
                                                upgraded: rng.next(6) == 0, family: rng.next(5) == 0, offer: rng.next(4) == 0 ? .introductory : nil,
                                                identity: "\(original)-\(n)-\(v)-\(rng.next(1000))"))
                    }
                }
                for v in 0..<3 {
                    renewals.append(Self.renewal(original: "\(original)", signed: t + Int64(rng.next(120)) * d, retry: rng.next(2) == 0,
                                                 grace: rng.next(2) == 0 ? t + Int64(rng.next(150)) * d : nil, identity: "\(original)-\(v)"))
                }
            }
            let instants: [LedgerInstant] = [.now] + (0..<8).map { _ in .asOf(t + Int64(rng.next(160)) * d) }
            func answers(_ record: CustomerRecord) -> String {
                instants.map { instant -> String in
                    let view = record.view(at: instant == .now ? t + 400 * d : instant.at, knownBy: instant.knownBy)
                    let subjects = ["a", "b", "c", "g0", "g1", "none"]
                    return "\(subjects.map { view.entitlement(to: $0) })|\(view.active)|\(view.subscriptions.map { ($0.purchaseID, $0.status, $0.latest.transactionID) })|\(view.isEligibleForIntroductoryOffer(group: "g0"))"
                }.joined(separator: "\n")
            }
            let expected = answers(CustomerRecord(transactions: versions, renewals: renewals, productGroups: ["a": "g0"]))
            for _ in 0..<250 {
                var shuffled = versions + (0..<rng.next(versions.count)).map { _ in versions[rng.next(versions.count)] }
                var shuffledRenewals = renewals + (0..<rng.next(4)).map { _ in renewals[rng.next(renewals.count)] }
                rng.shuffle(&shuffled)
                rng.shuffle(&shuffledRenewals)
                #expect(answers(CustomerRecord(transactions: shuffled, renewals: shuffledRenewals, productGroups: ["a": "g0"])) == expected)
                orders += 1
            }
        }
        #expect(orders == 5000)
    }
}

/// A small deterministic generator (tests must replay the same orders).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func nextRaw() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(nextRaw() % UInt64(bound)) }
    mutating func shuffle<T>(_ a: inout [T]) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, next(i + 1)) }
    }
}
