import GateKitStore
import GateKitSupport

/// Subscription metrics from the ledger's signed data (docs/ledger.md, "Metrics"): the
/// environment's transactions and renewal infos are read from one snapshot, a page of
/// subscriptions (original transaction ids) at a time, and each subscription is added to the
/// tally as a whole, so memory holds one page and the answer, never the ledger.
extension Ledger {
    /// Original transaction ids per page.
    static let metricsPage = 2_000

    public func metrics(_ request: MetricsRequest) throws(GateKitError) -> String {
        try JSONWriter.serialize(metricsTally(request).json())
    }

    func metricsTally(_ request: MetricsRequest) throws(GateKitError) -> MetricsTally {
        // A later instant is now: nothing signed after now can be known.
        let asOf = min(request.asOf.at, Clock.nowMilliseconds())
        let scope = request.scope
        return try store.snapshot { (db) throws(GateKitError) -> MetricsTally in
            let catalog = try CatalogRows.all(db).catalog(at: asOf)
            var tally = MetricsTally(request: request, asOf: asOf, catalog: catalog, sharedTokens: try sharedTokens(db, scope: scope, asOf: asOf))
            var last = ""
            while true {
                let upper = try pageEnd(db, scope: scope, after: last)
                // The page's rows of one table, signed by the instant asked.
                func rows(_ columns: String, of table: String) throws(GateKitError) -> any DatabaseStatement {
                    let s = try db.statement("""
                        SELECT \(columns) FROM \(table)
                        WHERE environment = ?1 AND test_signed = ?2 AND signed_ms <= ?3 AND original_transaction_id > ?4
                        \(upper == nil ? "" : "AND original_transaction_id <= ?5")
                        """)
                    s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, asOf).bind(4, text: last)
                    if let upper { s.bind(5, text: upper) }
                    return s
                }
                var versions: [String: [TransactionVersion]] = [:]
                let t = try rows("\(LedgerRows.transactionColumns), \(SaleColumns.names)", of: "ledger_transactions")
                while try t.step() {
                    var v = LedgerRows.transaction(t)
                    v.sale = SaleColumns.sale(t, from: 16)
                    versions[v.originalTransactionID, default: []].append(v)
                }
                t.reset()
                var renewals: [String: [RenewalVersion]] = [:]
                let r = try rows(LedgerRows.renewalColumns, of: "ledger_renewals")
                while try r.step() {
                    let v = LedgerRows.renewal(r)
                    renewals[v.originalTransactionID, default: []].append(v)
                }
                r.reset()
                for (original, all) in versions {
                    let newest = SubscriptionLife.newest(all)
                    for v in newest { tally.add(transaction: v) }
                    let signed = (renewals[original] ?? []).sorted { $0.signedMs != $1.signedMs ? $0.signedMs < $1.signedMs : $0.identity < $1.identity }
                    if let life = SubscriptionLife(original: original, newest: newest, renewals: signed, asOf: asOf) { tally.add(life) }
                }
                guard let upper else { break }
                last = upper
            }
            return tally
        }
    }

    /// The last original transaction id of the page after `after`; nil when the rest fits in one.
    private func pageEnd(_ db: any DatabaseConnection, scope: LedgerScope, after: String) throws(GateKitError) -> String? {
        let s = try db.statement("""
            SELECT original_transaction_id FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id > ?3
            GROUP BY original_transaction_id ORDER BY original_transaction_id LIMIT 1 OFFSET \(Ledger.metricsPage - 1)
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: after)
        return try s.step() ? s.text(0) : nil
    }

    /// App account tokens on more than one subscription: only their customers can be counted
    /// twice by counting subscriptions.
    private func sharedTokens(_ db: any DatabaseConnection, scope: LedgerScope, asOf: Int64) throws(GateKitError) -> Set<String> {
        let s = try db.statement("""
            SELECT lower(app_account_token) FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND app_account_token IS NOT NULL AND signed_ms <= ?3
            GROUP BY lower(app_account_token) HAVING count(DISTINCT original_transaction_id) > 1
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, asOf)
        var out = Set<String>()
        while try s.step() { if let token = s.text(0) { out.insert(token) } }
        return out
    }
}
