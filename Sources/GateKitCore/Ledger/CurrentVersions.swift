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
        public let purchaseID: String
        public let groupID: String?
        /// Its most recent transaction: the newest purchase not upgraded away.
        public let latest: TransactionVersion
        public let renewal: RenewalVersion?
    }

    /// The same without the subscriptions (original transaction ids) in `originals`: those
    /// another app account holds, for a question by app account.
    func excluding(_ originals: Set<[UInt8]>) -> CurrentVersions {
        guard !originals.isEmpty else { return self }
        return CurrentVersions(transactions: transactions.filter { !originals.contains(Array($0.purchaseID.utf8)) },
                               renewals: renewals.filter { !originals.contains(Array($0.key.utf8)) })
    }

    /// The same with one subscription (original transaction id) alone.
    func only(_ original: String) -> CurrentVersions {
        let id = Array(original.utf8)
        guard transactions.contains(where: { !$0.purchaseID.utf8.elementsEqual(id) }) else { return self }
        return CurrentVersions(transactions: transactions.filter { $0.purchaseID.utf8.elementsEqual(id) },
                               renewals: renewals.filter { $0.key.utf8.elementsEqual(id) })
    }

    init(transactions: [TransactionVersion], renewals: [String: RenewalVersion]) {
        self.transactions = transactions
        self.renewals = renewals
        var subscriptions: [Subscription] = []
        var latestIndices = Set<Int>()
        var i = 0
        // `transactions` is sorted by original transaction id: each subscription is one run. A
        // Play token's line items of different products (add-ons) each entitle on their own: a
        // Play run has a latest transaction per group (Play's productId).
        while i < transactions.count {
            let original = transactions[i].purchaseID
            var end = i
            var best: [String?: Int] = [:]
            var bestUpgraded: [String?: Int] = [:]
            while end < transactions.count && transactions[end].purchaseID == original {
                let t = transactions[end]
                if t.productType == .autoRenewable {
                    let lane = t.store.rules.lineItemsAreLanes ? t.groupID : nil
                    if t.isUpgraded {
                        if bestUpgraded[lane].map({ LedgerView.purchasedBefore(transactions[$0], t) }) ?? true { bestUpgraded[lane] = end }
                    } else if best[lane].map({ LedgerView.purchasedBefore(transactions[$0], t) }) ?? true {
                        best[lane] = end
                    }
                }
                end += 1
            }
            let lanes = Set(best.keys).union(bestUpgraded.keys).sorted { ($0 ?? "") < ($1 ?? "") }
            for lane in lanes {
                guard let latest = best[lane] ?? bestUpgraded[lane] else { continue }
                latestIndices.insert(latest)
                subscriptions.append(Subscription(purchaseID: original, groupID: transactions[latest].groupID,
                                                  latest: transactions[latest], renewal: renewals[original]))
            }
            i = end
        }
        self.subscriptions = subscriptions
        others = transactions.indices.filter { !latestIndices.contains($0) }
    }
}
