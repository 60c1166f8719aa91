import GateKitStore
import GateKitSupport

extension Ledger {
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
        /// What the items recorded so far say their payments paid for (where a store answers
        /// payments apart): not sent yet either, so a later item of the transaction reads them here.
        var paymentLinks: [PaymentLink] = []

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
}
