import GateKitJWS
import GateKitReceipts
import GateKitStore
import GateKitSupport
import GateKitTrust

/// Ingestion: every item is verified in the same call (never decoded JSON from the caller),
/// then recorded in one durable transaction. Idempotent and order-independent: items dedupe on
/// their replay identity (notifications also on notificationUUID), and versions on
/// (transaction id, identity), so any permutation of the same items, each any number of
/// times, leaves the same versions — and the answers only ever read the newest of them.
extension Ledger {
    /// An item about to be recorded, with the versions it carries.
    struct PendingItem {
        let kind: IngestReport.Kind
        let scope: LedgerScope
        /// The app the item was verified for (a store's ledger holds one app's data).
        let bundleID: String
        let identity: String
        let signedMs: Int64
        var notificationUUID: String?
        var notificationType: String?
        var subtype: String?
        /// The item's own signed text (a JWS, its header stored once), or a receipt's JSON
        /// with no header.
        let header: String?
        let body: String
        var transactions: [(TransactionVersion, LedgerRows.SignedText?)] = []
        /// Each version with its own signed text; nil when that is the item's own.
        var renewals: [(RenewalVersion, LedgerRows.SignedText?)] = []

        /// The subscriptions the item speaks of, sorted.
        var originals: [String] {
            Array(Set(transactions.map(\.0.originalTransactionID) + renewals.map(\.0.originalTransactionID))).sorted()
        }

        /// What recording the item reads to decide what it writes: its subscriptions (write
        /// transactions on the same subscription run one at a time).
        var subjects: [String] {
            originals.map { "ledger/\(scope.environment)/\(scope.testFlag)/\($0)" }
        }
    }

    public func ingestNotification<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingNotification(text, options: options))
    }

    public func ingestTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingTransaction(text, options: options))
    }

    public func ingestRenewalInfo<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingRenewalInfo(text, options: options))
    }

    /// An AppTransaction is recorded (history) and changes no entitlement.
    public func ingestAppTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingAppTransaction(text, options: options))
    }

    /// Several signed items of one kind, each verified as the single-item functions do (on
    /// every core: verification is most of an item's cost), then recorded together in one
    /// durable transaction (one fsync for all: what a backlog or a page
    /// of the App Store Server API's transaction history wants). An item that fails
    /// verification is reported in its place and skipped; a store failure records none.
    public func ingestBatch(_ texts: [UnsafeRawBufferPointer], kind: JWSVerifier.Kind, options: JWSOptions) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        guard kind != .realtimeRequest else { throw .invalid("realtime requests are not ledger data (they carry no purchase)") }
        return try verifyAndRecord(texts.count, options: options, alongside: .subjects([]), { (i) throws(GateKitError) in
            try self.pendingItem(texts[i], kind: kind, options: options)
        }, { (_) throws(GateKitError) in }).reports
    }

    /// Signed items of any kinds, each verified as the single-item functions do, recorded in one
    /// durable transaction together with `alongside` (a sync's checkpoint, in the same commit:
    /// both or neither). `scope` names what `alongside` reads to decide what it writes. Every
    /// item is verified before the write begins, on either backend: what a server sent is
    /// untrusted, and verifying it must not hold other writers off.
    package func ingestTogether<T>(_ items: [(text: [UInt8], kind: JWSVerifier.Kind)], options: JWSOptions, alongside scope: WriteScope,
                                   _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        try verifyAndRecord(items.count, options: options, alongside: scope, allBeforeWrite: true, { (i) throws(GateKitError) in
            try self.pendingItem(items[i].text, kind: items[i].kind, options: options)
        }, alongside)
    }

    /// `count` items verified by `verify` on helper threads (`WorkAhead`) and recorded together
    /// (`record`) — off the thread that forked, in a forked process (`FreshThread`).
    private func verifyAndRecord<T>(_ count: Int, options: JWSOptions, alongside scope: WriteScope, allBeforeWrite: Bool = false,
                                    _ verify: @escaping (Int) throws(GateKitError) -> PendingItem,
                                    _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        try FreshThread.run("ledger batch") { () throws(GateKitError) in
            try ForkGate.section { () throws(GateKitError) in  // helper threads at work: no fork meanwhile
                let pending = WorkAhead(count) { i in Result { () throws(GateKitError) -> PendingItem in try verify(i) } }
                defer { pending.finish() }
                return try record(pending, count, options: options, alongside: scope, allBeforeWrite: allBeforeWrite, alongside)
            }
        }
    }

    private func pendingItem<C: Collection>(_ text: C, kind: JWSVerifier.Kind, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        switch kind {
        case .notification: try pendingNotification(text, options: options)
        case .transaction: try pendingTransaction(text, options: options)
        case .renewalInfo: try pendingRenewalInfo(text, options: options)
        case .appTransaction: try pendingAppTransaction(text, options: options)
        case .realtimeRequest: throw .invalid("realtime requests are not ledger data (they carry no purchase)")
        }
    }

    /// Records the `count` items `pending` verifies in one write transaction, then runs
    /// `alongside` in it. On PostgreSQL every item is verified before the write begins: its
    /// scope locks every subscription the items name, and the rows all writers share are
    /// committed ahead. SQLite has one writer and no scope to name, so its write begins once
    /// the first item is verified and records each item while the helpers verify the next
    /// ones: storing overlaps verifying (unless `allBeforeWrite`).
    private func record<T>(_ pending: WorkAhead<Result<PendingItem, GateKitError>>, _ count: Int, options: JWSOptions, alongside scope: WriteScope,
                           allBeforeWrite: Bool,
                           _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        func item(_ i: Int) throws(GateKitError) -> Result<PendingItem, GateKitError> {
            guard let item = pending.value(i) else { throw .internalError("item \(i) of \(count) was not verified") }
            return item
        }
        // What the write needs before it begins: the bundle binding (its own commit, only once
        // an item verified for that bundle) and, on PostgreSQL, every item.
        var ahead: [PendingItem] = []
        for i in 0..<count {
            if case let .success(verified) = try item(i) {
                ahead.append(verified)
                if store.backend != .postgresql, !allBeforeWrite { break }
            }
        }
        if !ahead.isEmpty { try bindBundle(options.bundleID) }
        try storeSharedRowsAhead(ahead)
        var subjects = ahead.flatMap(\.subjects)
        if case let .subjects(more) = scope { subjects += more }
        let writeScope: WriteScope = if case .wholeStore = scope { .wholeStore } else { .subjects(subjects) }
        return try store.write(writeScope) { (db) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) in
            forgetRecords()
            var state = RecordingState(db.dialect)
            var out: [Result<IngestReport, GateKitError>] = []
            out.reserveCapacity(count)
            for i in 0..<count {
                let copy = i % Ledger.prefetchCopies
                if copy == 0 && db.dialect == .postgresql {
                    try prefetchIndependent(try (i..<min(count, i + Ledger.prefetchCopies)).map(item), db)
                }
                switch try item(i) {
                case let .success(item): out.append(.success(try record(item, db, &state, copy: copy)))
                case let .failure(error): out.append(.failure(error))
                }
            }
            try state.writes.flush(db)
            let result = try alongside(db)
            try state.finish(db)
            return (out, result)
        }
    }

    func pendingNotification<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let verified = try JWSVerifier.verifyNotification(text, options: options, withJSON: false)
        let n = verified.notification
        var item = try pending(.notification, text, testSigned: n.provenance?.isTestSigned, options: options,
                               identity: verified.identity, signedMs: n.signedDate)
        item.notificationUUID = n.notificationUUID
        item.notificationType = n.notificationType
        item.subtype = n.subtype
        if let t = verified.transaction, let signed = n.data?.signedTransactionInfo {
            item.transactions.append((try version(t), try split(signed, "data.signedTransactionInfo")))
        }
        if let r = verified.renewalInfo, let signed = n.data?.signedRenewalInfo {
            item.renewals.append((try version(r), try split(signed, "data.signedRenewalInfo")))
        }
        return item
    }

    func pendingTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let t = try JWSVerifier.verifyTransaction(text, options: options)
        let identity = try identity(t.provenance)
        var item = try pending(.transaction, text, testSigned: t.provenance?.isTestSigned, options: options, identity: identity, signedMs: t.signedDate)
        item.transactions.append((try version(t), nil))  // its signed text is the item's
        return item
    }

    func pendingRenewalInfo<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let r = try JWSVerifier.verifyRenewalInfo(text, options: options)
        let identity = try identity(r.provenance)
        var item = try pending(.renewalInfo, text, testSigned: r.provenance?.isTestSigned, options: options, identity: identity, signedMs: r.signedDate)
        item.renewals.append((try version(r), nil))  // its signed text is the item's
        return item
    }

    func pendingAppTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let a = try JWSVerifier.verifyAppTransaction(text, options: options)
        let identity = try identity(a.provenance)
        let signedMs = a.json["signedDate"]?.int64Value ?? a.receiptCreationDate
        return try pending(.appTransaction, text, testSigned: a.provenance?.isTestSigned, options: options,
                           identity: identity, signedMs: signedMs)
    }

    /// A validated app receipt: each purchase becomes a transaction version signed when the
    /// receipt was created. Receipts carry no group ids or tokens: those come from signed
    /// transactions of the same products (see `CustomerRecord.view`).
    public func ingestReceipt(_ input: UnsafeRawBufferPointer, options: ReceiptValidationOptions) throws(GateKitError) -> IngestReport {
        let validated = try ReceiptValidator.validate(input, options: options)
        let receipt = validated.receipt
        let environment: AppStoreEnvironment
        switch receipt.environmentClass {
        case .production: environment = .production
        case .sandbox: environment = .sandbox
        case .xcode: environment = .xcode
        case .unknown: throw GateKitError(.receiptUnknownEnvironment, "the receipt's environment \(Quoted.text(receipt.environment)) is not one the ledger keeps")
        }
        guard let created = receipt.creationDate?.milliseconds else {
            throw GateKitError(.receiptNoCreationDate, "the receipt has no creation date: its purchases cannot be ordered")
        }
        let identity = try validated.identity()
        var item = PendingItem(kind: .receipt, scope: LedgerScope(environment: environment, testSigned: validated.isTestSigned),
                               bundleID: options.bundleID, identity: identity.hex, signedMs: created, header: nil,
                               body: try ReceiptJSON.verifyReceiptBody(validated, identity: identity))
        for purchase in receipt.purchases {
            guard let v = TransactionVersion(purchase, receiptCreatedMs: created, identity: identity.hex) else { continue }
            for id in [v.transactionID, v.originalTransactionID, v.productID] where id.utf8.contains(0) {
                throw GateKitError(.receiptPayloadMalformed, "a purchase's identifier \(Quoted.text(id)) contains a NUL character")
            }
            item.transactions.append((v, nil))
        }
        return try commit(item)
    }

    // MARK: steps

    private func identity(_ provenance: Provenance?) throws(GateKitError) -> ReplayIdentity {
        guard let provenance else { throw .internalError("verified data without provenance") }
        return try provenance.identity()
    }

    private func pending<C: Collection>(_ kind: IngestReport.Kind, _ text: C, testSigned: Bool?, options: JWSOptions,
                                        identity: ReplayIdentity, signedMs: Int64?) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        guard let testSigned else { throw .internalError("verified data without provenance") }
        guard let signed = LedgerRows.SignedText(bytes: text) else { throw .internalError("\(kind.name): verified text is not a compact JWS") }
        return PendingItem(kind: kind, scope: LedgerScope(environment: options.environment, testSigned: testSigned),
                           bundleID: options.bundleID, identity: identity.hex, signedMs: signedMs ?? 0, header: signed.header, body: signed.body)
    }

    private func split(_ text: String, _ what: String) throws(GateKitError) -> LedgerRows.SignedText {
        guard let signed = LedgerRows.SignedText(text) else { throw .internalError("\(what): verified text is not a compact JWS") }
        return signed
    }

    private func version(_ t: JWSTransaction) throws(GateKitError) -> TransactionVersion {
        guard let v = TransactionVersion(t, identity: try identity(t.provenance).hex) else {
            throw GateKitError(.jwsPayloadField, "the transaction lacks transactionId, originalTransactionId, productId or signedDate, which the ledger keys on")
        }
        return v
    }

    private func version(_ r: JWSRenewalInfo) throws(GateKitError) -> RenewalVersion {
        try SignedKind.requireRenewalInfo(r.json, path: "renewalInfo")
        guard let v = RenewalVersion(r, identity: try identity(r.provenance).hex) else {
            throw GateKitError(.jwsPayloadField, "the renewal info lacks originalTransactionId or signedDate, which the ledger keys on")
        }
        return v
    }

    /// Records the item and its versions in one write transaction.
    private func commit(_ item: PendingItem) throws(GateKitError) -> IngestReport {
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
    private func storeSharedRowsAhead(_ items: [PendingItem]) throws(GateKitError) {
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
    private func headerID(_ db: any DatabaseConnection, _ header: String) throws(GateKitError) -> Int64 {
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
    private func bindBundle(_ bundleID: String) throws(GateKitError) {
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
    private func prefetchIndependent(_ chunk: [Result<PendingItem, GateKitError>], _ db: any DatabaseConnection) throws(GateKitError) {
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
    private func prefetch(_ item: PendingItem, _ db: any DatabaseConnection, _ state: RecordingState?, copy: Int) throws(GateKitError) {
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
    private func record(_ item: PendingItem, _ db: any DatabaseConnection, _ state: inout RecordingState, copy: Int) throws(GateKitError) -> IngestReport {
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
    private func nextSQLiteItemID(_ db: any DatabaseConnection, _ state: inout RecordingState) throws(GateKitError) -> Int64 {
        let id: Int64
        if let next = state.nextItemID { id = next } else { id = try db.scalar("SELECT coalesce(max(id), 0) + 1 FROM ledger_items") }
        state.nextItemID = id &+ 1
        return id
    }

    /// Whether the item is recorded (its identity, or its notification UUID); on PostgreSQL
    /// also the id its row will have (drawn here: one round trip for both).
    private func isRecorded(_ db: any DatabaseConnection, _ item: PendingItem, copy: Int) throws(GateKitError) -> (Bool, Int64?) {
        let s = try recordedStatement(db, item, copy: copy)
        defer { s.reset() }
        guard try s.step() else { return (false, nil) }
        return db.dialect == .postgresql ? (s.int64(0) == 1, s.int64(1)) : (true, nil)
    }

    private func recordedStatement(_ db: any DatabaseConnection, _ item: PendingItem, copy: Int) throws(GateKitError) -> any DatabaseStatement {
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
    private func statuses(_ records: [String: CustomerRecord], at: Int64) -> [String: (group: String?, status: SubscriptionStatus)] {
        var out: [String: (group: String?, status: SubscriptionStatus)] = [:]
        for (original, record) in records {
            if let s = record.view(at: at, knownBy: nil).subscriptions.first(where: { $0.originalTransactionID == original }) {
                out[original] = (s.groupID, s.status)
            }
        }
        return out
    }
}
