import GateKitSupport

/// A GateKit store: the embedded SQLite file (the default) or a schema on a PostgreSQL server
/// (a `postgresql://` URI or a libpq key=value string), behind one API with one meaning.
///
/// Every use of a handle is serialized behind its own lock, so a handle is safe across
/// threads; writes are transactions that are durable when `write` returns.
public final class Store: @unchecked Sendable {
    // Usable from inline: `read` and `write` are the hot path of every layer above, and a
    // generic call across a module boundary is not specialized unless its body is visible.
    @usableFromInline let engine: any StoreEngine
    /// The file's path, or for PostgreSQL the server and database as a URI without its password.
    public var path: String { engine.location }
    /// Opened for reading only (a read-only file or file system): every write is `.EREADONLY`.
    public var isReadOnly: Bool { engine.isReadOnly }
    public var backend: StoreBackend { engine.backend }

    /// The schema it was opened with: its migrations have all run.
    public let schema: StoreSchema

    /// `schema`: the migrations to run (the library's is `StoreSchema.gatekit`); a store
    /// already past them is `.ENEWER`. `mustExist`: open only a store that exists
    /// (`.ENOTFOUND` otherwise, and nothing is created: for read-only questions such as "was
    /// this accepted?").
    /// `listenURI`: for a PostgreSQL store behind a connection pooler, a direct connection to
    /// the same server and database on which other clients' commits are heard (LISTEN needs a
    /// session of its own); `.EINVAL` anywhere else.
    public init(schema: StoreSchema, path: String?, appID: String?, sharing: StoreSharing = .ownerOnly, mustExist: Bool = false,
                listenURI: String? = nil) throws(GateKitError) {
        self.schema = schema
        let resolved = try StorePath.resolve(path: path, appID: appID)
        if PostgresConnectionString.isConnectionString(resolved) {
            // Group sharing on PostgreSQL: the schema may be owned by a role the connecting role
            // is a member of (a team's owner role), as a group-shared file may be another's.
            engine = try PostgresStore(connectionString: resolved, appID: appID ?? StorePath.defaultPostgresAppID,
                                       sharedOwner: sharing == .group, mustExist: mustExist, listenURI: listenURI, schema: schema)
        } else {
            if listenURI != nil { throw GateKitError(.EINVAL, "a listen URI is for a PostgreSQL store behind a connection pooler, not for the SQLite file \(Quoted.text(resolved))") }
            engine = try SQLiteStore(file: resolved, sharing: sharing, mustExist: mustExist, schema: schema)
        }
    }

    /// Runs `body` under the handle's lock, outside any explicit transaction: each statement
    /// sees the latest committed data.
    @inlinable
    public func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try engine.read(body)
    }

    /// Runs `body` under the handle's lock in one read-only transaction, so every statement
    /// sees the same snapshot of the store (SQLite: a deferred transaction; PostgreSQL:
    /// REPEATABLE READ). For reads in many statements that must agree, such as an export
    /// read page by page; other writers are not held up.
    public func snapshot<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try engine.snapshot(body)
    }

    /// Runs `body` in one write transaction, committing on success and rolling back on error;
    /// conflicts with other writers are retried, so `body` may run more than once and must
    /// only touch the database. When `write` returns, the transaction is durable.
    /// `scope` names what `body` reads to decide what it writes: writers of overlapping scopes
    /// run one at a time (SQLite runs every writer one at a time anyway).
    @inlinable
    public func write<T>(_ scope: WriteScope = .wholeStore, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try engine.write(scope, body)
    }

    /// An empty list means the store is sound.
    public func integrityReport(quick: Bool = false) throws(GateKitError) -> [String] {
        try engine.integrityReport(quick: quick)
    }

    /// The socket on which other clients' commit notifications arrive (PostgreSQL), for a
    /// thread that waits for them with poll(2); nil for SQLite or while disconnected.
    public func notificationSocket() -> Int32? { engine.notificationSocket() }

    /// A probe for commits by other connections, for caches kept per handle.
    public func makeChangeProbe() -> any ChangeProbe { engine.makeChangeProbe() }

    public var schemaVersion: Int64 { schema.currentVersion }
}

public enum StoreBackend: Sendable { case sqlite, postgresql }

/// What a write transaction must have to itself.
public enum WriteScope: Sendable {
    /// Everything: no other whole-store writer runs at the same time.
    case wholeStore
    /// No other writer at all runs at the same time (on PostgreSQL every subject's slot is
    /// taken): what commits before this write is everything with a smaller row id, so a
    /// watermark of ids read inside it misses nothing (the metrics' roll-up).
    case everyWriter
    /// Only these subjects (e.g. one subscription's original transaction id); an empty list
    /// for a write that only appends rows no other write reads to decide (an EULA decision).
    case subjects([String])
    /// Exactly one statement on PostgreSQL, writing tables no cache reads (an EULA decision and
    /// its chain link): atomic by itself, so it runs without a transaction of its own — one
    /// round trip. (SQLite runs the body in a transaction, as every write.)
    case singleInsert
    /// A `singleInsert` that appends the next link of `subject`'s chain (an EULA decision):
    /// tried alone first; a writer that lost the race for the link queues on the subject's
    /// lock for its later attempts, instead of racing the same writers again until it gives up.
    /// The try alone must not overtake a queued writer: on PostgreSQL its statement takes the
    /// subject's lock row with `SKIP LOCKED` (`chainLockSlot`) and, finding it held, writes
    /// nothing and throws `chainLinkQueued`, which queues it too.
    case chainLink(subject: String)

    /// The row of PostgreSQL's `gatekit_locks` that writes of `subject` lock.
    package static func chainLockSlot(_ subject: String) -> Int64 { PostgresNamespace.lockSlot(subject) }
}

extension GateKitError {
    /// A `chainLink` write's try alone found the chain's lock held by a queued writer.
    package static let chainLinkQueued = GateKitError(.EBUSY, "another writer of this chain holds its lock; the write queues behind it")
}

/// One storage engine behind `Store`.
@usableFromInline
protocol StoreEngine: AnyObject {
    var location: String { get }
    var isReadOnly: Bool { get }
    var backend: StoreBackend { get }
    func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T
    func write<T>(_ scope: WriteScope, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T
    func snapshot<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T
    func integrityReport(quick: Bool) throws(GateKitError) -> [String]
    func makeChangeProbe() -> any ChangeProbe
    func notificationSocket() -> Int32?
}
