import GateKitStore
import GateKitSupport

/// The write path's last stages, in one direction: record the item and its versions (the
/// duplicate check, the rows), derive what it changes (the answers before and after, the
/// change feed, the status changes) and commit. Nothing here calls back into verification.
extension Ledger {
    /// Records the item and its versions in one write transaction. `first`: what the same
    /// transaction writes before the item (an app account's link to its purchase, for the feed
    /// to name it), holding `alsoLocking` too.
    package func commit(_ item: PendingItem, alsoLocking: [String] = [],
                        first: ((any DatabaseConnection) throws(GateKitError) -> Void)? = nil) throws(GateKitError) -> IngestReport {
        try bindApp(item.appID, store: item.kind.store)
        try storeSharedRowsAhead([item])
        return try store.write(.subjects(item.subjects + alsoLocking)) { (db) throws(GateKitError) -> IngestReport in
            forgetRecords()
            try first?(db)
            var state = RecordingState(db.dialect)
            let report = try record(item, db, &state, copy: 0)
            try state.finish(db)
            return report
        }
    }

    /// Records one item inside the caller's write transaction (whose scope holds its subjects),
    /// in stages that run in one direction: the duplicate check, what the item's subscriptions
    /// held before it, whether it brings anything new, its rows, then what it changes.
    /// `copy`: the statement copies its reads use (`prefetch`).
    func record(_ item: PendingItem, _ db: any DatabaseConnection, _ state: inout RecordingState, copy: Int) throws(GateKitError) -> IngestReport {
        try prefetch(item, db, state, copy: copy)
        guard let drawnID = try notYetRecorded(item, db, &state, copy: copy) else { return item.report(.duplicate, []) }
        try linkAccount(item, db)
        let now = Clock.nowMilliseconds()
        let catalogs = try loadedCatalogs(db)
        let before = try held(before: item, db, &state, catalogs: catalogs, now: now, copy: copy)
        let outcome = item.outcome(against: before.records)
        let itemID = try writeRows(item, outcome: outcome, drawnID: drawnID, db, &state, now: now)
        let changes = try derive(item, item: itemID, before: before, db, &state, catalogs: catalogs, now: now, copy: copy)
        return item.report(outcome, changes)
    }

    /// What the item's subscriptions held before it: their versions (compacted), their
    /// statuses, and the answers the feed last published for them, brought up to `now` (what
    /// time alone changed before this item is fed first, dated when it happened).
    struct HeldBefore {
        let records: [String: CustomerRecord]
        let statuses: [String: (group: String?, status: SubscriptionStatus)]
        let answered: [String: ChangeFeedRows.Kept]
    }

    /// Links the item's purchase to the app account it names, unless an account holds it.
    private func linkAccount(_ item: PendingItem, _ db: any DatabaseConnection) throws(GateKitError) {
        guard let link = item.accountLink,
              try AppAccountRows.holder(db, environment: item.scope.environment, customer: link.purchaseID, atMs: nil) == nil else { return }
        try AppAccountRows.append(db, environment: item.scope.environment, appUserID: link.appUserID, customer: link.purchaseID,
                                  linked: true, atMs: link.atMs, cause: link.cause)
    }

    /// Stage 1, the duplicate check: nil when the item (its identity or notification UUID) is
    /// recorded, by this transaction's earlier items or before; otherwise the id its row takes
    /// when PostgreSQL drew one with the check (`.some(nil)` on SQLite).
    private func notYetRecorded(_ item: PendingItem, _ db: any DatabaseConnection, _ state: inout RecordingState,
                                copy: Int) throws(GateKitError) -> Int64?? {
        let keys = RecordingState.recordedKeys(item)
        if !state.recorded.isDisjoint(with: keys) { return nil }
        let (recorded, drawnID) = try isRecorded(db, item, copy: copy)
        if recorded { return nil }
        state.recorded.formUnion(keys)
        return .some(drawnID)
    }

    /// Stage 2: reads what the item's subscriptions held (`HeldBefore`).
    private func held(before item: PendingItem, _ db: any DatabaseConnection, _ state: inout RecordingState,
                      catalogs: ProductCatalogs, now: Int64, copy: Int) throws(GateKitError) -> HeldBefore {
        for original in item.originals where state.records[original] == nil {
            state.records[original] = try LedgerRows.compactedRecord(db, original: original, scope: item.scope, copy: copy)
        }
        var records: [String: CustomerRecord] = [:]
        for original in item.originals { records[original] = state.records[original] }
        var answered: [String: ChangeFeedRows.Kept] = [:]
        for original in item.originals {
            let stored: [String: ChangeFeedRows.Stored]
            if let known = state.answers[RecordingState.answersKey(item.scope, original)] {
                stored = known.stored
            } else {
                stored = try ChangeFeedRows.stored(db, scope: item.scope, original: original, copy: copy)
            }
            answered[original] = try ChangeFeedRows.sweep(db, scope: item.scope, original: original, record: records[original] ?? CustomerRecord(),
                                                          stored: stored, catalogs: catalogs, now: now, into: &state.changes, copy: copy)
        }
        return HeldBefore(records: records, statuses: Ledger.statuses(records, at: now), answered: answered)
    }

    /// Stage 3: the item's rows and its versions' rows, queued in `state.writes`; its id.
    private func writeRows(_ item: PendingItem, outcome: IngestReport.Outcome, drawnID: Int64?, _ db: any DatabaseConnection,
                           _ state: inout RecordingState, now: Int64) throws(GateKitError) -> Int64 {
        let header = try item.header.map { (h) throws(GateKitError) in try headerID(db, h) }
        let itemID: Int64
        if let drawnID { itemID = drawnID } else { itemID = try nextSQLiteItemID(db, &state) }
        try state.writes.addItem(item, id: itemID, outcome: outcome, header: header, now: now)
        for (v, signed) in item.transactions {
            let h = try signed.map { (s) throws(GateKitError) in try headerID(db, s.header) }
            try state.writes.add(v, scope: item.scope, item: itemID, header: h, body: signed?.body, attribution: item.attribution)
        }
        for (v, signed) in item.renewals {
            let h = try signed.map { (s) throws(GateKitError) in try headerID(db, s.header) }
            try state.writes.add(v, scope: item.scope, item: itemID, header: h, body: signed?.body)
        }
        for link in item.payments { try state.writes.add(link, scope: item.scope, item: itemID) }
        for revocation in item.paymentRevocations { try state.writes.add(revocation, scope: item.scope, item: itemID) }
        try LookupKeyRows.record(db, item.lookupKeys)
        for original in item.originals { try state.writes.addSubject(item: itemID, purchaseID: original) }
        return itemID
    }

    /// Stage 4, derive: each subscription's record with the item's versions, the answers that
    /// changed (the feed) and the status changes; `state` keeps the records for later items.
    private func derive(_ item: PendingItem, item itemID: Int64, before: HeldBefore, _ db: any DatabaseConnection,
                        _ state: inout RecordingState, catalogs: ProductCatalogs, now: Int64, copy: Int) throws(GateKitError) -> [IngestReport.StatusChange] {
        var records = before.records
        for (v, _) in item.transactions {
            records[v.purchaseID]?.transactions.append(v)
            // The replaced subscription's record holds its replacements (`LedgerRows.record`).
            if let replaced = v.replaces, replaced != v.purchaseID { records[replaced]?.transactions.append(v) }
        }
        for (v, _) in item.renewals { records[v.purchaseID]?.renewals.append(v) }
        // Where the store answers payments apart, what they paid for and took back as now known
        // (an answer that links a payment brings the refunds told before it). Read again only
        // where the item can change it: its own links or revocations, or a purchase whose
        // payments the held record did not read (its first versions of such a store).
        let bringsPayments = !item.payments.isEmpty || !item.paymentRevocations.isEmpty
        for original in item.originals {
            guard var record = records[original] else { continue }
            let apart = PaymentRows.purchasesAnsweredApart(record)
            guard !apart.isEmpty else { continue }
            guard bringsPayments || apart != PaymentRows.purchasesAnsweredApart(before.records[original] ?? CustomerRecord()) else { continue }
            try PaymentRows.read(db, into: &record, purchases: apart, scope: item.scope,
                                 pending: (state.paymentLinks + item.payments, item.paymentRevocations))
            records[original] = record
        }
        state.paymentLinks += item.payments
        for original in item.originals { state.records[original] = records[original]?.compacted() }
        // Worked out once for the feed's answers and the statuses alike.
        let currents = records.mapValues { $0.current(knownBy: nil) }
        for original in item.originals {
            let kept = try ChangeFeedRows.ingested(db, scope: item.scope, original: original, record: records[original] ?? CustomerRecord(),
                                                   current: currents[original],
                                                   after: before.answered[original] ?? ChangeFeedRows.Kept(stored: [:]), catalogs: catalogs,
                                                   now: now, item: itemID, into: &state.changes, copy: copy)
            state.writes.keep(scope: item.scope, original: original, kept)
            state.answers[RecordingState.answersKey(item.scope, original)] = ChangeFeedRows.Kept(stored: kept.stored)
        }
        let after = Ledger.statuses(currents, at: now)
        var changes: [IngestReport.StatusChange] = []
        for original in item.originals {
            guard let to = after[original], before.statuses[original]?.status != to.status else { continue }
            let change = IngestReport.StatusChange(purchaseID: original, groupID: to.group, from: before.statuses[original]?.status, to: to.status)
            try state.writes.addStatusChange(change, scope: item.scope, item: itemID, at: now)
            changes.append(change)
        }
        return changes
    }

    /// SQLite's next item id: one more than the store's highest, then counted on.
    func nextSQLiteItemID(_ db: any DatabaseConnection, _ state: inout RecordingState) throws(GateKitError) -> Int64 {
        let id: Int64
        if let next = state.nextItemID { id = next } else { id = try db.scalar("SELECT coalesce(max(id), 0) + 1 FROM ledger_items") }
        state.nextItemID = id &+ 1
        return id
    }

    /// Whether the item is recorded (its identity, or its notification UUID); on PostgreSQL
    /// also the id its row will have (drawn here: one round trip for both).
    func isRecorded(_ db: any DatabaseConnection, _ item: PendingItem, copy: Int) throws(GateKitError) -> (Bool, Int64?) {
        let s = try recordedStatement(db, item, copy: copy)
        defer { s.reset() }
        guard try s.step() else { return (false, nil) }
        return db.dialect == .postgresql ? (s.int64(0) == 1, s.int64(1)) : (true, nil)
    }

    func recordedStatement(_ db: any DatabaseConnection, _ item: PendingItem, copy: Int) throws(GateKitError) -> any DatabaseStatement {
        // Only what the item has: an "?4 IS NULL OR …" would leave PostgreSQL's generic plan
        // scanning the table (slower with every item); "IS NOT NULL" lets both engines use the
        // partial index.
        let match = item.notificationUUID == nil ? "FROM ledger_items WHERE environment = ?1 AND test_signed = ?2 AND identity = ?3" : """
            FROM ledger_items WHERE environment = ?1 AND test_signed = ?2
            AND (identity = ?3 OR (notification_uuid = ?4 AND notification_uuid IS NOT NULL))
            """
        let sql = db.dialect == .postgresql ? "SELECT EXISTS (SELECT 1 \(match)), nextval(pg_get_serial_sequence('ledger_items', 'id'))"
                                            : "SELECT 1 \(match) LIMIT 1"
        return try db.statement(sql, copy: copy)
            .bind(1, text: item.scope.environment).bind(2, item.scope.testFlag).bind(3, text: item.identity).bind(4, text: item.notificationUUID)
    }

    /// Each subscription's status at `at` from its versions.
    static func statuses(_ records: [String: CustomerRecord], at: Int64) -> [String: (group: String?, status: SubscriptionStatus)] {
        statuses(records.mapValues { $0.current(knownBy: nil) }, at: at)
    }

    /// The same from each subscription's current versions (`CustomerRecord.current(knownBy: nil)`).
    static func statuses(_ currents: [String: CurrentVersions], at: Int64) -> [String: (group: String?, status: SubscriptionStatus)] {
        var out: [String: (group: String?, status: SubscriptionStatus)] = [:]
        for (original, current) in currents {
            if let s = LedgerView(at: at, current: current).subscriptions.first(where: { $0.purchaseID == original }) {
                out[original] = (s.groupID, s.status)
            }
        }
        return out
    }
}
