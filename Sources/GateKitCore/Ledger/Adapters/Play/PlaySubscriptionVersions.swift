import GateKitPlayData
import GateKitSupport

/// A SubscriptionPurchaseV2 in the ledger's model (docs/ledger.md, "Google Play"): the
/// subscription is the purchase token; each line item a transaction (its latest successful
/// order, else the token and product); the renewal intent from the state. Google's rules
/// (google-play.md §5.1): entitled in ACTIVE, IN_GRACE_PERIOD and CANCELED until the item's
/// expiryTime; never in ON_HOLD, PAUSED, EXPIRED, PENDING or a state GateKit does not know.
extension SubscriptionPurchase {
    /// `answeredMs`: when Google answered (the versions' instant); `identity`: the answer's.
    func ledgerVersions(token: String, answeredMs: Int64, identity: String) -> ([TransactionVersion], RenewalVersion) {
        let account = LedgerCustomer.normalizedToken(obfuscatedAccountID ?? outOfAppAccountID)
        let orderCounts = Dictionary(lineItems.compactMap(\.latestSuccessfulOrderID).map { ($0, 1) }, uniquingKeysWith: +)
        var transactions: [TransactionVersion] = []
        for item in lineItems {
            // An order shared by several items (add-ons bought together) is told apart by product.
            let id = item.latestSuccessfulOrderID.map { orderCounts[$0, default: 0] > 1 ? "\($0)/\(item.productID)" : $0 }
                ?? "\(token)/\(item.productID)"
            var v = TransactionVersion(
                transactionID: id, purchaseID: token, appAccountToken: account,
                productID: item.basePlanID.map { "\(item.productID):\($0)" } ?? item.productID, groupID: item.productID,
                productType: .autoRenewable, familyShared: false, purchaseMs: startMs, originalPurchaseMs: startMs,
                expiresMs: expiry(of: item, answeredMs: answeredMs), revocationMs: nil, revocationReason: nil,
                // Google says a newer purchase replaced it (replacementCancellation): superseded.
                isUpgraded: cancellation == .replacement,
                offer: offer(of: item), vouchedMs: answeredMs, identity: identity,
                sale: TransactionVersion.Sale(price: item.phase == .freeTrial ? 0 : item.recurringPrice?.milliunits,
                                              currency: item.recurringPrice?.currency, storefront: regionCode,
                                              trial: item.phase == .freeTrial))
            v.store = .play
            // A replacement takes over only once it is bought: a pending one (or one canceled
            // while pending) leaves the old token's access as it was (§5.10).
            v.replaces = state == .pending || state == .pendingPurchaseCanceled ? nil : linkedPurchaseToken
            v.isPending = state == .pending
            v.acknowledged = acknowledged
            v.storeState = stateName
            transactions.append(v)
        }
        let renews = lineItems.contains { $0.autoRenewEnabled == true }
        let inBillingTrouble = state == .inGracePeriod || state == .onHold
        let renewal = RenewalVersion(
            purchaseID: token, productID: lineItems.first?.productID,
            autoRenewProductID: lineItems.lazy.compactMap(\.deferredReplacementProductID).first,
            willAutoRenew: lineItems.isEmpty ? nil : renews && state != .canceled && state != .expired,
            isInBillingRetryPeriod: inBillingTrouble,
            gracePeriodExpiresMs: state == .inGracePeriod ? lineItems.compactMap(\.expiryMs).max() : nil,
            expirationCause: cause, renewalMs: renews ? lineItems.compactMap(\.expiryMs).max() : nil,
            pausedUntilMs: state == .paused ? pausedUntilMs ?? .max : nil, vouchedMs: answeredMs, identity: identity)
        return (transactions, renewal)
    }

    /// When the item's access ends, as the model reads an expiry. In grace, Google extends
    /// expiryTime to the grace period's end and does not say when the paid period ended: it
    /// had ended by the answer, so the period ends then and the grace period runs to
    /// expiryTime. An expired, held or paused subscription gives no access whatever its
    /// expiryTime: its period ends by the answer. A pending purchase, or one whose pending payment was canceled, or a state
    /// GateKit does not know, has no period at all: never entitled.
    private func expiry(of item: LineItem, answeredMs: Int64) -> Int64? {
        switch state {
        case .active, .canceled: return item.expiryMs
        // Without access by Google's word (§5.1) whatever expiryTime says: in grace the period
        // ended by the answer; expired, on hold or paused, access ended by then at the latest.
        case .inGracePeriod, .expired, .onHold, .paused: return min(item.expiryMs ?? answeredMs, answeredMs)
        case .pending, .pendingPurchaseCanceled, .unspecified, .other: return nil
        }
    }

    private func offer(of item: LineItem) -> Offer? {
        switch item.phase {
        case .freeTrial?, .introductoryPrice?: .introductory
        case .basePrice?, .prorationPeriod?, nil: item.offerID == nil ? nil : .other
        }
    }

    /// Why it stops renewing: who canceled, or a failed payment (grace, hold).
    private var cause: ExpirationCause? {
        switch cancellation {
        case .user?: return .customerCancelled
        case .system?: return .billingError
        case .developer?, .replacement?, .unknown?: return .other
        case nil: return state == .inGracePeriod || state == .onHold ? .billingError : nil
        }
    }
}
