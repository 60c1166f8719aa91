import GateKitStore
import GateKitSupport

/// The write path's last stages, in one direction: record the item and its versions (the
/// duplicate check, the rows), derive what it changes (the answers before and after, the
/// change feed, the status changes) and commit. Nothing here calls back into verification.
extension Ledger {
    /// Records the item and its versions in one write transaction.
    func commit(_ item: PendingItem) throws(GateKitError) -> IngestReport {
        try bindBundle(item.bundleID)
        try storeSharedRowsAhead([item])
        return try store.write(.subjects(item.subjects)) { (db) throws(GateKitError) -> IngestReport in
            forgetRecords()
            var state = RecordingState(db.dialect)
            let report = try record(item, db, &state, copy: 0)
            try state.finish(db)
            return report
        }
    }

    /// The subscriptions recording has read, kept across the items of one write transaction,
    /// each compacted to the newest version of each transaction (`CustomerRecord.compacted`):
    /// a batch of N versions of one transaction reads the store once and costs O(N), not O(N²).
    struct RecordingState {
        var records: [String: CustomerRecord] = [:]
        /// The answers' changes the items made, numbered and appended last (`ChangeFeedRows.append`).
        var changes: [ChangeFeedRows.Change] = []
        /// The rows the items add, sent together before the commit (`finish`).
        var writes: LedgerWrites
        /// What the items recorded so far answer for the duplicate check (identities, notification
        /// UUIDs) and for the feed (each subscription's answers): their rows are not sent yet.
        var recorded = Set<String>()
        var answers: [String: ChangeFeedRows.Kept] = [:]
        /// SQLite: the id the next item takes (the store's write lock is held, so none other
        /// is drawn meanwhile); PostgreSQL draws each from the sequence.
        var nextItemID: Int64?

        init(_ dialect: SQLDialect) { writes = LedgerWrites(dialect) }

        static func recordedKeys(_ item: PendingItem) -> [String] {
            ["identity/\(item.scope.environment)/\(item.scope.testFlag)/\(item.identity)"]
                + (item.notificationUUID.map { ["uuid/\(item.scope.environment)/\(item.scope.testFlag)/\($0)"] } ?? [])
        }

        static func answersKey(_ scope: LedgerScope, _ original: String) -> String {
            "\(scope.environment)/\(scope.testFlag)/\(original)"
        }

        /// Sends the rows, then numbers and appends the feed's changes.
        mutating func finish(_ db: any DatabaseConnection) throws(GateKitError) {
            try writes.flush(db)
            try ChangeFeedRows.append(db, changes, now: Clock.nowMilliseconds())
        }
    }

    /// On PostgreSQL, the rows every writer shares — the items' certificate headers (one per
    /// signing key) and product → group rows — are committed before the item's own transaction,
    /// each in its own: an uncommitted row in a unique index makes every other writer that
    /// inserts the same key wait for this transaction, however long its batch, whatever its
    /// subscription. Both tables are append-only facts of verified data, so a row committed
    /// ahead of an item that then fails is harmless.
    func storeSharedRowsAhead(_ items: [PendingItem]) throws(GateKitError) {
        guard store.backend == .postgresql else { return }
        var headers = Set<String>()
        var products = Set<SharedProduct>()
        for item in items {
            if let h = item.header { headers.insert(h) }
            for (v, signed) in item.transactions {
                if let h = signed?.header { headers.insert(h) }
                if let g = v.groupID { products.insert(SharedProduct(scope: item.scope, product: v.productID, group: g)) }
            }
            for (_, signed) in item.renewals { if let h = signed?.header { headers.insert(h) } }
        }
        let (knownHeaders, knownProducts) = committedShared.withLock { ($0.headers, $0.products) }
        headers = headers.filter { knownHeaders[$0] == nil }
        products.subtract(knownProducts)
        var headerIDs: [String: Int64] = [:]
        for header in headers.sorted() {
            headerIDs[header] = try store.write(.singleInsert) { (db) throws(GateKitError) -> Int64 in
                try db.statement("INSERT INTO ledger_jws_headers(header) VALUES (?1) ON CONFLICT DO NOTHING").bind(1, text: header).run()
                return try LedgerRows.headerID(db, header)
            }
        }
        for p in products.sorted(by: { ($0.product, $0.group) < ($1.product, $1.group) }) {
            try store.write(.singleInsert) { (db) throws(GateKitError) in
                try db.statement("INSERT INTO ledger_products(environment, test_signed, product_id, group_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
                    .bind(1, text: p.scope.environment).bind(2, p.scope.testFlag).bind(3, text: p.product).bind(4, text: p.group).run()
            }
        }
        committedShared.withLock {
            $0.headers.merge(headerIDs) { old, _ in old }
            $0.products.formUnion(products)
        }
    }

    /// A header's row: known once committed ahead (PostgreSQL), otherwise looked up or added.
    func headerID(_ db: any DatabaseConnection, _ header: String) throws(GateKitError) -> Int64 {
        if let known = committedShared.withLock({ $0.headers[header] }) { return known }
        return try LedgerRows.headerID(db, header)
    }

    struct SharedProduct: Hashable {
        let scope: LedgerScope
        let product: String
        let group: String
    }

    /// What `storeSharedRowsAhead` knows is committed (append-only: it stays so), with each
    /// header's row id.
    struct CommittedShared {
        var headers: [String: Int64] = [:]
        var products = Set<SharedProduct>()
    }

    /// One ledger per app: the first ingestion binds the store's ledger to its bundle id, and
    /// data verified for another app is refused (answers never mix two apps' customers). The
    /// binding is its own commit, ahead of the item's transaction (insert if absent, then read:
    /// atomic without a transaction), so no writer waits on another's uncommitted binding; it
    /// stays even if the item then fails (its data was verified for that bundle id).
    func bindBundle(_ bundleID: String) throws(GateKitError) {
        if boundBundle.withLock({ $0 }) == bundleID { return }
        let bound = try store.write(.singleInsert) { (db) throws(GateKitError) -> String? in
            try db.statement("INSERT INTO gatekit_meta(key, value) VALUES ('ledger_bundle_id', ?1) ON CONFLICT(key) DO NOTHING")
                .bind(1, text: bundleID).run()
            let read = try db.statement("SELECT value FROM gatekit_meta WHERE key = 'ledger_bundle_id'")
            defer { read.reset() }
            return try read.step() ? read.text(0) : nil
        }
        guard bound == bundleID else {
            throw .invalid("this store's ledger holds the data of \(Quoted.text(bound ?? "")); data verified for \(Quoted.text(bundleID)) is refused (one ledger per app: open a store with another app id)")
        }
        boundBundle.withLock { $0 = bundleID }
    }

    /// Items of a batch whose reads are prefetched together (`prefetchIndependent`), each with
    /// its own statement copies (`DatabaseConnection.statement(_:copy:)`). A copy plans its
    /// first executions itself (PostgreSQL's custom plans, each costly for the record's read)
    /// before its generic plan: few copies, each used often, keep that warm-up short.
    static let prefetchCopies = 16

    /// On PostgreSQL, sends ahead what recording each of `chunk`'s items reads, for every item
    /// no earlier item of the chunk touches (its subscriptions, its identity): those reads are
    /// answered together, one round trip per chunk instead of one per item (the writes of
    /// earlier chunks were sent before, so the reads see them). An item that shares a
    /// subscription with an earlier one of its chunk sends its reads when its turn comes.
    func prefetchIndependent(_ chunk: [Result<PendingItem, GateKitError>], _ db: any DatabaseConnection) throws(GateKitError) {
        guard db.dialect == .postgresql, chunk.count > 1 else { return }
        var seen = Set<String>()
        for (i, item) in chunk.enumerated() {
            guard case let .success(item) = item else { continue }
            let keys = item.subjects + [item.identity] + (item.notificationUUID.map { ["uuid/\($0)"] } ?? [])
            guard seen.isDisjoint(with: keys) else {
                seen.formUnion(keys)
                continue
            }
            seen.formUnion(keys)
            try prefetch(item, db, nil, copy: i)
        }
    }

    /// Sends ahead the reads `record` makes for `item` (`DatabaseStatement.prefetch`).
    /// `state`: what the transaction's earlier items left (nil: none), which needs no read.
    func prefetch(_ item: PendingItem, _ db: any DatabaseConnection, _ state: RecordingState?, copy: Int) throws(GateKitError) {
        guard db.dialect == .postgresql else { return }
        if let state, !state.recorded.isDisjoint(with: RecordingState.recordedKeys(item)) { return }  // a duplicate: nothing to read
        try recordedStatement(db, item, copy: copy).prefetch()
        try prefetchCatalogs(db)
        guard let original = item.originals.first else { return }
        if state?.records[original] == nil { try LedgerRows.prefetchRecord(db, original: original, scope: item.scope, copy: copy) }
        if state?.answers[RecordingState.answersKey(item.scope, original)] == nil {
            try ChangeFeedRows.prefetchStored(db, scope: item.scope, original: original, copy: copy)
        }
        // The token the subscription will have: the item's, else the one it had.
        let token = item.transactions.lazy.filter { $0.0.originalTransactionID == original }.compactMap(\.0.appAccountToken).first
            ?? state?.records[original].flatMap { ChangeFeedRows.newestToken($0, original: original) }
        try ChangeFeedRows.prefetchParties(db, scope: item.scope, original: original, token: token, copy: copy)
    }

    /// Records one item inside the caller's write transaction (whose scope holds its subjects).
    /// `copy`: the statement copies its reads use (`prefetch`).
    func record(_ item: PendingItem, _ db: any DatabaseConnection, _ state: inout RecordingState, copy: Int) throws(GateKitError) -> IngestReport {
        let originals = item.originals
        let token = item.transactions.lazy.compactMap(\.0.appAccountToken).first
        let scope = item.scope
        func report(_ outcome: IngestReport.Outcome, _ changes: [IngestReport.StatusChange]) -> IngestReport {
            IngestReport(outcome: outcome, kind: item.kind, scope: scope, identity: item.identity, notificationType: item.notificationType,
                         subtype: item.subtype, notificationUUID: item.notificationUUID, originalTransactionIDs: originals,
                         appAccountToken: token, statusChanges: changes)
        }
        try prefetch(item, db, state, copy: copy)
        let keys = RecordingState.recordedKeys(item)
        if !state.recorded.isDisjoint(with: keys) { return report(.duplicate, []) }
        let (recorded, drawnID) = try isRecorded(db, item, copy: copy)
        if recorded { return report(.duplicate, []) }
        state.recorded.formUnion(keys)
        let now = Clock.nowMilliseconds()
        // Each subscription's versions before the item, and after it (the same plus the item's
        // own versions: no second query), for the status-change history.
        for original in originals where state.records[original] == nil {
            state.records[original] = try LedgerRows.record(db, customer: .originalTransactionID(original), scope: scope, copy: copy).compacted()
        }
        var records: [String: CustomerRecord] = [:]
        for original in originals { records[original] = state.records[original] }
        let before = statuses(records, at: now)
        // What time alone changed before this item: those changes come first, dated when they happened.
        let catalogs = try loadedCatalogs(db)
        var answered: [String: ChangeFeedRows.Kept] = [:]
        for original in originals {
            let key = RecordingState.answersKey(scope, original)
            let stored: [String: ChangeFeedRows.Stored]
            if let known = state.answers[key] { stored = known.stored } else { stored = try ChangeFeedRows.stored(db, scope: scope, original: original, copy: copy) }
            answered[original] = try ChangeFeedRows.sweep(db, scope: scope, original: original, record: records[original] ?? CustomerRecord(),
                                                      stored: stored, catalogs: catalogs, now: now, into: &state.changes, copy: copy)
        }
        // New unless a version as new or newer is held (the compacted record keeps the newest).
        var changesState = item.transactions.isEmpty && item.renewals.isEmpty
        for (v, _) in item.transactions where !(records[v.originalTransactionID]?.transactions.contains {
            $0.transactionID == v.transactionID && !v.isNewer(than: $0)
        } ?? false) { changesState = true }
        for (v, _) in item.renewals where !(records[v.originalTransactionID]?.renewals.contains {
            $0.originalTransactionID == v.originalTransactionID && !v.isNewer(than: $0)
        } ?? false) { changesState = true }
        let outcome: IngestReport.Outcome = changesState ? .new : .superseded

        let header = try item.header.map { (h) throws(GateKitError) in try headerID(db, h) }
        let itemID: Int64
        if let drawnID { itemID = drawnID } else { itemID = try nextSQLiteItemID(db, &state) }
        try state.writes.addItem(item, id: itemID, outcome: outcome, header: header, now: now)
        for (v, signed) in item.transactions {
            let h = try signed.map { (s) throws(GateKitError) in try headerID(db, s.header) }
            try state.writes.add(v, scope: scope, item: itemID, header: h, body: signed?.body)
        }
        for (v, signed) in item.renewals {
            let h = try signed.map { (s) throws(GateKitError) in try headerID(db, s.header) }
            try state.writes.add(v, scope: scope, item: itemID, header: h, body: signed?.body)
        }
        for original in originals { try state.writes.addSubject(item: itemID, originalTransactionID: original) }

        var changes: [IngestReport.StatusChange] = []
        for (v, _) in item.transactions { records[v.originalTransactionID]?.transactions.append(v) }
        for (v, _) in item.renewals { records[v.originalTransactionID]?.renewals.append(v) }
        for original in originals { state.records[original] = records[original]?.compacted() }
        let after = statuses(records, at: now)
        for original in originals {
            let kept = try ChangeFeedRows.ingested(db, scope: scope, original: original, record: records[original] ?? CustomerRecord(),
                                               after: answered[original] ?? ChangeFeedRows.Kept(stored: [:]), catalogs: catalogs, now: now,
                                               item: itemID, into: &state.changes, copy: copy)
            state.writes.keep(scope: scope, original: original, kept)
            state.answers[RecordingState.answersKey(scope, original)] = ChangeFeedRows.Kept(stored: kept.stored)
        }
        for original in originals {
            guard let to = after[original], before[original]?.status != to.status else { continue }
            let change = IngestReport.StatusChange(originalTransactionID: original, groupID: to.group, from: before[original]?.status, to: to.status)
            try state.writes.addStatusChange(change, scope: scope, item: itemID, at: now)
            changes.append(change)
        }
        return report(outcome, changes)
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
    func statuses(_ records: [String: CustomerRecord], at: Int64) -> [String: (group: String?, status: SubscriptionStatus)] {
        var out: [String: (group: String?, status: SubscriptionStatus)] = [:]
        for (original, record) in records {
            if let s = record.view(at: at, knownBy: nil).subscriptions.first(where: { $0.originalTransactionID == original }) {
                out[original] = (s.groupID, s.status)
            }
        }
        return out
    }
}
