import CPostgres
import Glibc

/// libpq, loaded with `dlopen` on the first PostgreSQL open (the CPostgres shim says why).
enum PostgresLibrary {
    nonisolated(unsafe) private static let loaded: Result<UnsafePointer<gk_pq>, GateKitError> = load()

    /// libpq's functions; the same table for the life of the process.
    static func functions() throws(GateKitError) -> UnsafePointer<gk_pq> { try loaded.get() }

    private static func load() -> Result<UnsafePointer<gk_pq>, GateKitError> {
        var reasons: [String] = []
        for name in ["libpq.so.5", "libpq.so"] {
            guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            let table = UnsafeMutablePointer<gk_pq>.allocate(capacity: 1)
            if let missing = gk_pq_bind(library, table) {
                table.deallocate()
                return .failure(GateKitError(.connection, "\(name) lacks \(String(cString: missing)); a PostgreSQL store needs libpq 10 or later"))
            }
            return .success(UnsafePointer(table))
        }
        return .failure(GateKitError(.connection, "a PostgreSQL store needs libpq, which cannot be loaded (\(reasons.joined(separator: "; "))); install it (Debian: libpq5)"))
    }
}
