import GateKitStore
import GateKitSupport

/// PostgreSQL: the reads recording will make, sent ahead so a batch's items share round trips.
extension Ledger {
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
        if state?.records[original] == nil { try LedgerRows.prefetchCompactedRecord(db, original: original, scope: item.scope, copy: copy) }
        if state?.answers[RecordingState.answersKey(item.scope, original)] == nil {
            try ChangeFeedRows.prefetchStored(db, scope: item.scope, original: original, copy: copy)
        }
        // An item that links an app account writes the link before the parties are read: a
        // read sent ahead would miss it (the feed's first change would name no app account).
        guard item.accountLink == nil else { return }
        // The token the subscription will have: the item's, else the one it had.
        let token = item.transactions.lazy.filter { $0.0.purchaseID == original }.compactMap(\.0.appAccountToken).first
            ?? state?.records[original].flatMap { ChangeFeedRows.newestToken($0, original: original) }
        try ChangeFeedRows.prefetchParties(db, scope: item.scope, original: original, token: token, copy: copy)
    }
}
