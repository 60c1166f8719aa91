import Synchronization

/// Commits made by the PostgreSQL handles of this process, per store (server, database and
/// schema): handles in one process see each other's commits at once, as on SQLite, while other
/// processes and machines learn of them through NOTIFY (asynchronously).
final class LocalCommits: Sendable {
    private let count = Atomic<UInt64>(0)

    func announce() { count.wrappingAdd(1, ordering: .releasing) }
    var total: UInt64 { count.load(ordering: .acquiring) }

    /// The one counter of a store in this process.
    static func of(_ store: String) -> LocalCommits {
        registry.withLock { counters in
            if let existing = counters[store] { return existing }
            let made = LocalCommits()
            counters[store] = made
            return made
        }
    }

    private static let registry = Mutex<[String: LocalCommits]>([:])
}
