import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitPlayAPI
import GateKitPlayData
import GateKitStripeAPI
import GateKitSupport

/// Asks Apple before saying no, when the answer is one the ledger cannot be sure of: a
/// subscription period that ended with auto-renew on and nothing recorded since (a renewal
/// lost on its way here). Within the host's time budget; without an answer in time, the stored
/// answer comes back marked stale. Certain answers never take this path.
public struct Refresher: Sendable {
    public let client: AppStoreServerClient
    public let verification: JWSOptions

    public init(client: AppStoreServerClient, verification: JWSOptions) throws(GateKitError) {
        guard client.options.environment == verification.environment else {
            throw .invalid("the verification environment (\(verification.environment.rawValue)) is not the client's (\(client.options.environment.rawValue))")
        }
        self.client = client
        self.verification = verification
    }

    /// The answer, refreshed first when it awaits a renewal and `budgetMs` > 0. A refresh
    /// is asked only about the subscription in question, and only for `.now` questions.
    /// `play`: the client a Google Play purchase's question asks (`ledger_set_play_refresher`);
    /// `stripe`: a Stripe purchase's, with how its answers are ingested (`ledger_set_stripe_refresher`).
    public static func entitlement(_ ledger: Ledger, refresher: Refresher?, play: PlayDeveloperClient? = nil,
                                   stripe: StripeRefresher? = nil, budgetMs: Int64, customer: String,
                                   to filter: String, scope: LedgerScope, at instant: LedgerInstant, naming: Bool,
                                   excluding: Set<[UInt8]> = []) throws(GateKitError) -> Entitlement {
        let answer = try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        guard budgetMs > 0, instant == .now, answer.awaitsRenewal, let original = answer.purchaseID else { return answer }
        var stale = answer
        stale.stale = true
        if answer.store == .play {
            guard let play else { return stale }
            do throws(GateKitError) {
                guard let holding = try ledger.playHolding(token: original) else { return stale }
                _ = try ledger.refreshPlay(token: original, holding: holding, client: play,
                                           withinMilliseconds: Int(min(budgetMs, Int64(Int32.max))))
            } catch {
                return stale  // no answer in time (or Google's API failed): the stored answer, marked
            }
            // Google's answer is the truth: a period still ended with renewal on is as Google says.
            return try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        }
        if answer.store == .stripe {
            guard let stripe, stripe.client.isTest == (scope.environment == AppStoreEnvironment.sandbox.rawValue) else { return stale }
            do throws(GateKitError) {
                _ = try ledger.refreshStripe(objectID: original, client: stripe.client, options: stripe.options,
                                             withinMilliseconds: Int(min(budgetMs, Int64(Int32.max))))
            } catch {
                return stale  // no answer in time (or Stripe's API failed): the stored answer, marked
            }
            return try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        }
        guard let refresher, refresher.verification.environment.rawValue == scope.environment else { return stale }
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(budgetMs) &* 1_000_000
        let report: CustomerRefresh.Report
        do throws(GateKitError) {
            report = try CustomerRefresh.run(ledger: ledger, client: refresher.client, verification: refresher.verification,
                                             customer: original, depth: .statusesOnly, deadline: deadline)
        } catch {
            return stale  // no answer in time (or Apple's API failed): the stored answer, marked
        }
        // Apple's word now, even if it still awaits the renewal (Apple has not billed yet),
        // unless Apple's answer could not be verified or said nothing of the subscription (an
        // empty status list is no evidence that it ended): then the ledger still does not know.
        var refreshed = try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        if refreshed.awaitsRenewal, report.tally.rejected > 0 || report.statusItems == 0 { refreshed.stale = true }
        return refreshed
    }

    /// The same for an app account: each linked customer's answer, within what is left of the
    /// one budget; the best of them is the answer.
    public static func entitlement(_ ledger: Ledger, refresher: Refresher?, play: PlayDeveloperClient? = nil,
                                   stripe: StripeRefresher? = nil, budgetMs: Int64, appUserID: String,
                                   to filter: String, scope: LedgerScope, at instant: LedgerInstant, naming: Bool) throws(GateKitError) -> Entitlement {
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(budgetMs) &* 1_000_000
        return try ledger.named(try ledger.bestAnswer(appUserID: appUserID, scope: scope, at: instant) { (customer, excluded) throws(GateKitError) in
            let now = Clock.monotonicNanoseconds()
            let left = now < deadline ? max(1, Int64((deadline - now) / 1_000_000)) : 1
            return try entitlement(ledger, refresher: refresher, play: play, stripe: stripe, budgetMs: left, customer: customer, to: filter, scope: scope,
                                   at: instant, naming: naming, excluding: excluded)
        }, filter: filter, at: instant)
    }
}

/// Who a Stripe purchase's questions ask before saying no, and how its answers are ingested.
public struct StripeRefresher: Sendable {
    public let client: StripeClient
    public let options: Ledger.StripeOptions

    public init(client: StripeClient, options: Ledger.StripeOptions) throws(GateKitError) {
        try Ledger.check(options)
        self.client = client
        self.options = options
    }
}
