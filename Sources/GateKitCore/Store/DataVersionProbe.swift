import CSQLite
import Glibc
import GateKitSupport

/// Answers, for one connection, "did another connection commit since I last asked?"
///
/// `PRAGMA data_version` is the authority, but each call opens a read transaction (two
/// `fcntl` calls). A copy of the WAL-index header (shared memory that
/// every commit rewrites) filters out the common "nothing happened" case with a memory read;
/// only a changed header runs the pragma. Use only under the store's lock.
final class DataVersionProbe: ChangeProbe {
    private unowned let db: SQLiteConnection
    private static let headerBytes = Int(GK_WAL_INDEX_HEADER_WORDS) * MemoryLayout<UInt32>.size
    private var index: UnsafeRawPointer?
    private let lastHeader: UnsafeMutablePointer<UInt32>
    private let header: UnsafeMutablePointer<UInt32>
    private var version: Int64?

    init(_ db: SQLiteConnection) {
        self.db = db
        let words = Int(GK_WAL_INDEX_HEADER_WORDS)
        lastHeader = .allocate(capacity: words)
        lastHeader.initialize(repeating: 0, count: words)
        header = .allocate(capacity: words)
        header.initialize(repeating: 0, count: words)
    }

    deinit {
        lastHeader.deallocate()
        header.deallocate()
    }

    /// True on the first call and whenever another connection (of this or another process)
    /// committed since the previous call. Commits through `db` itself do not count.
    func changed() throws(GateKitError) -> Bool {
        if index == nil { index = gk_wal_index(db.sqlite, db.db) }
        if let index {
            // Read the header before the pragma: a commit landing in between is then seen
            // by the pragma now and by a header mismatch next time, never lost.
            gk_wal_index_header(index, header)
            if version != nil && memcmp(header, lastHeader, DataVersionProbe.headerBytes) == 0 { return false }
        }
        let current = try db.dataVersion()
        if index != nil { lastHeader.update(from: header, count: Int(GK_WAL_INDEX_HEADER_WORDS)) }
        defer { version = current }
        return version != current
    }

    /// Forgets what was seen: the next `changed` answers true.
    func invalidate() { version = nil }
}
