import GateKitLedger
import GateKitSupport

/// Who a store's purchases' questions ask before saying no — one per store, each in its own
/// file (`AppStoreRefresher`, `PlayRefresher`, `StripeRefresher`): asked only when the answer
/// is one the ledger cannot be sure of (a period that ended while it renews, with nothing
/// recorded since: a renewal lost on its way here).
public protocol PurchaseRefresher: Sendable {
    /// The store whose purchases it asks about.
    var store: PurchaseStore { get }
    /// Whether it may answer for purchases of `scope` (a client of that environment or mode).
    func answers(for scope: LedgerScope) -> Bool
    /// Asks the store about `purchaseID` within `budgetMs` and records what it answers; whether
    /// that answer is evidence (false: the store's answer could not be verified or said nothing
    /// of the purchase, so the ledger still does not know). Throws when no answer came in time.
    func refresh(_ ledger: Ledger, purchaseID: String, budgetMs: Int64) throws(GateKitError) -> Bool
}

/// Asks the store before saying no, within the host's time budget; without an answer in time,
/// the stored answer comes back marked stale. Certain answers never take this path.
public enum RefreshBeforeDeny {
    /// The answer, refreshed first when it awaits a renewal and `budgetMs` > 0, by the refresher
    /// of the purchase's store. A refresh is asked only about the purchase in question, and only
    /// for `.now` questions.
    public static func entitlement(_ ledger: Ledger, refreshers: [any PurchaseRefresher], budgetMs: Int64, customer: String,
                                   to filter: String, scope: LedgerScope, at instant: LedgerInstant, naming: Bool,
                                   excluding: Set<[UInt8]> = []) throws(GateKitError) -> Entitlement {
        let answer = try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        guard budgetMs > 0, instant == .now, answer.awaitsRenewal, let original = answer.purchaseID else { return answer }
        var stale = answer
        stale.stale = true
        guard let refresher = refreshers.first(where: { $0.store == answer.store && $0.answers(for: scope) }) else { return stale }
        let evidence: Bool
        do throws(GateKitError) {
            evidence = try refresher.refresh(ledger, purchaseID: original, budgetMs: budgetMs)
        } catch {
            return stale  // no answer in time (or the store's API failed): the stored answer, marked
        }
        // The store's word now, even if it still awaits the renewal (the store has not billed
        // yet), unless its answer was no evidence: then the ledger still does not know.
        var refreshed = try ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluding)
        if refreshed.awaitsRenewal, !evidence { refreshed.stale = true }
        return refreshed
    }

    /// The same for an app account: each linked customer's answer, within what is left of the
    /// one budget; the best of them is the answer.
    public static func entitlement(_ ledger: Ledger, refreshers: [any PurchaseRefresher], budgetMs: Int64, appUserID: String,
                                   to filter: String, scope: LedgerScope, at instant: LedgerInstant, naming: Bool) throws(GateKitError) -> Entitlement {
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(budgetMs) &* 1_000_000
        return try ledger.named(try ledger.bestAnswer(appUserID: appUserID, scope: scope, at: instant) { (customer, excluded) throws(GateKitError) in
            let now = Clock.monotonicNanoseconds()
            let left = now < deadline ? max(1, Int64((deadline - now) / 1_000_000)) : 1
            return try entitlement(ledger, refreshers: refreshers, budgetMs: left, customer: customer, to: filter, scope: scope,
                                   at: instant, naming: naming, excluding: excluded)
        }, filter: filter, at: instant)
    }
}
