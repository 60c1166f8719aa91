import CSQLite
import GateKitSupport

/// libsqlite3, loaded on the first store open (the CSQLite shim says why).
enum SQLiteLibrary {
    nonisolated(unsafe) private static let loaded = LazyLibrary.load(
        ["libsqlite3.so.0", "libsqlite3.so"], code: .EIO, install: "Debian: libsqlite3-0", bind: { gk_sqlite_bind($0, $1) })

    /// SQLite's functions; the same table for the life of the process.
    static func functions() throws(GateKitError) -> UnsafePointer<gk_sqlite> { try loaded.get() }
}
