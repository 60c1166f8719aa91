import GateKitStore
import GateKitSupport

/// The metrics from the store's day roll-up (`DayRollup`, migrations 12 and 16) instead of every
/// row: before a question, the subscriptions whose items arrived since the roll-up's last item
/// are counted again (their contribution from the rows up to that item taken out, from all
/// their rows put in: the ledger is append-only, so the old contribution is recomputed, never
/// stored). The question then adds the day sums up to its as-of day, takes out what was signed
/// after that day and changed the days before it (`RollupChain`'s late steps), and counts
/// exactly — as the streaming path does — the few subscriptions the sums cannot answer for:
/// those with something signed or happening on the instant's own day, a customer token shared
/// with another subscription by then (`RollupTokens`), or items newer than the roll-up.
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
    /// Whether it counted anything: false when the roll-up was already current, which is seen
    /// from a snapshot without holding off any writer (an item committed later has a larger id
    /// than every item the roll-up counted, which were all committed when it counted them).
    @discardableResult
    func refreshRollup(_ scope: LedgerScope, buildChunk: Int = Ledger.rollupBuildChunk, chunks: Int = .max) throws(GateKitError) -> Bool {
        let current = try store.snapshot { (db) throws(GateKitError) -> Bool in
            guard let state = try rollupState(db, scope), state.isBuilt else { return false }
            return try db.scalar("SELECT coalesce(max(id), 0) FROM ledger_items") <= state.lastItem
        }
        if current { return false }
        let (newest, state) = try store.write(.everyWriter) { (db) throws(GateKitError) -> (Int64, RollupState?) in
            (try db.scalar("SELECT coalesce(max(id), 0) FROM ledger_items"), try rollupState(db, scope))
        }
        if let state, state.isBuilt, state.lastItem >= newest { return false }
        let refreshes = WriteScope.subjects(["ledger-metrics:\(scope.environment):\(scope.testFlag)"])
        if state?.isBuilt != true {
            try store.write(refreshes) { (db) throws(GateKitError) in
                guard try rollupState(db, scope) == nil else { return }
                for table in Ledger.rollupTables {
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
            guard left > 0 else { return true }
            try analyzeBuiltRollup(refreshes)
        }
        try store.write(refreshes) { (db) throws(GateKitError) in
            guard let state = try rollupState(db, scope), state.isBuilt, newest > state.lastItem else { return }
            try count(db, scope: scope, try subjects(db, after: state.lastItem), from: state.lastItem, through: newest)
            try setState(db, scope, lastItem: newest, buildThrough: nil, buildAfter: nil)
        }
        return true
    }

    /// Brings the scope's roll-up up to date now (`ledger_metrics_refresh`), so that no question
    /// pays for counting what was ingested: a host runs it after ingesting, or as a worker.
    /// Whether it counted new items.
    public func refreshMetrics(_ scope: LedgerScope) throws(GateKitError) -> Bool {
        guard !store.isReadOnly else { throw GateKitError(.EREADONLY, "the store is open read-only: its metrics roll-up cannot be brought up to date") }
        return try refreshRollup(scope)
    }

    /// The roll-up's tables.
    static let rollupTables = ["ledger_metric_days", "ledger_metric_marks", "ledger_metric_late", "ledger_metric_tokens", "ledger_metric_shared",
                               "ledger_metric_paid", "ledger_metric_texts"]

    /// On PostgreSQL, statistics of the tables a first build filled: until autovacuum gets to
    /// them the planner takes them for empty and plans every question badly (BENCHMARKS.md,
    /// issue 64). SQLite plans these reads without statistics (the store never runs ANALYZE
    /// there: its plans are fixed by its indexes).
    private func analyzeBuiltRollup(_ refreshes: WriteScope) throws(GateKitError) {
        try store.write(refreshes) { (db) throws(GateKitError) in
            guard db.dialect == .postgresql else { return }
            try db.execute("ANALYZE " + Ledger.rollupTables.joined(separator: ", "))
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
        var late: [RollupChain.LateKey: Int64] = [:]
        var marked: [Mark] = [], unmarked: [(Int64, String)] = []
        var tokens = RollupTokens.Firsts()
        for chunk in originals.chunks(Ledger.rollupChunk) {
            for (original, rows) in try rollupRows(db, scope: scope, originals: chunk) {
                let before = rows.chain(through: since), after = rows.chain(through: newest)
                var delta = after.full
                delta.subtract(before.full)
                total.add(delta)
                for (key, value) in after.lateChanges(since: before) { late[key, default: 0] &+= value }
                for (day, instants) in after.days where before.days[day] != instants || before.changes[day] != after.changes[day] {
                    marked.append(Mark(day: day, original: original, instants: instants, change: after.changes[day] ?? [:]))
                }
                for day in before.days.keys where after.days[day] == nil { unmarked.append((day, original)) }
                tokens.add(original: original, rows.versions.filter { $0.1 <= newest }.map(\.0))
            }
        }
        var texts = try RollupTexts.load(db, scope: scope)
        try writeRollup(db, scope: scope, total, late: late, marked: marked, unmarked: unmarked, texts: &texts)
        try RollupTokens.record(db, scope: scope, tokens)
        // The paid periods of every holder of a token these share with another subscription,
        // these or earlier ones (a token becomes shared when its second holder arrives).
        let holders = try RollupPaid.holders(db, scope: scope, ofSharedAmong: tokens.tokens)
        for chunk in holders.sorted().chunks(Ledger.rollupChunk) {
            try RollupPaid.record(db, scope: scope, texts: &texts, try rollupRows(db, scope: scope, originals: chunk).map { original, rows in
                (original, rows.versions.filter { $0.1 <= newest }.map(\.0), rows.renewals.filter { $0.1 <= newest }.map(\.0),
                 rows.payments.through(item: newest))
            })
        }
        try texts.save(db, scope: scope)
    }

    /// The roll-up's answer to `request` as of `asOf`; nil when the scope has no finished
    /// roll-up yet (never refreshed — a read-only store — or its first build cut short).
    func rollupTally(_ db: any DatabaseConnection, _ request: MetricsRequest, asOf: Int64,
                     catalog: ProductCatalog) throws(GateKitError) -> MetricsTally? {
        let scope = request.scope
        guard let state = try rollupState(db, scope), state.isBuilt else { return nil }
        let counted = state.lastItem
        let day = DayRollup.day(asOf)
        // The subscriptions counted exactly: items newer than the roll-up, something signed or
        // happening on the instant's own day both before and after the instant (what came
        // before it on that day the day's sums hold as they hold everything before; with nothing
        // before it, the day's change is taken out below), a customer token shared with another
        // by then.
        let newer = try subjects(db, after: counted)
        var exact = Set(newer)
        var changed: [(original: String, change: [UInt8]?)] = []
        let marks = try db.statement("""
            SELECT original_transaction_id, first_ms, day_change FROM ledger_metric_marks
            WHERE environment = ?1 AND test_signed = ?2 AND day = ?3 AND (last_ms IS NULL OR last_ms > ?4)
            """)
        defer { marks.reset() }
        marks.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day).bind(4, asOf)
        while try marks.step() {
            guard let original = marks.text(0) else { continue }
            // A mark of an older roll-up has no first instant.
            if let first = marks.optionalInt64(1), first > asOf { changed.append((original, marks.blob(2))) } else { exact.insert(original) }
        }
        // A customer's other subscriptions: the sums hold all but their paid periods' overlap,
        // which only the customer's periods together tell (those with a change of the day are
        // counted from their rows: their periods as of the instant are not kept).
        let shared = try RollupTokens.shared(db, scope: scope, asOf: asOf, newer: newer)
        for mark in changed where shared.originals.contains(mark.original) { exact.insert(mark.original) }
        // Kept paid periods for those the roll-up holds as shared; rows for those only newer
        // items share a token with.
        let kept = shared.rolledUp.subtracting(exact), overlapOnly = shared.originals.subtracting(exact).subtracting(kept)
        var tally = MetricsTally(request: request, asOf: asOf, catalog: catalog, sharedTokens: shared.tokens)
        // The day sums up to the instant's day, less what was signed after that day.
        let sums = try db.statement("""
            SELECT day, metric, product, grp, storefront, currency, cohort, store, value FROM ledger_metric_days
            WHERE environment = ?1 AND test_signed = ?2 AND day <= ?3
            """)
        defer { sums.reset() }
        sums.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day)
        while try sums.step() { tally.add(Ledger.rollupKey(sums, day: 0), sums.int64(8)) }
        let late = try db.statement("""
            SELECT day, metric, product, grp, storefront, currency, cohort, store, value FROM ledger_metric_late
            WHERE environment = ?1 AND test_signed = ?2 AND known_day > ?3 AND day <= ?3
            """)
        defer { late.reset() }
        late.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day)
        while try late.step() { tally.add(Ledger.rollupKey(late, day: 0), 0 &- late.int64(8)) }
        let texts = changed.isEmpty && kept.isEmpty ? RollupTexts() : try RollupTexts.load(db, scope: scope)
        try RollupPaid.count(db, scope: scope, day: day, kept, texts: texts, into: &tally)
        for (original, bytes) in changed where !exact.contains(original) {
            guard let bytes, !bytes.isEmpty else { continue }
            guard let entries = RollupDayChange.unpack(bytes, day: day, texts: texts) else {
                throw GateKitError(.ECORRUPT, "the metrics roll-up's change of subscription \(original) on day \(day) is malformed")
            }
            for (key, value) in entries { tally.add(key, 0 &- value) }
        }
        for chunk in overlapOnly.sorted().chunks(Ledger.rollupChunk) {
            for (original, rows) in try rollupRows(db, scope: scope, originals: chunk) {
                var paid = PaidCustomerPeriods()
                paid.add(original: original, versions: rows.versions.filter { $0.0.vouchedMs <= asOf }.map(\.0),
                         renewals: rows.renewals.filter { $0.0.vouchedMs <= asOf }.map(\.0), payments: rows.payments.through(item: .max), asOf: asOf)
                for p in paid.periods { tally.paidCustomer(p.customer, p.start, p.end, p.version) }
            }
        }
        // The others: what the sums hold of them as of the day out, their exact answer in.
        for chunk in exact.sorted().chunks(Ledger.rollupChunk) {
            for (original, rows) in try rollupRows(db, scope: scope, originals: chunk) {
                let held = rows.versions.filter { $0.1 <= counted }.map(\.0), heldRenewals = rows.renewals.filter { $0.1 <= counted }.map(\.0)
                let known = RollupChain.contribution(original: original, versions: held, renewals: heldRenewals,
                                                     payments: rows.payments.through(item: counted), signedThroughDay: day)
                for (key, value) in known.sums where key.day <= day && value != 0 { tally.add(key, 0 &- value) }
                tally.add(original: original, versions: rows.versions.filter { $0.0.vouchedMs <= asOf }.map(\.0),
                          renewals: rows.renewals.filter { $0.0.vouchedMs <= asOf }.map(\.0), payments: rows.payments.through(item: .max), asOf: asOf)
            }
        }
        return tally
    }

    /// A sum's key from a row of `day, metric, product, grp, storefront, currency, cohort, store`
    /// starting at column `day`.
    static func rollupKey(_ s: any DatabaseStatement, day c: Int32) -> DayRollup.Key {
        DayRollup.Key(day: s.int64(c), metric: Int(truncatingIfNeeded: s.int64(c + 1)), product: s.text(c + 2) ?? "",
                      group: s.text(c + 3) ?? "", storefront: s.text(c + 4) ?? "", currency: s.text(c + 5) ?? "", cohort: s.int64(c + 6),
                      store: s.text(c + 7) ?? "")
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

    /// Runs `sql`, given the names of its value parameters (?3 on; ?1 and ?2 are the scope),
    /// over `values` `size` at a time, handing each row's first column to `found`.
    static func inChunks(_ db: any DatabaseConnection, scope: LedgerScope, _ values: [String], of size: Int,
                         _ sql: ([String]) -> String, _ found: (String) -> Void) throws(GateKitError) {
        for chunk in values.chunks(size) {
            let s = try db.statement(sql((0..<chunk.count).map { "?\($0 + 3)" }))
            defer { s.reset() }
            s.bind(1, text: scope.environment).bind(2, scope.testFlag)
            for (i, value) in chunk.enumerated() { s.bind(Int32(i + 3), text: value) }
            while try s.step() { if let text = s.text(0) { found(text) } }
        }
    }

    /// The subscriptions of the items after `item`, each once, in order. Not `SELECT DISTINCT`:
    /// SQLite, knowing no statistics, answers that by walking the whole table in its key's order
    /// instead of the few newest entries of the item index.
    private func subjects(_ db: any DatabaseConnection, after item: Int64) throws(GateKitError) -> [String] {
        Set(try strings(db, "SELECT original_transaction_id FROM ledger_item_subjects WHERE item_id > ?1") { $0.bind(1, item) }).sorted()
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
        var payments = PaymentAnswers.Itemized()

        /// What the rows up to `item` contribute, step by signing day.
        func chain(through item: Int64) -> RollupChain {
            guard let original = versions.first?.0.purchaseID else { return RollupChain() }
            return RollupChain(original: original, versions: versions.filter { $0.1 <= item }.map(\.0),
                               renewals: renewals.filter { $0.1 <= item }.map(\.0), payments: payments.through(item: item))
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
            rows[v.purchaseID, default: RollupRows()].versions.append((v, t.int64(SaleColumns.versionColumnCount)))
        }
        let r = try select(LedgerRows.renewalColumns, from: "ledger_renewals")
        defer { r.reset() }
        while try r.step() {
            let v = LedgerRows.renewal(r)
            // Renewal infos of a subscription without a transaction count for nothing (no period).
            if rows[v.purchaseID] != nil { rows[v.purchaseID]?.renewals.append((v, r.int64(LedgerRows.renewalColumnCount))) }
        }
        let listFrom4 = (0..<originals.count).map { "?\($0 + 4)" }.joined(separator: ", ")
        let payments = try PaymentRows.itemized(db, scope: scope, purchasesWhere: "original_transaction_id IN (\(listFrom4))", signedBy: .max) { s in
            for (i, original) in originals.enumerated() { s.bind(Int32(i + 4), text: original) }
        }
        for (original, answers) in payments where rows[original] != nil { rows[original]?.payments = answers }
        return rows
    }

    /// A subscription's marked day as the roll-up keeps it.
    private struct Mark {
        let day: Int64
        let original: String
        let instants: DayRollup.Instants
        let change: [DayRollup.Key: Int64]
    }

    private func writeRollup(_ db: any DatabaseConnection, scope: LedgerScope, _ total: DayRollup, late: [RollupChain.LateKey: Int64],
                             marked: [Mark], unmarked: [(Int64, String)], texts: inout RollupTexts) throws(GateKitError) {
        let env = RowInserts.Value.text(scope.environment), test = RowInserts.Value.integer(scope.testFlag)
        func keyValues(_ key: DayRollup.Key) -> [RowInserts.Value] {
            [.integer(key.day), .integer(Int64(key.metric)), .text(key.product), .text(key.group), .text(key.storefront),
             .text(key.currency), .integer(key.cohort), .text(key.store)]
        }
        var sums = RowInserts(into: "ledger_metric_days(environment, test_signed, day, metric, product, grp, storefront, currency, cohort, store, value)",
                              values: Array(repeating: "?", count: 11), then: """
            ON CONFLICT (environment, test_signed, day, metric, product, grp, storefront, currency, cohort, store)
            DO UPDATE SET value = ledger_metric_days.value + excluded.value
            """)
        for (key, value) in total.changes { try sums.append([env, test] + keyValues(key) + [.integer(value)]) }
        try sums.flush(db)
        var lateSums = RowInserts(into: "ledger_metric_late(environment, test_signed, known_day, day, metric, product, grp, storefront, currency, cohort, store, value)",
                                  values: Array(repeating: "?", count: 12), then: """
            ON CONFLICT (environment, test_signed, known_day, day, metric, product, grp, storefront, currency, cohort, store)
            DO UPDATE SET value = ledger_metric_late.value + excluded.value
            """)
        for (key, value) in late { try lateSums.append([env, test, .integer(key.known)] + keyValues(key.key) + [.integer(value)]) }
        try lateSums.flush(db)
        for table in ["ledger_metric_days", "ledger_metric_late"] {
            try db.statement("DELETE FROM \(table) WHERE environment = ?1 AND test_signed = ?2 AND value = 0")
                .bind(1, text: scope.environment).bind(2, scope.testFlag).run()
        }
        var marks = RowInserts(into: "ledger_metric_marks(environment, test_signed, day, original_transaction_id, last_ms, first_ms, day_change)",
                               values: Array(repeating: "?", count: 7), then: """
            ON CONFLICT (environment, test_signed, day, original_transaction_id) DO UPDATE SET last_ms = excluded.last_ms,
                first_ms = excluded.first_ms, day_change = excluded.day_change
            """)
        for mark in marked {
            try marks.append([env, test, .integer(mark.day), .text(mark.original), .integer(mark.instants.last), .integer(mark.instants.first),
                              .blob(mark.change.isEmpty ? nil : RollupDayChange.pack(mark.change, day: mark.day, texts: &texts))])
        }
        try marks.flush(db)
        for (day, original) in unmarked {
            try db.statement("""
                DELETE FROM ledger_metric_marks WHERE environment = ?1 AND test_signed = ?2 AND day = ?3 AND original_transaction_id = ?4
                """).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day).bind(4, text: original).run()
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunks(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
