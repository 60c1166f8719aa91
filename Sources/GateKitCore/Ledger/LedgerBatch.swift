import GateKitJWS
import GateKitStore
import GateKitSupport

/// Several items at once: verified on helper threads, then recorded in one durable transaction
/// (a backlog, a page of Apple's history), in input order.
extension Ledger {
    /// Several signed items of one kind, each verified as the single-item functions do (on
    /// every core: verification is most of an item's cost), then recorded together in one
    /// durable transaction (one fsync for all: what a backlog or a page
    /// of the App Store Server API's transaction history wants). An item that fails
    /// verification is reported in its place and skipped; a store failure records none.
    public func ingestBatch(_ texts: [UnsafeRawBufferPointer], kind: JWSVerifier.Kind, options: JWSOptions) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        guard kind != .realtimeRequest else { throw .invalid("realtime requests are not ledger data (they carry no purchase)") }
        return try verifyAndRecord(texts.count, alongside: .subjects([]), { (i) throws(GateKitError) in
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
        try verifyAndRecord(items.count, alongside: scope, allBeforeWrite: true, { (i) throws(GateKitError) in
            try self.pendingItem(items[i].text, kind: items[i].kind, options: options)
        }, alongside)
    }

    /// `count` items verified by `verify` on helper threads (`WorkAhead`) and recorded together
    /// (`record`) — off the thread that forked, in a forked process (`FreshThread`).
    func verifyAndRecord<T>(_ count: Int, alongside scope: WriteScope, allBeforeWrite: Bool = false,
                                    _ verify: @escaping (Int) throws(GateKitError) -> PendingItem,
                                    _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        try FreshThread.run("ledger batch") { () throws(GateKitError) in
            try ForkGate.section { () throws(GateKitError) in  // helper threads at work: no fork meanwhile
                let pending = WorkAhead(count) { i in Result { () throws(GateKitError) -> PendingItem in try verify(i) } }
                defer { pending.finish() }
                return try record(pending, count, alongside: scope, allBeforeWrite: allBeforeWrite, alongside)
            }
        }
    }

    /// Records the `count` items `pending` verifies in one write transaction, then runs
    /// `alongside` in it. On PostgreSQL every item is verified before the write begins: its
    /// scope locks every subscription the items name, and the rows all writers share are
    /// committed ahead. SQLite has one writer and no scope to name, so its write begins once
    /// the first item is verified and records each item while the helpers verify the next
    /// ones: storing overlaps verifying (unless `allBeforeWrite`).
    func record<T>(_ pending: WorkAhead<Result<PendingItem, GateKitError>>, _ count: Int, alongside scope: WriteScope,
                           allBeforeWrite: Bool,
                           _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        func item(_ i: Int) throws(GateKitError) -> Result<PendingItem, GateKitError> {
            guard let item = pending.value(i) else { throw .internalError("item \(i) of \(count) was not verified") }
            return item
        }
        // What the write needs before it begins: the bundle binding (its own commit, only once
        // an item verified for that bundle: a batch is of one app, `ingestPlayBatch` checks its
        // own) and, on PostgreSQL, every item.
        var ahead: [PendingItem] = []
        for i in 0..<count {
            if case let .success(verified) = try item(i) {
                ahead.append(verified)
                if store.backend != .postgresql, !allBeforeWrite { break }
            }
        }
        if let first = ahead.first { try bindBundle(first.bundleID, store: first.kind.store) }
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

    /// Several Play answers (subscriptions or one-time products) of one package, each checked
    /// and read as the single-answer functions do, recorded in one durable transaction. An
    /// answer that is refused is reported in its place and skipped; a store failure records none.
    public func ingestPlayBatch(_ answers: [(answer: PlayAnswer, isSubscription: Bool)]) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        guard let package = answers.first?.answer.packageName else { return [] }
        guard answers.allSatisfy({ $0.answer.packageName == package }) else {
            throw .invalid("a batch of Play answers is of one package; these name several")
        }
        return try verifyAndRecord(answers.count, alongside: .subjects([]), { (i) throws(GateKitError) in
            let (answer, isSubscription) = answers[i]
            return isSubscription ? try self.pendingPlaySubscription(answer, kind: .playSubscription) : try self.pendingPlayProduct(answer, kind: .playProduct)
        }, { (_) throws(GateKitError) in }).reports
    }
}
