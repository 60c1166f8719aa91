/// Everything the ledger holds about one customer (every signed version of each of their
/// transactions and renewal infos), and the answers computed from it. Pure: no store, no clock.
public struct CustomerRecord: Sendable {
    public var transactions: [TransactionVersion]
    public var renewals: [RenewalVersion]
    /// Product id → subscription group id, for versions that do not say (receipt purchases).
    public var productGroups: [String: String]

    public init(transactions: [TransactionVersion] = [], renewals: [RenewalVersion] = [], productGroups: [String: String] = [:]) {
        self.transactions = transactions
        self.renewals = renewals
        self.productGroups = productGroups
    }

    /// What the ledger says at `at` (Unix ms) from the versions Apple had signed by `knownBy`
    /// (nil: every version): per transaction and per subscription the newest such version.
    public func view(at: Int64, knownBy: Int64?) -> LedgerView {
        var current: [String: TransactionVersion] = [:]
        var groups: [String: String] = [:]
        var tokens: [String: String] = [:]
        for t in transactions {
            // Ids and tokens never change between versions: a version that lacks them
            // (a receipt purchase) takes them from any other.
            if let g = t.groupID { groups[t.transactionID] = g }
            if let token = t.appAccountToken { tokens[t.transactionID] = token }
            if let knownBy, t.signedMs > knownBy { continue }
            if let seen = current[t.transactionID], !t.isNewer(than: seen) { continue }
            current[t.transactionID] = t
        }
        var renewal: [String: RenewalVersion] = [:]
        for r in renewals {
            if let knownBy, r.signedMs > knownBy { continue }
            if let seen = renewal[r.originalTransactionID], !r.isNewer(than: seen) { continue }
            renewal[r.originalTransactionID] = r
        }
        let resolved = current.values.map { (t: TransactionVersion) -> TransactionVersion in
            var t = t
            if t.groupID == nil { t.groupID = groups[t.transactionID] ?? productGroups[t.productID] }
            if t.appAccountToken == nil { t.appAccountToken = tokens[t.transactionID] }
            return t
        }
        // Sorted, so every answer and every list comes out in one order whatever the arrival order.
        return LedgerView(at: at, transactions: resolved.sorted { ($0.originalTransactionID, $0.transactionID) < ($1.originalTransactionID, $1.transactionID) },
                          renewals: renewal)
    }
}

/// One customer's current transactions and renewal infos at one instant, and the answers.
public struct LedgerView: Sendable {
    public let at: Int64
    /// The current version of each transaction, ordered by (original transaction id, transaction id).
    public let transactions: [TransactionVersion]
    public let renewals: [String: RenewalVersion]

    /// One auto-renewable subscription (an original transaction id) at `at`.
    public struct Subscription: Sendable {
        public let originalTransactionID: String
        public let groupID: String?
        /// Its most recent transaction: the newest purchase not upgraded away.
        public let latest: TransactionVersion
        public let renewal: RenewalVersion?
        public let status: SubscriptionStatus
    }

    /// Every auto-renewable subscription, ordered by original transaction id.
    public var subscriptions: [Subscription] {
        var byOriginal: [String: [TransactionVersion]] = [:]
        var order: [String] = []
        for t in transactions where t.productType == .autoRenewable {
            if byOriginal[t.originalTransactionID] == nil { order.append(t.originalTransactionID) }
            byOriginal[t.originalTransactionID, default: []].append(t)
        }
        return order.compactMap { original in
            guard let all = byOriginal[original] else { return nil }
            let candidates = all.contains { !$0.isUpgraded } ? all.filter { !$0.isUpgraded } : all
            guard let latest = candidates.max(by: LedgerView.purchasedBefore) else { return nil }
            let renewal = renewals[original]
            return Subscription(originalTransactionID: original, groupID: latest.groupID, latest: latest, renewal: renewal,
                                status: LedgerView.status(latest: latest, renewal: renewal, at: at))
        }
    }

    /// Purchase order: purchase date, then expiry, then transaction id (a total order).
    static func purchasedBefore(_ a: TransactionVersion, _ b: TransactionVersion) -> Bool {
        (a.purchaseMs ?? .min, a.expiresMs ?? .min, a.transactionID) < (b.purchaseMs ?? .min, b.expiresMs ?? .min, b.transactionID)
    }

    /// Apple's status from the latest transaction and the renewal info: revoked when the latest
    /// transaction was refunded or revoked; active while it has not expired; after expiry, in
    /// the billing grace period while Apple retries billing and the grace period runs, in
    /// billing retry while it retries without one, else expired.
    static func status(latest: TransactionVersion, renewal: RenewalVersion?, at: Int64) -> SubscriptionStatus {
        if let revoked = latest.revocationMs, revoked <= at { return .revoked }
        if let expires = latest.expiresMs, at < expires { return .active }
        guard let renewal, renewal.isInBillingRetryPeriod else { return .expired }
        if let grace = renewal.gracePeriodExpiresMs, at < grace { return .billingGracePeriod }
        return .billingRetry
    }

    /// Whether `filter` (a product id or a subscription group id; nil: any) names this transaction's product.
    static func matches(_ t: TransactionVersion, _ filter: String?) -> Bool {
        guard let filter else { return true }
        return t.productID == filter || t.groupID == filter
    }

    /// Every answer about products matching `filter`, entitling or not (one per subscription,
    /// one per other transaction).
    func answers(matching filter: String?) -> [Entitlement] {
        var out: [Entitlement] = []
        var latestIDs = Set<String>()
        for s in subscriptions {
            latestIDs.insert(s.latest.transactionID)
            guard LedgerView.matches(s.latest, filter) else { continue }
            switch s.status {
            case .active:
                out.append(Entitlement(reason: .subscription, transaction: s.latest, group: s.groupID, status: s.status, untilMs: s.latest.expiresMs))
            case .billingGracePeriod:
                out.append(Entitlement(reason: .gracePeriod, transaction: s.latest, group: s.groupID, status: s.status, untilMs: s.renewal?.gracePeriodExpiresMs))
            case .billingRetry: out.append(Entitlement(reason: .billingRetry, transaction: s.latest, group: s.groupID, status: s.status))
            case .revoked: out.append(Entitlement(reason: .revoked, transaction: s.latest, group: s.groupID, status: s.status))
            case .expired: out.append(Entitlement(reason: .expired, transaction: s.latest, group: s.groupID, status: s.status))
            }
        }
        for t in transactions where !latestIDs.contains(t.transactionID) && LedgerView.matches(t, filter) {
            out.append(answer(t))
        }
        return out
    }

    /// A transaction that is not the latest of a subscription: earlier renewals, upgraded-away
    /// subscriptions, and every other product type.
    private func answer(_ t: TransactionVersion) -> Entitlement {
        if t.productType == .consumable { return Entitlement(reason: .consumable, transaction: t, group: t.groupID) }
        if let revoked = t.revocationMs, revoked <= at { return Entitlement(reason: .revoked, transaction: t, group: t.groupID) }
        if let purchased = t.purchaseMs, at < purchased { return Entitlement(reason: .notYetPurchased, transaction: t, group: t.groupID) }
        switch t.productType {
        case .autoRenewable:
            // Superseded by the subscription's latest transaction (answered there).
            return Entitlement(reason: t.isUpgraded ? .upgraded : .expired, transaction: t, group: t.groupID, status: .expired)
        case .nonConsumable:
            return Entitlement(reason: .nonConsumable, transaction: t, group: t.groupID)
        case .nonRenewing, .unknown:
            guard let expires = t.expiresMs else { return Entitlement(reason: .nonConsumable, transaction: t, group: t.groupID) }
            return at < expires ? Entitlement(reason: .nonRenewing, transaction: t, group: t.groupID, untilMs: expires)
                : Entitlement(reason: .expired, transaction: t, group: t.groupID)
        case .consumable:
            return Entitlement(reason: .consumable, transaction: t, group: t.groupID)
        }
    }

    /// The customer's entitlement to `filter` (a product id or group id): the entitling answer
    /// that lasts longest, else the most recent purchase's reason, else no purchase.
    public func entitlement(to filter: String) -> Entitlement {
        LedgerView.best(answers(matching: filter)) ?? .none
    }

    /// Every entitled product, once each (its longest-lasting answer), ordered by product id.
    public var active: [Entitlement] {
        var best: [String: Entitlement] = [:]
        for e in answers(matching: nil) where e.isEntitled {
            guard let product = e.productID else { continue }
            if let seen = best[product], LedgerView.best([seen, e]) == seen { continue }
            best[product] = e
        }
        return best.keys.sorted().compactMap { best[$0] }
    }

    static func best(_ answers: [Entitlement]) -> Entitlement? {
        func lasting(_ e: Entitlement) -> (Int, Int64, Int64, String, String) {
            (e.isEntitled ? 1 : 0, e.isEntitled ? (e.untilMs ?? .max) : 0, e.sinceMs ?? .min, e.productID ?? "", e.transactionID ?? "")
        }
        return answers.max { lasting($0) < lasting($1) }
    }

    /// Eligible for an introductory offer in `group` only if the customer never had a
    /// subscription (nor an introductory offer) in it.
    public func isEligibleForIntroductoryOffer(group: String) -> Bool {
        !transactions.contains { t in
            t.groupID == group && (t.productType == .autoRenewable || t.offerType == TransactionVersion.introductoryOffer)
                && (t.purchaseMs ?? .min) <= at
        }
    }
}
