import GateKitStore
import GateKitSupport

/// The metrics from the store's day roll-up (`DayRollup`, migration 12) instead of every row:
/// before a question, the subscriptions whose items arrived since the roll-up's last item are
/// counted again (their contribution from the rows up to that item taken out, from all their
/// rows put in: the ledger is append-only, so the old contribution is recomputed, never
/// stored); the question then adds the day sums up to its as-of day, and counts exactly —
/// as the streaming path does — the few subscriptions the sums cannot answer for: those with
/// something signed after the instant, something on the instant's own day, a customer token
/// shared with another subscription, or items newer than the roll-up.
extension Ledger {
    /// Subscriptions read per statement.
    static let rollupChunk = 500

    /// Subscriptions counted per transaction while the roll-up is first built: other writers
    /// run between them (on SQLite, the one writer, a build is not one long lock).
    static let rollupBuildChunk = 10_000

    /// Brings the scope's roll-up up to the newest item. The newest item id is read in a
    /// moment with every other writer held off (`everyWriter`): on PostgreSQL items commit out
    /// of id order across subscriptions, and only then is every item up to it committed. The
    /// counting itself holds off only other refreshes of the scope (rows are append-only: those
    /// up to that id no longer change). The first time, it is built from every row, a chunk of
    /// subscriptions per transaction (a build cut short goes on from where it stopped):
    /// `buildChunk` subscriptions each, at most `chunks` of them now (tests cut one short).
    func refreshRollup(_ scope: LedgerScope, buildChunk: Int = Ledger.rollupBuildChunk, chunks: Int = .max) throws(GateKitError) {
        let (newest, state) = try store.write(.everyWriter) { (db) throws(GateKitError) -> (Int64, RollupState?) in
            (try db.scalar("SELECT coalesce(max(id), 0) FROM ledger_items"), try rollupState(db, scope))
        }
        if let state, state.isBuilt, state.lastItem >= newest { return }
        let refreshes = WriteScope.subjects(["ledger-metrics:\(scope.environment):\(scope.testFlag)"])
        if state?.isBuilt != true {
            try store.write(refreshes) { (db) throws(GateKitError) in
                guard try rollupState(db, scope) == nil else { return }
                for table in ["ledger_metric_days", "ledger_metric_marks", "ledger_metric_subscriptions"] {
                    try db.statement("DELETE FROM \(table) WHERE environment = ?1 AND test_signed = ?2")
                        .bind(1, text: scope.environment).bind(2, scope.testFlag).run()
                }
                try db.statement("""
                    INSERT INTO ledger_metric_state(environment, test_signed, last_item, build_through, build_after) VALUES (?1, ?2, 0, ?3, '')
                    """).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, newest).run()
            }
            var left = chunks
            while left > 0, try store.write(refreshes, { (db) throws(GateKitError) -> Bool in try self.buildChunk(db, scope, size: buildChunk) }) {
                left -= 1
            }
            guard left > 0 else { return }
        }
        try store.write(refreshes) { (db) throws(GateKitError) in
            guard let state = try rollupState(db, scope), state.isBuilt, newest > state.lastItem else { return }
            let touched = try strings(db, "SELECT DISTINCT original_transaction_id FROM ledger_item_subjects WHERE item_id > ?1") {
                $0.bind(1, state.lastItem)
            }
            try count(db, scope: scope, touched, from: state.lastItem, through: newest)
            try setState(db, scope, lastItem: newest, buildThrough: nil, buildAfter: nil)
        }
    }

    /// The next chunk of a first build; whether more remain.
    private func buildChunk(_ db: any DatabaseConnection, _ scope: LedgerScope, size: Int) throws(GateKitError) -> Bool {
        guard let state = try rollupState(db, scope), let through = state.buildThrough else { return false }
        let originals = try strings(db, """
            SELECT DISTINCT original_transaction_id FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id > ?3
            ORDER BY original_transaction_id LIMIT \(max(1, size))
            """) { $0.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: state.buildAfter ?? "") }
        try count(db, scope: scope, originals, from: 0, through: through)
        guard let last = originals.last, originals.count == max(1, size) else {
            try setState(db, scope, lastItem: through, buildThrough: nil, buildAfter: nil)
            return false
        }
        try setState(db, scope, lastItem: 0, buildThrough: through, buildAfter: last)
        return true
    }

    /// Counts these subscriptions again: their contribution from the rows up to item `since`
    /// taken out of the sums, from the rows up to `newest` put in.
    private func count(_ db: any DatabaseConnection, scope: LedgerScope, _ originals: [String], from since: Int64,
                       through newest: Int64) throws(GateKitError) {
        var total = DayRollup()
        var marked: [(Int64, String)] = [], unmarked: [(Int64, String)] = []
        var signed: [(String, Int64)] = []
        for chunk in originals.chunks(Ledger.rollupChunk) {
            for (original, rows) in try rollupRows(db, scope: scope, originals: chunk) {
                let before = rows.contribution(through: since), after = rows.contribution(through: newest)
                var delta = after
                delta.subtract(before)
                total.add(delta)
                for day in after.days.subtracting(before.days) { marked.append((day, original)) }
                for day in before.days.subtracting(after.days) { unmarked.append((day, original)) }
                signed.append((original, rows.lastSigned))
            }
        }
        try writeRollup(db, scope: scope, total, marked: marked, unmarked: unmarked, signed: signed)
    }

    /// Adds the roll-up's answer to `tally`; false (nothing added) when the scope has no finished
    /// roll-up yet (never refreshed — a read-only store — or its first build cut short).
    func rollupTally(_ db: any DatabaseConnection, _ tally: inout MetricsTally) throws(GateKitError) -> Bool {
        let scope = tally.request.scope, asOf = tally.asOf
        guard let state = try rollupState(db, scope), state.isBuilt else { return false }
        let counted = state.lastItem
        let day = DayRollup.day(asOf)
        // The subscriptions counted exactly.
        var exact = Set(try strings(db, "SELECT DISTINCT original_transaction_id FROM ledger_item_subjects WHERE item_id > ?1") { $0.bind(1, counted) })
        exact.formUnion(try strings(db, """
            SELECT original_transaction_id FROM ledger_metric_subscriptions WHERE environment = ?1 AND test_signed = ?2 AND last_signed_ms > ?3
            """) { $0.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, asOf) })
        exact.formUnion(try strings(db, """
            SELECT original_transaction_id FROM ledger_metric_marks WHERE environment = ?1 AND test_signed = ?2 AND day = ?3
            """) { $0.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day) })
        for token in tally.sharedTokens { exact.formUnion(try LedgerRows.tokenOriginals(db, token: token, scope: scope)) }
        // The day sums up to the instant's day.
        let sums = try db.statement("""
            SELECT day, metric, product, grp, storefront, currency, cohort, value FROM ledger_metric_days
            WHERE environment = ?1 AND test_signed = ?2 AND day <= ?3
            """)
        defer { sums.reset() }
        sums.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day)
        while try sums.step() {
            tally.add(DayRollup.Key(day: sums.int64(0), metric: Int(truncatingIfNeeded: sums.int64(1)), product: sums.text(2) ?? "",
                                    group: sums.text(3) ?? "", storefront: sums.text(4) ?? "", currency: sums.text(5) ?? "",
                                    cohort: sums.int64(6)), sums.int64(7))
        }
        // Those subscriptions: what the sums hold of them out, their exact answer in.
        for chunk in exact.sorted().chunks(Ledger.rollupChunk) {
            for (original, rows) in try rollupRows(db, scope: scope, originals: chunk) {
                for (key, value) in rows.contribution(through: counted).sums where key.day <= day && value != 0 { tally.add(key, 0 &- value) }
                tally.add(original: original, versions: rows.versions.filter { $0.0.signedMs <= asOf }.map(\.0),
                          renewals: rows.renewals.filter { $0.0.signedMs <= asOf }.map(\.0), asOf: asOf)
            }
        }
        return true
    }

    struct RollupState {
        let lastItem: Int64
        let buildThrough: Int64?
        let buildAfter: String?
        var isBuilt: Bool { buildThrough == nil }
    }

    private func rollupState(_ db: any DatabaseConnection, _ scope: LedgerScope) throws(GateKitError) -> RollupState? {
        let s = try db.statement("SELECT last_item, build_through, build_after FROM ledger_metric_state WHERE environment = ?1 AND test_signed = ?2")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag)
        guard try s.step() else { return nil }
        return RollupState(lastItem: s.int64(0), buildThrough: s.optionalInt64(1), buildAfter: s.text(2))
    }

    private func setState(_ db: any DatabaseConnection, _ scope: LedgerScope, lastItem: Int64, buildThrough: Int64?,
                          buildAfter: String?) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_metric_state(environment, test_signed, last_item, build_through, build_after) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (environment, test_signed) DO UPDATE SET last_item = excluded.last_item, build_through = excluded.build_through,
                build_after = excluded.build_after
            """).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, lastItem).bind(4, buildThrough)
            .bind(5, text: buildAfter).run()
    }

    private func strings(_ db: any DatabaseConnection, _ sql: String,
                         _ bind: (any DatabaseStatement) -> Void) throws(GateKitError) -> [String] {
        let s = try db.statement(sql)
        defer { s.reset() }
        bind(s)
        var out: [String] = []
        while try s.step() { if let text = s.text(0) { out.append(text) } }
        return out
    }

    /// One subscription's rows with the items that brought them.
    struct RollupRows {
        var versions: [(TransactionVersion, Int64)] = []
        var renewals: [(RenewalVersion, Int64)] = []

        /// What the rows up to `item` contribute, from everything they say (no as-of instant).
        func contribution(through item: Int64) -> DayRollup {
            var rollup = DayRollup()
            guard let original = versions.first?.0.originalTransactionID else { return rollup }
            rollup.add(original: original, versions: versions.filter { $0.1 <= item }.map(\.0),
                       renewals: renewals.filter { $0.1 <= item }.map(\.0), asOf: .max)
            return rollup
        }

        var lastSigned: Int64 {
            max(versions.map(\.0.signedMs).max() ?? 0, renewals.map(\.0.signedMs).max() ?? 0)
        }
    }

    private func rollupRows(_ db: any DatabaseConnection, scope: LedgerScope, originals: ArraySlice<String>) throws(GateKitError) -> [String: RollupRows] {
        guard !originals.isEmpty else { return [:] }
        let list = (0..<originals.count).map { "?\($0 + 3)" }.joined(separator: ", ")
        var rows: [String: RollupRows] = [:]
        // One table's rows of these subscriptions, with the item that brought each.
        func select(_ columns: String, from table: String) throws(GateKitError) -> any DatabaseStatement {
            let s = try db.statement("""
                SELECT \(columns), item_id FROM \(table)
                WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id IN (\(list))
                """)
            s.bind(1, text: scope.environment).bind(2, scope.testFlag)
            for (i, original) in originals.enumerated() { s.bind(Int32(i + 3), text: original) }
            return s
        }
        let t = try select(SaleColumns.versionColumns, from: "ledger_transactions")
        defer { t.reset() }
        while try t.step() {
            let v = SaleColumns.version(t)
            rows[v.originalTransactionID, default: RollupRows()].versions.append((v, t.int64(SaleColumns.versionColumnCount)))
        }
        let r = try select(LedgerRows.renewalColumns, from: "ledger_renewals")
        defer { r.reset() }
        while try r.step() {
            let v = LedgerRows.renewal(r)
            // Renewal infos of a subscription without a transaction count for nothing (no period).
            if rows[v.originalTransactionID] != nil { rows[v.originalTransactionID]?.renewals.append((v, r.int64(LedgerRows.renewalColumnCount))) }
        }
        return rows
    }

    private func writeRollup(_ db: any DatabaseConnection, scope: LedgerScope, _ total: DayRollup, marked: [(Int64, String)],
                             unmarked: [(Int64, String)], signed: [(String, Int64)]) throws(GateKitError) {
        let env = RowInserts.Value.text(scope.environment), test = RowInserts.Value.integer(scope.testFlag)
        var sums = RowInserts(into: "ledger_metric_days(environment, test_signed, day, metric, product, grp, storefront, currency, cohort, value)",
                              values: Array(repeating: "?", count: 10), then: """
            ON CONFLICT (environment, test_signed, day, metric, product, grp, storefront, currency, cohort)
            DO UPDATE SET value = ledger_metric_days.value + excluded.value
            """)
        for (key, value) in total.changes {
            try sums.append([env, test, .integer(key.day), .integer(Int64(key.metric)), .text(key.product), .text(key.group),
                             .text(key.storefront), .text(key.currency), .integer(key.cohort), .integer(value)])
        }
        try sums.flush(db)
        try db.statement("DELETE FROM ledger_metric_days WHERE environment = ?1 AND test_signed = ?2 AND value = 0")
            .bind(1, text: scope.environment).bind(2, scope.testFlag).run()
        var marks = RowInserts(into: "ledger_metric_marks(environment, test_signed, day, original_transaction_id)",
                               values: ["?", "?", "?", "?"], then: "ON CONFLICT DO NOTHING")
        for (day, original) in marked { try marks.append([env, test, .integer(day), .text(original)]) }
        try marks.flush(db)
        for (day, original) in unmarked {
            try db.statement("""
                DELETE FROM ledger_metric_marks WHERE environment = ?1 AND test_signed = ?2 AND day = ?3 AND original_transaction_id = ?4
                """).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day).bind(4, text: original).run()
        }
        var subscriptions = RowInserts(into: "ledger_metric_subscriptions(environment, test_signed, original_transaction_id, last_signed_ms)",
                                       values: ["?", "?", "?", "?"], then: """
            ON CONFLICT (environment, test_signed, original_transaction_id) DO UPDATE SET last_signed_ms = excluded.last_signed_ms
            """)
        for (original, last) in signed { try subscriptions.append([env, test, .text(original), .integer(last)]) }
        try subscriptions.flush(db)
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunks(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
