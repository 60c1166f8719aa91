import CSQLite
import Glibc
import GateKitSupport

/// One SQLite connection with a cache of prepared statements. Not thread-safe by itself:
/// `Store` serializes every use behind its lock.
package final class SQLiteConnection: DatabaseConnection {
    package var dialect: SQLDialect { .sqlite }
    let db: OpaquePointer
    /// libsqlite3's functions (loaded by the first open).
    let sqlite: UnsafePointer<gk_sqlite>
    package let path: String
    private var cache: [StatementText: SQLiteStatement] = [:]

    /// How the file is opened. On a read-only file system no -shm can be made: a store whose
    /// write-ahead log still holds decisions is read with it (its -shm must exist), any
    /// other as immutable.
    enum Access { case readWrite, readOnlyWithLog, readOnlyImmutable }

    /// Opens `path` (read-write: SQLite falls back to read-only for a read-only file).
    init(path: String, access: Access = .readWrite) throws(GateKitError) {
        let sqlite = try SQLiteLibrary.functions()
        var handle: OpaquePointer?
        // NOMUTEX: Store's own lock already serializes; EXRESCODE: precise errors.
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        if access != .readWrite {
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_URI
            name = "file:" + SQLiteConnection.uriPath(path) + (access == .readOnlyWithLog ? "?mode=ro" : "?mode=ro&immutable=1")
        }
        let rc = sqlite.pointee.open_v2(name, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite.pointee.errmsg($0) }.map { String(cString: $0) } ?? "out of memory"
            _ = sqlite.pointee.close_v2(handle)
            throw SQLiteConnection.classify(rc, "cannot open store \(Quoted.path(path)): \(message)")
        }
        db = handle
        self.sqlite = sqlite
        self.path = path
    }

    /// True when SQLite opened the file for reading only.
    var isReadOnly: Bool { sqlite.pointee.db_readonly(db, "main") == 1 }

    /// A path as the path of a `file:` URI: every byte but unreserved ones and '/' escaped.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + Hex.encode(CollectionOfOne(b))
            }
        }
        return out
    }

    deinit {
        cache.removeAll()  // statements finalize before the connection closes
        _ = sqlite.pointee.close_v2(db)
    }

    /// Maps an SQLite result code onto GateKit's stable codes.
    static func classify(_ rc: Int32, _ message: String) -> GateKitError {
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: GateKitError(.EBUSY, message)
        case SQLITE_CORRUPT: GateKitError(.ECORRUPT, message)
        case SQLITE_NOTADB: GateKitError(.ENOTSTORE, message)
        case SQLITE_READONLY: GateKitError(.EREADONLY, message)
        case SQLITE_NOMEM: GateKitError(.ENOMEM, message)
        case SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PERM: GateKitError(.EIO, message)
        case SQLITE_TOOBIG: GateKitError(.ETOOLARGE, message)
        default: GateKitError(.EINTERNAL, message)
        }
    }

    func error(_ rc: Int32, _ context: String) -> GateKitError {
        SQLiteConnection.classify(rc, "\(context): \(sqlite.pointee.errmsg(db).map { String(cString: $0) } ?? "no message") (SQLite \(rc))")
    }

    package func execute(_ sql: String) throws(GateKitError) {
        let rc = sqlite.pointee.exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "cannot execute '\(sql.prefix(60))'") }
    }

    /// A cached prepared statement, reset and with bindings cleared.
    /// One statement whatever the copy: a read costs no round trip here.
    package func statement(_ sql: String, copy: Int) throws(GateKitError) -> any DatabaseStatement { try statement(sql) }

    package func statement(_ sql: String) throws(GateKitError) -> any DatabaseStatement {
        try sqliteStatement(sql)
    }

    func sqliteStatement(_ sql: String) throws(GateKitError) -> SQLiteStatement {
        let key = StatementText(sql: sql)
        if let s = cache[key] {
            s.reset()
            return s
        }
        var handle: OpaquePointer?
        let rc = sqlite.pointee.prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            // GateKit's own SQL names only what its schema version created: a table or column
            // that is missing means the file's schema was damaged (a flipped byte in it).
            let message = sqlite.pointee.errmsg(db).map { String(cString: $0) } ?? ""
            if rc & 0xFF == SQLITE_ERROR, message.hasPrefix("no such table") || message.hasPrefix("no such column") {
                throw GateKitError(.ECORRUPT, "the store's schema does not hold what its version says (\(message)): the file is damaged")
            }
            throw error(rc, "cannot prepare statement")
        }
        let s = SQLiteStatement(handle, connection: self, sqlite: sqlite)
        cache[key] = s
        return s
    }

    /// Changes whenever another connection commits to the database (`PRAGMA data_version`).
    package func dataVersion() throws(GateKitError) -> Int64 {
        try scalar("PRAGMA data_version")
    }

    /// True when the database file was deleted or replaced since it was opened: SQLite would
    /// keep writing to the orphaned inode and every later decision would be lost.
    func fileHasMoved() -> Bool {
        var moved: Int32 = 0
        let rc = sqlite.pointee.file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return rc == SQLITE_OK && moved != 0
    }
}

/// A prepared statement. Columns and parameters are 0- and 1-based, as in SQLite.
package final class SQLiteStatement: DatabaseStatement {
    /// A read costs no round trip here (`DatabaseStatement.prefetch`).
    package func prefetch() {}

    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    /// The connection's table, kept here: every read of an unowned reference is a pair of atomic
    /// operations, and a statement calls SQLite several times per row.
    private let sqlite: UnsafePointer<gk_sqlite>

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sqlite: UnsafePointer<gk_sqlite>) {
        self.handle = handle
        self.connection = connection
        self.sqlite = sqlite
    }

    deinit { _ = sqlite.pointee.finalize(handle) }

    package func reset() {
        _ = sqlite.pointee.reset(handle)
        _ = sqlite.pointee.clear_bindings(handle)
    }

    @discardableResult
    package func bind(_ index: Int32, _ value: Int64) -> Self {
        _ = sqlite.pointee.bind_int64(handle, index, value)
        return self
    }

    /// An optional integer: nil binds NULL.
    @discardableResult
    package func bind(_ index: Int32, _ value: Int64?) -> Self {
        guard let value else {
            _ = sqlite.pointee.bind_null(handle, index)
            return self
        }
        return bind(index, value)
    }

    @discardableResult
    package func bind(_ index: Int32, text: String?) -> Self {
        if let text {
            _ = sqlite.pointee.bind_text(handle, index, text, -1, gk_sqlite_transient())
        } else {
            _ = sqlite.pointee.bind_null(handle, index)
        }
        return self
    }

    @discardableResult
    package func bind(_ index: Int32, blob: [UInt8]?) -> Self {
        guard let blob else {
            _ = sqlite.pointee.bind_null(handle, index)
            return self
        }
        blob.withUnsafeBytes { b in
            // A zero-length blob still binds as a blob (not NULL): a non-NULL base pointer.
            let base = b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
            _ = sqlite.pointee.bind_blob64(handle, index, base, sqlite3_uint64(b.count), gk_sqlite_transient())
        }
        return self
    }

    /// Advances: true with a row, false when done.
    package func step() throws(GateKitError) -> Bool {
        let rc = sqlite.pointee.step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let e = connection.error(rc, "statement failed")
            _ = sqlite.pointee.reset(handle)
            throw e
        }
    }

    /// Runs a statement that returns no rows.
    package func run() throws(GateKitError) {
        defer { _ = sqlite.pointee.reset(handle) }
        while try step() {}
    }

    package func int64(_ column: Int32) -> Int64 { sqlite.pointee.column_int64(handle, column) }

    package func isNull(_ column: Int32) -> Bool { sqlite.pointee.column_type(handle, column) == SQLITE_NULL }

    package func text(_ column: Int32) -> String? {
        guard let p = sqlite.pointee.column_text(handle, column) else { return nil }
        let n = Int(sqlite.pointee.column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    package func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let n = Int(sqlite.pointee.column_bytes(handle, column))
        guard n > 0, let p = sqlite.pointee.column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
