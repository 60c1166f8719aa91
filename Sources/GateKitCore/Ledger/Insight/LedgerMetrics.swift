import GateKitStore
import GateKitSupport

/// Subscription metrics from the ledger's signed data (docs/ledger.md, "Metrics"): the
/// environment's transactions and renewal infos are read from one snapshot, a page of
/// subscriptions (original transaction ids) at a time, and each subscription is added to the
/// tally as a whole, so memory holds two pages and the answer, never the ledger.
extension Ledger {
    /// Original transaction ids per page.
    static let metricsPage = 2_000

    /// The document; on a ledger whose data in the environment is all test-signed, asked about
    /// App Store data, it says so (`"onlyTestSigned": true`) rather than show nothing unexplained.
    public func metrics(_ request: MetricsRequest) throws(GateKitError) -> String {
        let tally = try metricsTally(request)
        var document = tally.json()
        // A series at all means App Store data in the scope: only an empty answer asks the store.
        if tally.series.isEmpty, try holdsOnlyTestSignedData(request.scope), case let .object(members) = document {
            document = .object(members + [("onlyTestSigned", .bool(true))])
        }
        return JSONWriter.serialize(document)
    }

    /// From the store's day roll-up (`MetricsRollup`), brought up to date first when the store
    /// can be written (`refresh`: tests ask a stale one); `streaming`, or a store without one:
    /// from every row. `pageSize`: subscriptions per page when streaming (tests use small pages
    /// to cross page boundaries).
    func metricsTally(_ request: MetricsRequest, streaming: Bool = false, refresh: Bool = true,
                      pageSize: Int = Ledger.metricsPage) throws(GateKitError) -> MetricsTally {
        // A later instant is now: nothing signed after now can be known.
        let asOf = min(request.asOf.at, Clock.nowMilliseconds())
        let scope = request.scope
        if !streaming {
            if refresh, !store.isReadOnly { try refreshRollup(scope) }
            let rolledUp = try store.snapshot { (db) throws(GateKitError) -> MetricsTally? in
                try rollupTally(db, request, asOf: asOf, catalog: try CatalogRows.all(db, parsed: parsedCatalogs).catalog(at: asOf))
            }
            if let rolledUp {
                guard !rolledUp.overflowed else { throw Ledger.tooManySeries(rolledUp) }
                return rolledUp
            }
        }
        return try FreshThread.run("metrics") { () throws(GateKitError) -> MetricsTally in
            try ForkGate.section { () throws(GateKitError) in  // a helper thread at work: no fork meanwhile
                try streamedTally(request, scope: scope, asOf: asOf, pageSize: pageSize)
            }
        }
    }

    /// Every row of the environment, a page at a time, in one snapshot.
    private func streamedTally(_ request: MetricsRequest, scope: LedgerScope, asOf: Int64, pageSize: Int) throws(GateKitError) -> MetricsTally {
        try store.snapshot { (db) throws(GateKitError) -> MetricsTally in
            let catalog = try CatalogRows.all(db, parsed: parsedCatalogs).catalog(at: asOf)
            let tally = Locked(MetricsTally(request: request, asOf: asOf, catalog: catalog,
                                            sharedTokens: try sharedTokens(db, scope: scope, asOf: asOf)))
            // Past the first page, this thread reads the next page while a helper adds the last
            // one to the tally (joined before the snapshot ends); without a helper (one page, or
            // no thread to be had), each page is added here.
            let pages = Handoff<MetricsPage>(capacity: 2)
            var helper: BackgroundThread?
            var failure: GateKitError?
            do throws(GateKitError) {
                var last = ""
                while true {
                    let upper = try pageEnd(db, scope: scope, after: last, pageSize: pageSize)
                    let page = try readPage(db, scope: scope, asOf: asOf, after: last, through: upper)
                    if helper == nil, upper != nil, last.isEmpty {
                        helper = try? BackgroundThread.start("metrics") {
                            while let page = pages.take() { tally.withLock { $0.add(page, asOf: asOf) } }
                        }
                    }
                    if helper != nil { pages.put(page) } else { tally.withLock { $0.add(page, asOf: asOf) } }
                    guard let upper else { break }
                    last = upper
                }
            } catch {
                failure = error
            }
            // Joined on every path: no thread outlives the call.
            pages.close()
            helper?.finish()
            if let failure { throw failure }
            let done = tally.withLock { $0 }
            guard !done.overflowed else { throw Ledger.tooManySeries(done) }
            return done
        }
    }

    static func tooManySeries(_ tally: MetricsTally) -> GateKitError {
        GateKitError(.ETOOLARGE, "more than \(tally.maximumSeries) series of \(tally.bucketCount) buckets: ask for fewer buckets or another split")
    }

    /// The versions and renewal infos, signed by `asOf`, of the subscriptions after `after`
    /// through `upper` (nil: all the rest).
    private func readPage(_ db: any DatabaseConnection, scope: LedgerScope, asOf: Int64, after last: String,
                          through upper: String?) throws(GateKitError) -> MetricsPage {
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
        var page = MetricsPage()
        let t = try rows(SaleColumns.versionColumns, of: "ledger_transactions")
        defer { t.reset() }
        while try t.step() {
            let v = SaleColumns.version(t)
            page.versions.append(v)
        }
        let r = try rows(LedgerRows.renewalColumns, of: "ledger_renewals")
        defer { r.reset() }
        while try r.step() {
            page.renewals.append(LedgerRows.renewal(r))
        }
        let range = "original_transaction_id > ?4" + (upper == nil ? "" : " AND original_transaction_id <= ?5")
        page.payments = try PaymentRows.itemized(db, scope: scope, purchasesWhere: range, signedBy: asOf) { s in
            s.bind(4, text: last)
            if let upper { s.bind(5, text: upper) }
        }.mapValues { $0.through(item: .max) }
        return page
    }

    /// The last original transaction id of the page after `after`; nil when the rest fits in one.
    private func pageEnd(_ db: any DatabaseConnection, scope: LedgerScope, after: String, pageSize: Int) throws(GateKitError) -> String? {
        let s = try db.statement("""
            SELECT original_transaction_id FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id > ?3
            GROUP BY original_transaction_id ORDER BY original_transaction_id LIMIT 1 OFFSET \(max(1, pageSize) - 1)
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
