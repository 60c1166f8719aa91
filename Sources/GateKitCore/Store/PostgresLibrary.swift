import CPostgres
import GateKitSupport

/// libpq, loaded on the first PostgreSQL open (the CPostgres shim says why).
enum PostgresLibrary {
    nonisolated(unsafe) private static let loaded = LazyLibrary.load(
        ["libpq.so.5", "libpq.so"], code: .ECONNECTION, install: "Debian: libpq5", bind: { gk_pq_bind($0, $1) })

    /// libpq's functions; the same table for the life of the process.
    static func functions() throws(GateKitError) -> UnsafePointer<gk_pq> { try loaded.get() }
}
