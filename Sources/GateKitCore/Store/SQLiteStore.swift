import CSQLite
import Glibc
import GateKitSupport

/// The embedded SQLite store: WAL, `synchronous=FULL`, a schema version with forward-only
/// migrations, every use serialized behind one lock so a handle is safe across threads,
/// and busy retries so processes sharing the file never see "database is locked".
///
/// A file that is not a GateKit store, is corrupt, or comes from a newer schema is refused
/// before anything is written to it.
final class SQLiteStore: StoreEngine, @unchecked Sendable {
    var backend: StoreBackend { .sqlite }
    let path: String
    var location: String { path }
    /// Opened for reading only (a read-only file or file system): every write is `.EREADONLY`.
    let isReadOnly: Bool
    private let lock = Lock()
    private let connection: SQLiteConnection
    private let schema: StoreSchema

    /// How long SQLite waits on a lock held by another connection before a retry round.
    static let busyTimeoutMilliseconds: Int32 = 5000
    /// Whole-transaction retries after SQLite's own busy wait gave up.
    static let busyRetries = 6

    init(file resolved: String, sharing: StoreSharing, mustExist: Bool = false, schema: StoreSchema) throws(GateKitError) {
        self.schema = schema
        if mustExist {
            var st = stat()
            guard lstat(resolved, &st) == 0 else {
                throw GateKitError(.ENOTFOUND, "store \(Quoted.path(resolved)) does not exist (nothing was created)")
            }
        }
        try StorePath.createParentFolders(of: resolved, mode: sharing.folderMode)
        let facts = try StoreFiles.secure(resolved, sharing: sharing)
        try SQLiteStore.refuseNonStoreFile(resolved, size: facts.size)
        self.path = resolved
        connection = try SQLiteConnection(path: resolved, access: facts.access)
        isReadOnly = connection.isReadOnly
        _ = connection.sqlite.pointee.busy_timeout(connection.db, SQLiteStore.busyTimeoutMilliseconds)
        try prepare()
    }

    /// Refuses a file (a regular one: `StoreFiles` checked) that does not start like an SQLite
    /// database, without letting SQLite touch it.
    private static func refuseNonStoreFile(_ path: String, size: Int64) throws(GateKitError) {
        guard size > 0 else { return }  // empty: SQLite treats it as a new database
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot read store \(Quoted.path(path)): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = header.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 100) }
        let magic = Array("SQLite format 3\0".utf8)
        guard n >= 16, Array(header[0..<16]) == magic else {
            throw GateKitError(.ENOTSTORE, "\(Quoted.path(path)) is not a GateKit store (not an SQLite database); left untouched")
        }
        guard n == 100 else { throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) is truncated (\(size) bytes); left untouched") }
        // SQLite writes whole pages; a partial last page would be read back zero-filled and
        // pass the integrity check while its records silently changed.
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        let bytesPerPage = pageSize == 1 ? 65536 : pageSize
        guard bytesPerPage >= 512, Int(size) % bytesPerPage == 0 else {
            throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) is truncated or damaged (\(size) bytes is not a whole number of \(bytesPerPage)-byte pages); left untouched")
        }
    }

    /// Classifies the file (read-only queries), then configures and migrates it.
    private func prepare() throws(GateKitError) {
        let untouched = "; left untouched"
        let appID: Int64, version: Int64, objects: Int64
        do {
            // One read transaction, so the three answers come from one snapshot: another
            // process may be creating this very file, and reads between its commit would see
            // tables without the application id ("not a GateKit store").
            try connection.execute("BEGIN")
            defer { _ = connection.sqlite.pointee.exec(connection.db, "COMMIT", nil, nil, nil) }
            appID = try connection.scalar("PRAGMA application_id")
            version = try connection.scalar("PRAGMA user_version")
            objects = try connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            throw GateKitError(error.code, error.message + untouched)
        }
        let isNew = appID == 0 && version == 0 && objects == 0
        if !isNew {
            guard appID == StoreFormat.applicationID else {
                throw GateKitError(.ENOTSTORE, "\(Quoted.path(path)) is an SQLite database but not a GateKit store\(untouched)")
            }
            guard version <= schema.currentVersion else {
                throw GateKitError(.ENEWER, "store \(Quoted.path(path)) has schema version \(version); this GateKit (\(GateKitVersion.string)) reads up to \(schema.currentVersion)\(untouched)")
            }
            // PRAGMA user_version is a signed 32-bit number: no GateKit ever wrote a negative one
            // (found by the store-file fuzz smoke: it indexed the migrations out of range).
            guard version >= 0 else {
                throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) has schema version \(version), which no GateKit writes\(untouched)")
            }
        }
        // Checked for "new" (schema-less) databases too: a damaged empty SQLite file would
        // otherwise be switched to WAL and written before the migration notices (found by
        // the store-file fuzz target; Tests/fuzz-regressions/store-file/).
        let check = try integrityReport(quick: true)
        guard check.isEmpty else {
            throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) is corrupt: \(check.prefix(3).joined(separator: "; "))\(untouched)")
        }
        try connection.execute("PRAGMA synchronous=FULL")
        if isReadOnly {
            // Nothing may be written: the store must already be current, in whatever journal mode.
            guard version == schema.currentVersion else {
                throw GateKitError(.EREADONLY, "store \(Quoted.path(path)) has schema version \(version) and needs migrating to \(schema.currentVersion), but it is read-only; open it once where it can be written\(untouched)")
            }
            return
        }
        // Migrate before switching to WAL: a migration that fails rolls back its transaction
        // and leaves the main file as it was, while the journal-mode switch rewrites the header
        // (found by the store-file fuzz target: a store whose schema does not match its version).
        if version < schema.currentVersion {
            do {
                try migrate()
            } catch where error.code == .EINTERNAL && !isNew {
                throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) does not have the schema its version \(version) promises (\(error.message))\(untouched)")
            }
        }
        try retryingBusy { () throws(GateKitError) in
            let mode = try connection.sqliteStatement("PRAGMA journal_mode=WAL")
            guard try mode.step(), mode.text(0) == "wal" else {
                throw GateKitError(.EIO, "store \(Quoted.path(path)) cannot use write-ahead logging")
            }
            mode.reset()
        }
    }

    private func migrate() throws(GateKitError) {
        try write { (db) throws(GateKitError) in
            // Re-read inside the write lock: another process may have migrated meanwhile.
            let appID = try db.scalar("PRAGMA application_id")
            var version = try db.scalar("PRAGMA user_version")
            let objects = try db.scalar("SELECT count(*) FROM sqlite_master")
            guard appID == StoreFormat.applicationID || (appID == 0 && version == 0 && objects == 0) else {
                throw GateKitError(.ENOTSTORE, "\(Quoted.path(path)) is not a GateKit store")
            }
            guard version <= schema.currentVersion else { throw GateKitError(.ENEWER, "store \(Quoted.path(path)) was migrated by a newer GateKit") }
            guard version >= 0 else { throw GateKitError(.ECORRUPT, "store \(Quoted.path(path)) has schema version \(version), which no GateKit writes") }
            while version < schema.currentVersion {
                try schema.migrations[Int(version)].run(db)
                version += 1
            }
            try db.execute("PRAGMA application_id=\(StoreFormat.applicationID)")
            try db.execute("PRAGMA user_version=\(version)")
            try StoreFormat.recordWriter(db)
        }
    }

    /// Runs `body` under the handle's lock, outside any explicit transaction.
    func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try lock.withLock { () throws(GateKitError) -> T in try body(connection) }
    }

    /// A deferred transaction: its first read fixes the snapshot.
    func snapshot<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try read { (db) throws(GateKitError) -> T in try db.transaction("BEGIN", body) }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so
    /// no deadlock-prone upgrade), committing on success and rolling back on error. A busy
    /// store is retried; when `write` returns, the transaction is durable.
    /// `scope` does not matter here: SQLite runs one writer at a time.
    func write<T>(_ scope: WriteScope = .wholeStore, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        guard !isReadOnly else {
            throw GateKitError(.EREADONLY, "store \(Quoted.path(path)) is open read-only (a read-only file or file system); nothing was written")
        }
        return try lock.withLock { () throws(GateKitError) -> T in
            try retryingBusy { () throws(GateKitError) -> T in
                try connection.execute("BEGIN IMMEDIATE")
                do throws(GateKitError) {
                    // Checked under the write lock: a store deleted or replaced while open
                    // would silently swallow every later write.
                    guard !connection.fileHasMoved() else {
                        throw GateKitError(.EIO, "store file \(Quoted.path(path)) was deleted or replaced while open; nothing was written (reopen the store)")
                    }
                    let result = try body(connection)
                    try connection.execute("COMMIT")
                    return result
                } catch {
                    _ = connection.sqlite.pointee.exec(connection.db, "ROLLBACK", nil, nil, nil)
                    throw error
                }
            }
        }
    }

    private func retryingBusy<T>(_ attempt: () throws(GateKitError) -> T) throws(GateKitError) -> T {
        var round = 0
        while true {
            do {
                return try attempt()
            } catch where error.code == .EBUSY && round < SQLiteStore.busyRetries {
                round += 1
                usleep(UInt32(1000 * (1 << min(round, 6))))  // 2 ms … 64 ms, then SQLite waits again
            }
        }
    }

    /// `PRAGMA integrity_check` (or `quick_check`): an empty list means the store is sound.
    func integrityReport(quick: Bool = false) throws(GateKitError) -> [String] {
        try lock.withLock { () throws(GateKitError) -> [String] in
            do throws(GateKitError) {
                let s = try connection.sqliteStatement(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check")
                defer { s.reset() }
                var problems: [String] = []
                while try s.step() {
                    let line = s.text(0) ?? ""
                    if line != "ok" { problems.append(line) }
                }
                return problems
            } catch where error.code == .EINTERNAL {
                // A schema the check cannot even compile (e.g. a bit flip turned a CHECK
                // constraint's `length()` into an unknown function) is damage, not a bug.
                return ["the integrity check cannot run: \(error.message)"]
            }
        }
    }

    func makeChangeProbe() -> any ChangeProbe { DataVersionProbe(connection) }

    func notificationSocket() -> Int32? { nil }
}
