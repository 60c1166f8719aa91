/// Everything the ledger holds about one customer (every signed version of each of their
/// transactions and renewal infos), and the answers computed from it. Pure: no store, no clock.
public struct CustomerRecord: Sendable {
    public var transactions: [TransactionVersion]
    public var renewals: [RenewalVersion]
    /// Product id → subscription group id, for versions that do not say (receipt purchases).
    public var productGroups: [String: String]
    /// Set when the record is an app account token's (lowercased): an original transaction
    /// counts only while the newest of its versions that carries a token carries this one, so
    /// an account transfer (Apple re-signing with another token) leaves the old account.
    public var token: String?

    public init(transactions: [TransactionVersion] = [], renewals: [RenewalVersion] = [], productGroups: [String: String] = [:],
                token: String? = nil) {
        self.transactions = transactions
        self.renewals = renewals
        self.productGroups = productGroups
        self.token = token
    }

    /// The same record reduced to what `current(knownBy: nil)` reads: the newest version of each
    /// transaction (with the group an older version gave it), the newest token-carrying version
    /// of each original transaction, and the newest version of each renewal info. What
    /// ingestion keeps between the items of a batch.
    public func compacted() -> CustomerRecord {
        var newest: [String: TransactionVersion] = [:]
        var groups: [String: String] = [:]
        var tokened: [String: TransactionVersion] = [:]
        for t in transactions {
            if let g = t.groupID { groups[t.transactionID] = g }
            if t.appAccountToken != nil, tokened[t.originalTransactionID].map({ t.isNewer(than: $0) }) ?? true { tokened[t.originalTransactionID] = t }
            if newest[t.transactionID].map({ t.isNewer(than: $0) }) ?? true { newest[t.transactionID] = t }
        }
        var kept = newest.values.map { (t: TransactionVersion) -> TransactionVersion in
            var t = t
            if t.groupID == nil { t.groupID = groups[t.transactionID] }
            return t
        }
        for t in tokened.values where newest[t.transactionID]?.identity != t.identity || newest[t.transactionID]?.signedMs != t.signedMs {
            kept.append(t)
        }
        var renewal: [String: RenewalVersion] = [:]
        for r in renewals where renewal[r.originalTransactionID].map({ r.isNewer(than: $0) }) ?? true { renewal[r.originalTransactionID] = r }
        return CustomerRecord(transactions: kept, renewals: Array(renewal.values), productGroups: productGroups, token: token)
    }

    /// What the ledger says at `at` (Unix ms) from the versions Apple had signed by `knownBy`
    /// (nil: every version): per transaction and per subscription the newest such version.
    public func view(at: Int64, knownBy: Int64?) -> LedgerView {
        LedgerView(at: at, current: current(knownBy: knownBy))
    }

    /// The newest version of each transaction and renewal info signed by `knownBy`, and the
    /// subscriptions they make: everything but the instant, so it can be kept and reused.
    public func current(knownBy: Int64?) -> CurrentVersions {
        var current: [String: TransactionVersion] = [:]
        var groups: [String: String] = [:]
        // Per original transaction id, the newest version (signed by `knownBy`) that carries a
        // token: the token the subscription belongs to (a receipt purchase carries none).
        var tokens: [String: TransactionVersion] = [:]
        for t in transactions {
            // Groups never change between versions: a version that lacks one (a receipt
            // purchase) takes it from any other.
            if let g = t.groupID { groups[t.transactionID] = g }
            if let knownBy, t.signedMs > knownBy { continue }
            if t.appAccountToken != nil, tokens[t.originalTransactionID].map({ t.isNewer(than: $0) }) ?? true {
                tokens[t.originalTransactionID] = t
            }
            if let seen = current[t.transactionID], !t.isNewer(than: seen) { continue }
            current[t.transactionID] = t
        }
        if let token {
            current = current.filter { tokens[$0.value.originalTransactionID]?.appAccountToken == token }
        }
        var renewal: [String: RenewalVersion] = [:]
        for r in renewals {
            if let knownBy, r.signedMs > knownBy { continue }
            if let token, tokens[r.originalTransactionID]?.appAccountToken != token { continue }
            if let seen = renewal[r.originalTransactionID], !r.isNewer(than: seen) { continue }
            renewal[r.originalTransactionID] = r
        }
        // Sorted, so every answer and every list comes out in one order whatever the arrival order.
        let resolved = current.values.map { (t: TransactionVersion) -> TransactionVersion in
            var t = t
            if t.groupID == nil { t.groupID = groups[t.transactionID] ?? productGroups[t.productID] }
            t.appAccountToken = tokens[t.originalTransactionID]?.appAccountToken
            return t
        }.sorted { ($0.originalTransactionID, $0.transactionID) < ($1.originalTransactionID, $1.transactionID) }
        return CurrentVersions(transactions: resolved, renewals: renewal)
    }
}

/// One customer's current transactions and renewal infos, and the subscriptions they make
/// (each with its latest transaction): the part of an answer that does not depend on the instant.
public struct CurrentVersions: Sendable {
    /// Ordered by (original transaction id, transaction id).
    public let transactions: [TransactionVersion]
    public let renewals: [String: RenewalVersion]
    public let subscriptions: [Subscription]
    /// Indices into `transactions` of those that are no subscription's latest transaction.
    let others: [Int]

    /// One auto-renewable subscription (an original transaction id).
    public struct Subscription: Sendable {
        public let originalTransactionID: String
        public let groupID: String?
        /// Its most recent transaction: the newest purchase not upgraded away.
        public let latest: TransactionVersion
        public let renewal: RenewalVersion?
    }

    init(transactions: [TransactionVersion], renewals: [String: RenewalVersion]) {
        self.transactions = transactions
        self.renewals = renewals
        var subscriptions: [Subscription] = []
        var latestIndices = Set<Int>()
        var i = 0
        // `transactions` is sorted by original transaction id: each subscription is one run.
        while i < transactions.count {
            let original = transactions[i].originalTransactionID
            var end = i
            var best: Int?
            var bestUpgraded: Int?
            while end < transactions.count && transactions[end].originalTransactionID == original {
                let t = transactions[end]
                if t.productType == .autoRenewable {
                    if t.isUpgraded {
                        if bestUpgraded.map({ LedgerView.purchasedBefore(transactions[$0], t) }) ?? true { bestUpgraded = end }
                    } else if best.map({ LedgerView.purchasedBefore(transactions[$0], t) }) ?? true {
                        best = end
                    }
                }
                end += 1
            }
            if let latest = best ?? bestUpgraded {
                latestIndices.insert(latest)
                subscriptions.append(Subscription(originalTransactionID: original, groupID: transactions[latest].groupID,
                                                  latest: transactions[latest], renewal: renewals[original]))
            }
            i = end
        }
        self.subscriptions = subscriptions
        others = transactions.indices.filter { !latestIndices.contains($0) }
    }
}

/// One customer's answers at one instant.
public struct LedgerView: Sendable {
    public let at: Int64
    public let current: CurrentVersions

    /// One auto-renewable subscription at `at`.
    public struct Subscription: Sendable {
        public let originalTransactionID: String
        public let groupID: String?
        public let latest: TransactionVersion
        public let renewal: RenewalVersion?
        public let status: SubscriptionStatus
    }

    /// Every auto-renewable subscription, ordered by original transaction id.
    public var subscriptions: [Subscription] {
        current.subscriptions.map { s in
            Subscription(originalTransactionID: s.originalTransactionID, groupID: s.groupID, latest: s.latest, renewal: s.renewal,
                         status: LedgerView.status(latest: s.latest, renewal: s.renewal, at: at))
        }
    }

    /// Purchase order: purchase date, then expiry, then transaction id (a total order).
    static func purchasedBefore(_ a: TransactionVersion, _ b: TransactionVersion) -> Bool {
        (a.purchaseMs ?? .min, a.expiresMs ?? .min, a.transactionID) < (b.purchaseMs ?? .min, b.expiresMs ?? .min, b.transactionID)
    }

    /// Apple's status from the latest transaction and the renewal info: revoked when the latest
    /// transaction was refunded or revoked; expired when it was upgraded away (its upgrade has
    /// not arrived yet: it entitles to nothing, as `JWSTransaction.isEntitled` says); active
    /// while it has not expired; after expiry, in
    /// the billing grace period while Apple retries billing and the grace period runs, in
    /// billing retry while it retries without one, else expired.
    static func status(latest: TransactionVersion, renewal: RenewalVersion?, at: Int64) -> SubscriptionStatus {
        if let revoked = latest.revocationMs, revoked <= at { return .revoked }
        if latest.isUpgraded { return .expired }
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
    /// one per other transaction), to `visit`.
    func answers(matching filter: String?, _ visit: (Entitlement) -> Void) {
        for s in current.subscriptions where LedgerView.matches(s.latest, filter) {
            let status = LedgerView.status(latest: s.latest, renewal: s.renewal, at: at)
            switch status {
            case .active:
                visit(Entitlement(reason: .subscription, transaction: s.latest, group: s.groupID, status: status, untilMs: s.latest.expiresMs))
            case .billingGracePeriod:
                visit(Entitlement(reason: .gracePeriod, transaction: s.latest, group: s.groupID, status: status, untilMs: s.renewal?.gracePeriodExpiresMs))
            case .billingRetry: visit(Entitlement(reason: .billingRetry, transaction: s.latest, group: s.groupID, status: status))
            case .revoked: visit(Entitlement(reason: .revoked, transaction: s.latest, group: s.groupID, status: status))
            case .expired: visit(Entitlement(reason: s.latest.isUpgraded ? .upgraded : .expired, transaction: s.latest, group: s.groupID, status: status))
            }
        }
        for i in current.others where LedgerView.matches(current.transactions[i], filter) {
            visit(answer(current.transactions[i]))
        }
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
        var best: Entitlement?
        answers(matching: filter) { e in
            if best.map({ LedgerView.lastsLonger(e, than: $0) }) ?? true { best = e }
        }
        return best ?? .none
    }

    /// Every entitled product, once each (its longest-lasting answer), ordered by product id.
    public var active: [Entitlement] {
        var best: [String: Entitlement] = [:]
        answers(matching: nil) { e in
            guard e.isEntitled, let product = e.productID else { return }
            if let seen = best[product], !LedgerView.lastsLonger(e, than: seen) { return }
            best[product] = e
        }
        return best.keys.sorted().compactMap { best[$0] }
    }

    /// The order answers are chosen in: entitling first, then the one that lasts longest, then
    /// the most recent purchase, then ids (a total order, so the choice never depends on arrival).
    static func lastsLonger(_ a: Entitlement, than b: Entitlement) -> Bool {
        func key(_ e: Entitlement) -> (Int, Int64, Int64, String, String) {
            (e.isEntitled ? 1 : 0, e.isEntitled ? (e.untilMs ?? .max) : 0, e.sinceMs ?? .min, e.productID ?? "", e.transactionID ?? "")
        }
        return key(a) > key(b)
    }

    /// Eligible for an introductory offer in `group` only if the customer never had a
    /// subscription (nor, so, an introductory offer) in it: any transaction of the group
    /// purchased by `at`, revoked or not, makes them ineligible.
    public func isEligibleForIntroductoryOffer(group: String) -> Bool {
        !current.transactions.contains { t in t.groupID == group && (t.purchaseMs ?? .min) <= at }
    }
}
