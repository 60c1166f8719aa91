/// A GateKit store: the embedded SQLite file (the default) or a schema on a PostgreSQL server
/// (a `postgresql://` URI or a libpq key=value string), behind one API with one meaning.
///
/// Every use of a handle is serialized behind its own lock, so a handle is safe across
/// threads; writes are transactions that are durable when `write` returns.
public final class Store: @unchecked Sendable {
    private let engine: any StoreEngine
    /// The file's path, or for PostgreSQL the server and database as a URI without its password.
    public var path: String { engine.location }
    /// Opened for reading only (a read-only file or file system): every write is `.readOnly`.
    public var isReadOnly: Bool { engine.isReadOnly }
    public var backend: StoreBackend { engine.backend }

    public init(path: String?, appID: String?, sharing: StoreSharing = .ownerOnly) throws(GateKitError) {
        let resolved = try StorePath.resolve(path: path, appID: appID)
        if PostgresConnectionString.isConnectionString(resolved) {
            guard sharing == .ownerOnly else {
                throw .invalid("group sharing is a file-mode setting and has no meaning for a PostgreSQL store (the server's roles decide who reads it)")
            }
            engine = try PostgresStore(connectionString: resolved, appID: appID ?? StorePath.defaultPostgresAppID)
        } else {
            engine = try SQLiteStore(file: resolved, sharing: sharing)
        }
    }

    /// Runs `body` under the handle's lock, outside any explicit transaction: each statement
    /// sees the latest committed data.
    public func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try engine.read(body)
    }

    /// Runs `body` in one write transaction, committing on success and rolling back on error;
    /// conflicts with other writers are retried, so `body` may run more than once and must
    /// only touch the database. When `write` returns, the transaction is durable.
    public func write<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try engine.write(body)
    }

    /// An empty list means the store is sound.
    public func integrityReport(quick: Bool = false) throws(GateKitError) -> [String] {
        try engine.integrityReport(quick: quick)
    }

    /// A probe for commits by other connections, for caches kept per handle.
    public func makeChangeProbe() -> any ChangeProbe { engine.makeChangeProbe() }

    public var schemaVersion: Int64 { Schema.currentVersion }
}

public enum StoreBackend: Sendable { case sqlite, postgresql }

/// One storage engine behind `Store`.
protocol StoreEngine: AnyObject {
    var location: String { get }
    var isReadOnly: Bool { get }
    var backend: StoreBackend { get }
    func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T
    func write<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T
    func integrityReport(quick: Bool) throws(GateKitError) -> [String]
    func makeChangeProbe() -> any ChangeProbe
}
