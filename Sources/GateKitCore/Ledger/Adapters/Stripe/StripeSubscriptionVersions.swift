import GateKitStripeData
import GateKitSupport

/// A Subscription in the ledger's model (docs/ledger.md, "Stripe", the rule table): the
/// subscription is the purchase; each item a transaction (its lane is its product); the
/// renewal intent from the status and the cancellation. Stripe's rules, from its own pages
/// (`../shared/docs/stripe.md` §3, §4, §8): entitled while `trialing` or `active` to the item's
/// current period end (a `cancel_at` sooner ends it then; `cancel_at_period_end` keeps the
/// period); `past_due` within the host's grace after the paid period; never in `incomplete`
/// (pending), `incomplete_expired`, `unpaid`, `paused` or a status GateKit does not know;
/// `canceled` ends at `ended_at`. `pause_collection` leaves the status, so the answer, as it is.
extension StripeSubscription {
    func ledgerVersions(answeredMs: Int64, identity: String, options: Ledger.StripeOptions) -> ([TransactionVersion], RenewalVersion) {
        let account = LedgerCustomer.normalizedToken(metadata[options.accountMetadataKey])
        var transactions: [TransactionVersion] = []
        for item in items {
            let trial = status == .trialing
            var v = TransactionVersion(
                transactionID: item.id, purchaseID: id, appAccountToken: account,
                productID: item.ledgerProductID, groupID: item.productID,
                productType: .autoRenewable, familyShared: false, purchaseMs: startMs, originalPurchaseMs: startMs,
                expiresMs: expiry(of: item, answeredMs: answeredMs), revocationMs: nil, revocationReason: nil,
                isUpgraded: false, offer: trialStartMs == nil ? nil : .introductory, vouchedMs: answeredMs, identity: identity,
                sale: TransactionVersion.Sale(price: trial ? 0 : item.unitAmount.flatMap { $0.milliunits }.flatMap { multiplied($0, item.quantity) },
                                              currency: item.unitAmount?.isoCurrency, storefront: nil, trial: trial))
            v.store = .stripe
            v.isPending = status == .incomplete
            v.storeState = statusName
            transactions.append(v)
        }
        let periodEnd = items.map(\.periodEndMs).max()
        let paidUntil = items.map(\.periodStartMs).max() ?? answeredMs
        let renews = !cancelAtPeriodEnd && cancelAtMs == nil && [.trialing, .active, .pastDue].contains(status)
        let graceEnd: Int64? = status == .pastDue ? options.pastDueGraceMs.map { paidUntil &+ $0 } ?? periodEnd : nil
        let renewal = RenewalVersion(
            purchaseID: id, productID: items.first?.ledgerProductID, autoRenewProductID: nil,
            willAutoRenew: items.isEmpty ? nil : renews, isInBillingRetryPeriod: status == .pastDue || status == .unpaid,
            gracePeriodExpiresMs: graceEnd, expirationCause: cause, renewalMs: renews ? periodEnd : nil,
            pausedUntilMs: status == .paused ? .max : nil, vouchedMs: answeredMs, identity: identity)
        return (transactions, renewal)
    }

    /// The plans' keys as this answer shows them (`LookupKey`). A key no catalog could name
    /// (Stripe's are 1 to 200 bytes) names nothing.
    func lookupKeys(answeredMs: Int64) -> [LookupKey] {
        items.compactMap { item in
            guard let key = item.lookupKey, (1...256).contains(key.utf8.count), item.ledgerProductID.utf8.count <= 1024 else { return nil }
            return LookupKey(productID: item.ledgerProductID, key: key, seenMs: answeredMs)
        }
    }

    private func multiplied(_ price: Int64, _ quantity: Int64) -> Int64? {
        let (total, overflow) = price.multipliedReportingOverflow(by: quantity)
        return overflow ? nil : total
    }

    /// When the item's access ends, as the model reads an expiry.
    private func expiry(of item: Item, answeredMs: Int64) -> Int64? {
        // Stripe moves an item's period on when it invoices the next one, paid or not: the
        // period paid for ended where the current one began.
        let paidUntil = min(item.periodStartMs, answeredMs)
        switch status {
        case .trialing, .active:
            return cancelAtMs.map { min($0, item.periodEndMs) } ?? item.periodEndMs
        case .pastDue: return paidUntil  // then the grace (the renewal intent's)
        case .canceled:
            let ended = endedAtMs ?? canceledAtMs ?? answeredMs
            return min(item.periodEndMs, ended)
        case .unpaid: return paidUntil
        case .paused: return min(trialEndMs ?? paidUntil, answeredMs)
        case .incomplete, .incompleteExpired, .other: return nil
        }
    }

    /// Why it stops renewing: Stripe's `cancellation_details.reason` is not read; a status that
    /// ends in failed payment is billing's, a cancellation the customer's or the merchant's.
    private var cause: ExpirationCause? {
        switch status {
        case .unpaid, .incompleteExpired, .pastDue: return .billingError
        case .canceled: return .customerCancelled
        default: return cancelAtPeriodEnd || cancelAtMs != nil ? .customerCancelled : nil
        }
    }
}

extension StripeSubscription.Item {
    /// "product:price", as a Play base plan is "product:basePlan": the catalog names the
    /// product, the price (":price") or the price's lookup key.
    var ledgerProductID: String { "\(productID):\(priceID)" }
}
