import GateKitStore
import GateKitSupport

/// Several items at once: verified on helper threads, then recorded in one durable transaction
/// (a backlog, a page of a store's history), in input order. Each adapter feeds it its own items
/// (`Adapters/Apple/AppleBatch.swift`, `Adapters/Play/PlayBatch.swift`).
extension Ledger {
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
        // an item verified for that bundle: a batch is of one app, each adapter's batch checks its
        // own) and, on PostgreSQL, every item.
        var ahead: [PendingItem] = []
        for i in 0..<count {
            if case let .success(verified) = try item(i) {
                ahead.append(verified)
                if store.backend != .postgresql, !allBeforeWrite { break }
            }
        }
        if let first = ahead.first { try bindApp(first.appID, store: first.kind.store) }
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
}
