/// One customer's answers at one instant, with the host's product catalog in effect then.
public struct LedgerView: Sendable {
    public let at: Int64
    public let current: CurrentVersions
    public let catalog: ProductCatalog

    public init(at: Int64, current: CurrentVersions, catalog: ProductCatalog = .empty) {
        self.at = at
        self.current = current
        self.catalog = catalog
    }

    /// One auto-renewable subscription at `at`.
    public struct Subscription: Sendable {
        public let purchaseID: String
        public let groupID: String?
        public let latest: TransactionVersion
        public let renewal: RenewalVersion?
        public let status: SubscriptionStatus
    }

    /// Every auto-renewable subscription purchased by `at`, ordered by original transaction id.
    public var subscriptions: [Subscription] {
        current.subscriptions.compactMap(purchased).map { s in
            Subscription(purchaseID: s.purchaseID, groupID: s.groupID, latest: s.latest, renewal: s.renewal,
                         status: LedgerView.status(latest: s.latest, renewal: s.renewal, at: at))
        }
    }

    /// Purchase order: purchase date, then expiry, then transaction id (a total order).
    static func purchasedBefore(_ a: TransactionVersion, _ b: TransactionVersion) -> Bool {
        (a.purchaseMs ?? .min, a.expiresMs ?? .min, a.transactionID) < (b.purchaseMs ?? .min, b.expiresMs ?? .min, b.transactionID)
    }

    /// The status from the latest transaction and the renewal intent: revoked when the latest
    /// transaction was refunded or revoked; expired when it was upgraded away (its upgrade has
    /// not arrived yet: it entitles to nothing); active while it has not expired; after expiry,
    /// paused until the pause ends, in the billing grace period while the store retries
    /// billing and the grace period runs, in billing retry while it retries without one, else
    /// expired.
    static func status(latest: TransactionVersion, renewal: RenewalVersion?, at: Int64) -> SubscriptionStatus {
        if let revoked = latest.revocationMs, revoked <= at { return .revoked }
        if latest.isUpgraded { return .expired }
        if latest.isPending { return .pending }
        if let expires = latest.expiresMs, at < expires { return .active }
        if let resumes = renewal?.pausedUntilMs, at < resumes { return .paused }
        guard let renewal, renewal.isInBillingRetryPeriod else { return .expired }
        if let grace = renewal.gracePeriodExpiresMs, at < grace { return .billingGracePeriod }
        return .billingRetry
    }

    /// An expired period whose renewal intent, the newest held, still says it renews: no
    /// expiry, billing failure, pause or change of mind recorded after it (a renewal lost on
    /// its way here).
    package static func awaitsRenewal(_ renewal: RenewalVersion?) -> Bool {
        guard let renewal else { return false }
        return renewal.willAutoRenew == true && renewal.expirationCause == nil && !renewal.isInBillingRetryPeriod
    }

    /// Whether `filter` (nil: any) names this transaction's product: its product id, its plan
    /// (":plan" of "product:plan"), its subscription group (the signed one, else the catalog's),
    /// or an entitlement the catalog says it grants.
    func matches(_ t: TransactionVersion, _ filter: String?) -> Bool {
        guard let filter else { return true }
        // Names are compared as bytes, as the store compares ("pro" is not a prefix match of
        // "pro_max", nor a K the Kelvin sign).
        func same<Name: StringProtocol>(_ name: Name?) -> Bool { name?.utf8.elementsEqual(filter.utf8) ?? false }
        if same(t.productID) || same(t.groupID) || same(ProductCatalog.planKey(of: t.productID)) { return true }
        guard !catalog.isEmpty, let product = catalogEntry(t) else { return false }
        return (t.groupID == nil && same(product.group)) || product.entitlements.contains(where: same)
    }

    /// Every answer about products matching `filter`, entitling or not (one per subscription,
    /// one per other transaction), to `visit`.
    func answers(matching filter: String?, _ visit: (Entitlement) -> Void) {
        eachAnswer(where: { matches($0, filter) }) { _, e in visit(e) }
    }

    /// The names among `wanted` (keyed by their bytes) that `t` answers to: `matches` for each
    /// of them at once.
    private func matchedNames(_ t: TransactionVersion, among wanted: [[UInt8]: String]) -> [String] {
        var found: [String] = []
        func add<Name: StringProtocol>(_ name: Name?) {
            if let name, let known = wanted[Array(name.utf8)], !found.contains(known) { found.append(known) }
        }
        add(t.productID)
        add(t.groupID)
        add(ProductCatalog.planKey(of: t.productID))
        if !catalog.isEmpty, let product = catalogEntry(t) {
            if t.groupID == nil { add(product.group) }
            product.entitlements.forEach(add)
        }
        return found
    }

    /// `entitlement(to: name, naming: false)` for each of `names`, in one pass over the
    /// subscriptions (a subscription of N products asks N names: one pass each was N²).
    func entitlements(to names: [String]) -> [String: Entitlement] {
        let wanted = Dictionary(names.map { (Array($0.utf8), $0) }, uniquingKeysWith: { first, _ in first })
        var best: [String: Entitlement] = [:]
        eachAnswer(where: { !matchedNames($0, among: wanted).isEmpty }) { t, e in
            for name in matchedNames(t, among: wanted) where best[name].map({ LedgerView.lastsLonger(e, than: $0) }) ?? true {
                best[name] = e
            }
        }
        for name in names where best[name] == nil { best[name] = Entitlement.none }
        return best
    }

    /// Every answer about a subscription or other transaction whose deciding transaction
    /// `wanted` takes, with that transaction.
    private func eachAnswer(where wanted: (TransactionVersion) -> Bool, _ visit: (TransactionVersion, Entitlement) -> Void) {
        for subscription in current.subscriptions where wanted(subscription.latest) {
            // Nothing entitles before its purchase instant (one rule for every product type):
            // a period bought after the instant gives way to the one bought by then, if any.
            guard let s = purchased(subscription) else {
                visit(subscription.latest, Entitlement(reason: .notYetPurchased, transaction: subscription.latest, group: subscription.groupID))
                continue
            }
            let status = LedgerView.status(latest: s.latest, renewal: s.renewal, at: at)
            switch status {
            case .active:
                var e = Entitlement(reason: .subscription, transaction: s.latest, group: s.groupID, status: status, untilMs: s.latest.expiresMs)
                e.willRenew = s.renewal?.willAutoRenew
                visit(subscription.latest, e)
            case .billingGracePeriod:
                var e = Entitlement(reason: .gracePeriod, transaction: s.latest, group: s.groupID, status: status, untilMs: s.renewal?.gracePeriodExpiresMs)
                e.willRenew = s.renewal?.willAutoRenew
                visit(subscription.latest, e)
            case .billingRetry: visit(subscription.latest, Entitlement(reason: .billingRetry, transaction: s.latest, group: s.groupID, status: status))
            case .revoked: visit(subscription.latest, Entitlement(reason: .revoked, transaction: s.latest, group: s.groupID, status: status))
            case .paused: visit(subscription.latest, Entitlement(reason: .paused, transaction: s.latest, group: s.groupID, status: status))
            case .pending: visit(subscription.latest, Entitlement(reason: .pending, transaction: s.latest, group: s.groupID, status: status))
            case .expired:
                var e = Entitlement(reason: s.latest.isUpgraded ? .upgraded : .expired, transaction: s.latest, group: s.groupID, status: status)
                e.awaitsRenewal = !s.latest.isUpgraded && LedgerView.awaitsRenewal(s.renewal)
                visit(subscription.latest, e)
            }
        }
        for i in current.others where wanted(current.transactions[i]) {
            visit(current.transactions[i], answer(current.transactions[i]))
        }
    }

    /// The subscription as of `at`: its latest transaction if purchased by then, else the
    /// latest of its transactions purchased by then; nil when none was.
    private func purchased(_ s: CurrentVersions.Subscription) -> CurrentVersions.Subscription? {
        guard let purchase = s.latest.purchaseMs, purchase > at else { return s }
        var best: TransactionVersion?
        for t in current.transactions where t.purchaseID == s.purchaseID && t.productType == .autoRenewable
            && (t.purchaseMs ?? .min) <= at && (!t.store.rules.lineItemsAreLanes || t.groupID == s.groupID) {
            if let b = best {  // as `CurrentVersions` picks: not upgraded first, then the latest purchase
                let (kept, offered) = (b.isUpgraded ? 0 : 1, t.isUpgraded ? 0 : 1)
                if kept > offered || (kept == offered && !LedgerView.purchasedBefore(b, t)) { continue }
            }
            best = t
        }
        return best.map { CurrentVersions.Subscription(purchaseID: s.purchaseID, groupID: $0.groupID ?? s.groupID,
                                                       latest: $0, renewal: s.renewal) }
    }

    /// The answer with the entitlement names the catalog says its product grants.
    private func naming(_ e: Entitlement) -> Entitlement {
        guard let product = e.productID else { return e }
        let names: [String]
        if e.store?.rules.namesItsEntitlement == true {
            names = [product]
        } else {
            guard !catalog.isEmpty, let given = catalog.product(product)?.entitlements, !given.isEmpty else { return e }
            names = given
        }
        var named = e
        named.grants = names
        return named
    }

    /// A transaction that is not the latest of a subscription: earlier renewals, upgraded-away
    /// subscriptions, and every other product type. A revocation dated after the instant (a
    /// grant revoked from a later day) ends what entitles then.
    private func answer(_ t: TransactionVersion) -> Entitlement {
        // A purchase whose data names no type (a receipt without its product type) has the type
        // the catalog gives its product; it is never guessed (an unfinished consumable would
        // otherwise entitle for good, as a non-consumable).
        let type = t.productType == .unknown ? catalogEntry(t)?.type ?? .unknown : t.productType
        if type == .consumable { return Entitlement(reason: .consumable, transaction: t, group: t.groupID) }
        if let revoked = t.revocationMs, revoked <= at { return Entitlement(reason: .revoked, transaction: t, group: t.groupID) }
        if t.isPending && type != .autoRenewable { return Entitlement(reason: .pending, transaction: t, group: t.groupID) }
        if let purchased = t.purchaseMs, at < purchased { return Entitlement(reason: .notYetPurchased, transaction: t, group: t.groupID) }
        switch type {
        case .autoRenewable:
            // Superseded by the subscription's latest transaction (answered there).
            return Entitlement(reason: t.isUpgraded ? .upgraded : .expired, transaction: t, group: t.groupID, status: .expired)
        case .nonConsumable:
            return Entitlement(reason: .nonConsumable, transaction: t, group: t.groupID, untilMs: t.revocationMs)
        case .nonRenewing, .unknown:
            // A non-renewing subscription's term is the app's (Apple signs none): the
            // catalog's, else the expiry the data carries, else it has no known end. A purchase
            // of no known type with an end is a period; with none it entitles to nothing.
            let term = catalogEntry(t)?.term
            guard let expires = term.flatMap({ term in t.purchaseMs.map { term.end(from: $0) } }) ?? t.expiresMs else {
                return Entitlement(reason: type == .nonRenewing ? .nonRenewing : .unknownType, transaction: t, group: t.groupID,
                                   untilMs: t.revocationMs)
            }
            return at < expires ? Entitlement(reason: .nonRenewing, transaction: t, group: t.groupID, untilMs: min(expires, t.revocationMs ?? expires))
                : Entitlement(reason: .expired, transaction: t, group: t.groupID)
        case .consumable:
            return Entitlement(reason: .consumable, transaction: t, group: t.groupID)
        }
    }

    /// The catalog's entry for the transaction's product; none for a store whose product id is
    /// the entitlement's name (the catalog neither types nor dates it).
    private func catalogEntry(_ t: TransactionVersion) -> ProductCatalog.Product? {
        t.store.rules.namesItsEntitlement ? nil : catalog.product(t.productID)
    }

    /// The customer's entitlement to `filter` (a product id or group id): the entitling answer
    /// that lasts longest, else the most recent purchase's reason, else no purchase.
    /// `naming`: with the names the catalog says the deciding product grants.
    public func entitlement(to filter: String, naming: Bool = true) -> Entitlement {
        var best: Entitlement?
        answers(matching: filter) { e in
            if best.map({ LedgerView.lastsLonger(e, than: $0) }) ?? true { best = e }
        }
        guard let best else { return .none }
        return naming ? self.naming(best) : best
    }

    /// Every entitled product, once each (its longest-lasting answer), ordered by product id.
    public var active: [Entitlement] {
        var best: [String: Entitlement] = [:]
        answers(matching: nil) { e in
            guard e.isEntitled, let product = e.productID else { return }
            if let seen = best[product], !LedgerView.lastsLonger(e, than: seen) { return }
            best[product] = e
        }
        return best.keys.sorted().compactMap { best[$0].map(naming) }
    }

    /// The order answers are chosen in: entitling first, then the one that lasts longest, then
    /// the most recent purchase, then ids (a total order, so the choice never depends on arrival).
    package static func lastsLonger(_ a: Entitlement, than b: Entitlement) -> Bool {
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
