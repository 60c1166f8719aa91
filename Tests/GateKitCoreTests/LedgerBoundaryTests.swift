import Testing
@testable import GateKitLedger

/// Every comparison of the ledger with an instant, one millisecond before, at, and after
/// (issue 32): an answer that flips a millisecond early or late is a wrong answer.
@Suite struct LedgerBoundaryTests {
    static let t = LedgerModelTests.t0, d = LedgerModelTests.day

    static func answer(_ txs: [TransactionVersion], _ renewals: [RenewalVersion] = [], at: Int64, knownBy: Int64? = nil,
                       filter: String = "pro") -> Entitlement {
        CustomerRecord(transactions: txs, renewals: renewals).view(at: at, knownBy: knownBy).entitlement(to: filter)
    }

    /// (version list, renewals, the instant of the rule, reason just before, reason at and after)
    @Test func everyTimeRuleFlipsExactlyAtItsInstant() {
        let t = Self.t, d = Self.d
        let expires = t + 30 * d, grace = t + 46 * d, revoked = t + 5 * d
        let month = LedgerModelTests.tx("1", purchase: t, expires: expires)
        let rows: [(String, [TransactionVersion], [RenewalVersion], Int64, Entitlement.Reason, Entitlement.Reason)] = [
            ("expiry", [month], [], expires, .subscription, .expired),
            ("grace period end", [month], [LedgerModelTests.renewal(signed: expires, retry: true, grace: grace)], grace, .gracePeriod, .billingRetry),
            ("revocation", [month, LedgerModelTests.tx("1", purchase: t, expires: expires, signed: revoked, revoked: revoked, identity: "b")], [],
             revoked, .subscription, .revoked),
            ("purchase", [LedgerModelTests.tx("1", group: nil, type: .nonConsumable, purchase: t)], [], t, .notYetPurchased, .nonConsumable),
            ("non-renewing expiry", [LedgerModelTests.tx("1", group: nil, type: .nonRenewing, purchase: t, expires: expires)], [], expires,
             .nonRenewing, .expired),
            ("revocation of a non-consumable", [LedgerModelTests.tx("1", group: nil, type: .nonConsumable, purchase: t),
                                               LedgerModelTests.tx("1", group: nil, type: .nonConsumable, purchase: t, signed: revoked,
                                                                   revoked: revoked, identity: "b")], [], revoked, .nonConsumable, .revoked),
        ]
        for (rule, txs, renewals, instant, before, after) in rows {
            #expect(Self.answer(txs, renewals, at: instant - 1).reason == before, "\(rule): 1 ms before")
            #expect(Self.answer(txs, renewals, at: instant).reason == after, "\(rule): at the instant")
            #expect(Self.answer(txs, renewals, at: instant + 1).reason == after, "\(rule): 1 ms after")
        }
    }

    @Test func aRenewalExtensionMovesTheExpiryToTheMillisecond() {
        let t = Self.t, d = Self.d
        let extended = t + 35 * d
        let versions = [LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d),
                        LedgerModelTests.tx("1", purchase: t, expires: extended, signed: t + 10 * d, identity: "b")]
        #expect(Self.answer(versions, at: extended - 1).reason == .subscription)
        #expect(Self.answer(versions, at: extended - 1).untilMs == extended)
        #expect(Self.answer(versions, at: extended).reason == .expired)
    }

    @Test func billingRetryWithoutGraceIsNotEntitledFromTheExpiry() {
        let t = Self.t, d = Self.d
        let month = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d)
        let retry = LedgerModelTests.renewal(signed: t + 30 * d, retry: true)
        #expect(Self.answer([month], [retry], at: t + 30 * d - 1).reason == .subscription)
        #expect(Self.answer([month], [retry], at: t + 30 * d).reason == .billingRetry)
        // Not in billing retry: plainly expired.
        #expect(Self.answer([month], [LedgerModelTests.renewal(signed: t + 30 * d)], at: t + 30 * d).reason == .expired)
    }

    @Test func theKnownByCutOffIncludesAVersionSignedAtIt() {
        let t = Self.t, d = Self.d
        let signed = t + 5 * d
        let versions = [LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d),
                        LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d, signed: signed, revoked: signed, identity: "b")]
        #expect(Self.answer(versions, at: signed, knownBy: signed - 1).reason == .subscription)
        #expect(Self.answer(versions, at: signed, knownBy: signed).reason == .revoked)
        let renewal = [LedgerModelTests.renewal(signed: signed, retry: true, grace: t + 40 * d)]
        let view = { (known: Int64) in CustomerRecord(transactions: [versions[0]], renewals: renewal).view(at: t + 31 * d, knownBy: known) }
        #expect(view(signed - 1).entitlement(to: "pro").reason == .expired)
        #expect(view(signed).entitlement(to: "pro").reason == .gracePeriod)
    }

    @Test func introductoryEligibilityEndsAtThePurchase() {
        let t = Self.t
        let month = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * Self.d)
        #expect(CustomerRecord(transactions: [month]).view(at: t - 1, knownBy: nil).isEligibleForIntroductoryOffer(group: "g1"))
        #expect(!CustomerRecord(transactions: [month]).view(at: t, knownBy: nil).isEligibleForIntroductoryOffer(group: "g1"))
    }

    @Test func theNewestVersionWinsTiesByIdentity() {
        let a = LedgerModelTests.tx("1", purchase: Self.t, signed: Self.t, identity: "a")
        let b = LedgerModelTests.tx("1", purchase: Self.t, signed: Self.t, identity: "b")
        let later = LedgerModelTests.tx("1", purchase: Self.t, signed: Self.t + 1, identity: "0")
        #expect(b.isNewer(than: a) && !a.isNewer(than: b) && !a.isNewer(than: a))
        #expect(later.isNewer(than: b) && !b.isNewer(than: later))
    }
}
