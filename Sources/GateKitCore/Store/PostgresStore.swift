import Glibc
import GateKitSupport

/// The store on a PostgreSQL server: one namespace per app id (`PostgresNamespace`), versioned
/// and migrated like the SQLite file, with every commit announced on a LISTEN/NOTIFY channel
/// so caches in other processes and machines stay coherent without a round trip per read.
///
/// Writes are READ COMMITTED transactions that first lock their `WriteScope`'s rows of the
/// app's `gatekit_locks` table (sorted, so never a deadlock): writers of one subject run one at a
/// time, as on SQLite, while writers of different subjects (two subscriptions, two EULA
/// decisions) run in parallel. SERIALIZABLE was measured first: its page-level predicate
/// locks failed unrelated ledger ingestions with 4 writers after 10 retries.
///
/// Behind a connection pooler (`PostgresPooler`) every read and write is a transaction that sets
/// the store's search path and the connection's settings itself, with unnamed statements; other
/// clients' commits arrive on a direct `listener` connection when the host names one, and are
/// otherwise never cached (each read asks the server).
///
/// Network: every call may block on the server, bounded by the connection's timeouts
/// (`connect_timeout`, 10 s by default; `statement_timeout`, 30 s by default; both settable in
/// the connection string or `PG*` variables).
final class PostgresStore: StoreEngine, @unchecked Sendable {
    var backend: StoreBackend { .postgresql }
    var isReadOnly: Bool { false }
    var location: String { lock.withLock { connection.location } }
    let appID: String
    /// The app's namespace, quoted; also the notification channel.
    private let namespace: String
    private let lock = Lock()
    private let connection: PostgresConnection
    /// Behind a pooler, the direct connection that LISTENs for other clients' commits (the
    /// host's listen URI); nil when the store's own connection listens, or nothing does.
    private let listener: PostgresConnection?
    /// This handle's commits name it in their notification, so its listener skips them.
    private let notificationToken = Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255) })
    /// This process's commits to this store, and how many of them were this handle's.
    private let localCommits: LocalCommits
    private var ownCommits: UInt64 = 0

    /// Whole-transaction attempts on serialization failures, deadlocks and a connection that
    /// broke before COMMIT, before the error is returned.
    static let writeAttempts = 10

    /// Objects may be owned by one role the connecting role is a member of (`StoreSharing.group`).
    private let sharedOwner: Bool
    private let schema: StoreSchema

    /// `listenURI`: behind a pooler, a connection string reaching the same server and database
    /// directly, used only to LISTEN (refused for a store not behind a pooler, and unless
    /// this store's notifications arrive on it).
    init(connectionString: String, appID: String, sharedOwner: Bool = false, mustExist: Bool = false, listenURI: String? = nil,
         schema: StoreSchema) throws(GateKitError) {
        try StorePath.validateAppID(appID)
        self.schema = schema
        self.appID = appID
        self.sharedOwner = sharedOwner
        let name = try PostgresNamespace.namespace(appID: appID)
        namespace = PostgresNamespace.quoted(name)
        connection = try PostgresConnection(connectionString: connectionString, namespace: namespace, listen: true)
        if let listenURI {
            guard connection.pooled else {
                throw GateKitError(.EINVAL, "a listen URI is for a store behind a connection pooler, and \(connection.location) is the server itself, whose connection listens for commits already: leave the listen URI out")
            }
            listener = try PostgresConnection(connectionString: listenURI, namespace: namespace, listen: true, mustBeDirect: true)
            listener?.ownPayload = notificationToken
        } else {
            listener = nil
        }
        localCommits = LocalCommits.of(connection.location + "/" + name)
        if mustExist, case .new = try lock.withLock({ () throws(GateKitError) -> Found in try inTransaction { () throws(GateKitError) in try inspect(name) } }) {
            throw GateKitError(.ENOTFOUND, "app \(Quoted.text(appID)) has no store in \(connection.location) (nothing was created)")
        }
        try prepare(name)
        if let listener { try checkListener(listener) }
    }

    /// The listen connection receives this store's commits: it names the same database of a
    /// server started at the same instant, and a notification sent through the store's
    /// connection arrives on it within 5 s; otherwise the URI reaches another server or
    /// database and is refused.
    private func checkListener(_ listener: PostgresConnection) throws(GateKitError) {
        let probe = "check-" + Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255) })
        try lock.withLock { () throws(GateKitError) in
            let identity = "SELECT current_database() || ' started ' || pg_postmaster_start_time()"
            let (stores, hears) = (try connection.firstText(identity), try listener.firstText(identity))
            guard stores == hears else {
                throw GateKitError(.EINVAL, "the listen URI (\(listener.location)) reaches \(Quoted.text(hears)), not the store's \(Quoted.text(stores)): it must reach the same server and database as the store's connection, directly")
            }
            try connection.beginPipelined(PostgresStore.writeBegin)
            do throws(GateKitError) {
                try connection.commitPipelined(after: "NOTIFY \(namespace), '\(probe)'")
            } catch {
                connection.abandonPipeline()
                throw error
            }
            guard listener.awaitNotification(payload: probe, milliseconds: 5_000) else {
                throw GateKitError(.EINVAL, "the listen URI (\(listener.location)) did not receive this store's notification within 5 s: it must reach the same server and database as the store's connection (\(connection.location)), directly")
            }
        }
    }

    /// Behind a pooler, `body` in a transaction of its own (the search path is set per
    /// transaction); directly, as it is.
    private func inTransaction<T>(_ body: () throws(GateKitError) -> T) throws(GateKitError) -> T {
        guard connection.pooled else { return try body() }
        try connection.begin()
        do throws(GateKitError) {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private enum Found {
        case new
        case store(version: Int64)
    }

    /// What the namespace holds; refuses anything that is not this app's GateKit store.
    private func inspect(_ name: String) throws(GateKitError) -> Found {
        let db = connection
        let where_ = "\(Quoted.text(name)) in \(connection.location)"
        // One statement, one snapshot: asked in two, another client's migration committing in
        // between showed its tables without gatekit_meta ("not a GateKit store").
        let meta = try db.statement("""
            SELECT (SELECT count(*) FROM pg_tables WHERE schemaname = ?1 AND tablename = 'gatekit_meta'),
                   (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?1),
                   (SELECT count(*) FROM pg_namespace WHERE nspname = ?1)
            """)
        guard try meta.bind(1, text: name).step() else { throw GateKitError(.EINTERNAL, "the catalog query returned no row") }
        let (hasMeta, objects, exists) = (meta.int64(0) == 1, meta.int64(1), meta.int64(2) == 1)
        meta.reset()
        // Before anything in it is read or built on: a schema another role owns or can write
        // (an empty one made in advance, or a fake store with its own triggers) is refused.
        // Only append-only triggers of GateKit's own function that this version does not
        // know wait for the version below: a newer GateKit made them (ENEWER), or not (unsafe).
        var unknownTriggers: [String] = []
        if exists {
            let found = try PostgresOwnership.problems(db, namespace: name, sharedOwner: sharedOwner, schema: schema)
            guard found.allSatisfy({ $0.hasSuffix(PostgresOwnership.unknownAppendOnly) }) else {
                throw PostgresOwnership.refusal(found, namespace: name, location: connection.location)
            }
            unknownTriggers = found
        }
        guard hasMeta else {
            guard objects == 0 else {
                throw GateKitError(.ENOTSTORE, "schema \(where_) holds objects but is not a GateKit store; left untouched")
            }
            return .new
        }
        let read = try db.statement("SELECT key, value FROM gatekit_meta WHERE key IN ('format', 'schema_version', 'app_id')")
        defer { read.reset() }
        var values: [String: String] = [:]
        while try read.step() { values[read.text(0) ?? ""] = read.text(1) }
        guard values[PostgresNamespace.formatKey] == PostgresNamespace.formatValue else {
            throw GateKitError(.ENOTSTORE, "schema \(where_) has a gatekit_meta table but is not a GateKit store; left untouched")
        }
        guard values[PostgresNamespace.appIDKey] == appID else {
            throw GateKitError(.ENOTSTORE, "schema \(where_) is the store of app \(Quoted.text(values[PostgresNamespace.appIDKey] ?? "")), not \(Quoted.text(appID)); left untouched")
        }
        guard let text = values[PostgresNamespace.versionKey], let version = Int64(text), version >= 1 else {
            throw GateKitError(.ECORRUPT, "store \(where_) has no valid schema version; left untouched")
        }
        guard version <= schema.currentVersion else {
            throw GateKitError(.ENEWER, "store \(where_) has schema version \(version); this GateKit (\(GateKitVersion.string)) reads up to \(schema.currentVersion); left untouched")
        }
        guard unknownTriggers.isEmpty else { throw PostgresOwnership.refusal(unknownTriggers, namespace: name, location: connection.location) }
        return .store(version: version)
    }

    private func prepare(_ name: String) throws(GateKitError) {
        try lock.withLock { () throws(GateKitError) in
            if case .store(let version) = try inTransaction({ () throws(GateKitError) in try inspect(name) }), version == schema.currentVersion { return }
            // Creating or migrating: one transaction, serialized across every client by an
            // advisory lock, so concurrent first opens build the schema once.
            try connection.begin(PostgresStore.writeBegin)
            do throws(GateKitError) {
                try connection.statement("SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtext(?1))) AS locked").bind(1, text: name).run()
                var version: Int64 = 0
                if case .store(let found) = try inspect(name) { version = found }
                if version < schema.currentVersion {
                    if version == 0 { try connection.execute("CREATE SCHEMA IF NOT EXISTS \(namespace)") }
                    while version < schema.currentVersion {
                        try schema.migrations[Int(version)].run(connection)
                        version += 1
                    }
                    let meta = try connection.statement("""
                        INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value
                        """)
                    for (key, value) in [(PostgresNamespace.formatKey, PostgresNamespace.formatValue), (PostgresNamespace.appIDKey, appID),
                                         (PostgresNamespace.versionKey, String(version))] {
                        try meta.bind(1, text: key).bind(2, text: value).run()
                    }
                    try StoreFormat.recordWriter(connection)
                    // What was just built, in a schema another role might have made first.
                    try PostgresOwnership.check(connection, namespace: name, sharedOwner: sharedOwner, location: connection.location, schema: schema)
                }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    func read<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try read(begin: "BEGIN READ ONLY", body)
    }

    /// Directly, `body`'s statements each see the latest commit; behind a pooler they run in
    /// one transaction (`begin`), which sets the search path and settings.
    private func read<T>(begin: String, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try lock.withLock { () throws(GateKitError) -> T in
            try connection.ensureConnected()
            do throws(GateKitError) {
                return try readOnce(begin: begin, body)
            } catch where error.code == .ECONNECTION {
                // Reads change nothing: one more try on a fresh connection.
                try connection.connect()
                return try readOnce(begin: begin, body)
            }
        }
    }

    private func readOnce<T>(begin: String, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        guard connection.pooled else { return try body(connection) }
        try connection.beginPipelined(begin)
        let result: T
        do throws(GateKitError) {
            result = try body(connection)
            try connection.commitPipelined(after: nil)
        } catch {
            connection.abandonPipeline()
            // What was read stands when only the read-only transaction's COMMIT was lost.
            guard error.code == .EUNCERTAIN else {
                try? connection.execute("ROLLBACK")
                throw error
            }
            connection.dropConnection()
            throw GateKitError(.ECONNECTION, "the connection to the PostgreSQL store \(connection.location) broke at the end of a read; nothing was written, and the next call reconnects")
        }
        return result
    }

    /// One snapshot for every statement of `body`: REPEATABLE READ, read only.
    func snapshot<T>(_ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        if connection.pooled { return try read(begin: begin, body) }
        return try read { (db) throws(GateKitError) -> T in try db.transaction(begin, body) }
    }

    func write<T>(_ scope: WriteScope, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        switch scope {
        case .singleInsert:
            if !connection.pooled { return try singleInsert(retryingRaces: true, body) }
            // Behind a pooler a single insert is a transaction too (its search path), and
            // sends no notification: no cache reads what it writes.
            return try transaction(locking: [], notifies: false, body)
        case .chainLink:
            if !connection.pooled {
                do throws(GateKitError) {
                    return try singleInsert(retryingRaces: false, body)
                } catch where error == .chainLinkQueued || (error.code == .EBUSY && connection.lastFailureIsRace) {
                    // Another writer took this link, or holds the chain's lock: queue behind
                    // the chain's writers below.
                }
            }
            return try transaction(locking: PostgresStore.slots(of: scope), notifies: false, body)
        case .wholeStore, .everyWriter, .subjects:
            return try transaction(locking: PostgresStore.slots(of: scope), notifies: true, body)
        }
    }

    /// Runs `body` in a write transaction that first locks `slots`, retrying a race with another
    /// writer and a connection that broke before COMMIT.
    private func transaction<T>(locking slots: [Int64], notifies: Bool,
                                _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try lock.withLock { () throws(GateKitError) -> T in
            var attempt = 1
            while true {
                do throws(GateKitError) {
                    try connection.ensureConnected(probing: true)
                    // Pipelined (`PostgresConnection.pipelining`): BEGIN and the locks travel
                    // with the body's first read, its writes with the COMMIT.
                    try connection.beginPipelined(PostgresStore.writeBegin)
                    do throws(GateKitError) {
                        try connection.statement(PostgresStore.genericPlans).run()
                        try lock(slots)
                        let result = try body(connection)
                        try connection.commitPipelined(after: notifies ? "NOTIFY \(namespace), '\(notificationToken)'" : nil)
                        if notifies {
                            ownCommits &+= 1
                            localCommits.announce()
                        }
                        return result
                    } catch {
                        connection.abandonPipeline()
                        if error.code != .EUNCERTAIN { try? connection.execute("ROLLBACK") }
                        throw error
                    }
                } catch where ((error.code == .EBUSY && connection.lastFailureIsRace) || error.code == .ECONNECTION) && attempt < PostgresStore.writeAttempts {
                    // Nothing was committed: a conflict with another writer, or a connection
                    // that broke before COMMIT (the next round reconnects).
                    PostgresStore.backOff(attempt)
                    attempt += 1
                }
            }
        }
    }

    /// A write says what it is: another client's `default_transaction_read_only` or
    /// `default_transaction_isolation` (a pooler's shared server session) never decides it.
    static let writeBegin = "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"

    /// A write's statements are equality lookups and inserts, whose generic plans are as good
    /// as planning anew; PostgreSQL's default may plan some on every call, which with several
    /// writers cost more than the rows (the figures: BENCHMARKS.md, "Ledger ingestion at the
    /// speed of verification", "Generic plans inside writes"). For the transaction only: reads keep the server's choice.
    static let genericPlans = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"

    /// One autocommitted statement: its own commit, so a connection that breaks while it runs
    /// leaves the outcome unknown. A race with another writer is retried when `retryingRaces`,
    /// and otherwise thrown for the caller to queue.
    private func singleInsert<T>(retryingRaces: Bool, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try lock.withLock { () throws(GateKitError) -> T in
            var attempt = 1
            while true {
                try connection.ensureConnected(probing: true)  // failing here, nothing was sent
                do throws(GateKitError) {
                    return try body(connection)
                } catch where retryingRaces && error.code == .EBUSY && connection.lastFailureIsRace && attempt < PostgresStore.writeAttempts {
                    PostgresStore.backOff(attempt)
                    attempt += 1
                } catch where error.code == .ECONNECTION {
                    throw GateKitError(.EUNCERTAIN, "the connection to the PostgreSQL store \(connection.location) broke while the write ran: it may or may not be recorded; retrying it is safe")
                }
            }
        }
    }

    /// 2 ms, 4 ms, … 128 ms, and up to 1 ms of jitter so racing writers part.
    private static func backOff(_ attempt: Int) {
        usleep(UInt32(1000 * (1 << min(attempt, 7))) + UInt32.random(in: 0..<1000))
    }

    /// The rows of the app's `gatekit_locks` that `scope` takes, in slot order.
    private static func slots(of scope: WriteScope) -> [Int64] {
        switch scope {
        case .wholeStore: [PostgresNamespace.wholeStoreSlot]
        case .everyWriter: Array(0...PostgresNamespace.wholeStoreSlot)
        case .singleInsert: []
        case .chainLink(let subject): [PostgresNamespace.lockSlot(subject)]
        case .subjects(let subjects): Set(subjects.map(PostgresNamespace.lockSlot)).sorted()
        }
    }

    /// Locks `slots` (sorted: never a deadlock) in one round trip. Row locks, not advisory
    /// keys: a role with no rights on the app's schema cannot hold them and stall its writers.
    private func lock(_ slots: [Int64]) throws(GateKitError) {
        guard !slots.isEmpty else { return }
        let list = "{" + slots.map(String.init).joined(separator: ",") + "}"
        try connection.statement("SELECT slot FROM gatekit_locks WHERE slot = ANY(CAST(?1 AS BIGINT[])) ORDER BY slot FOR UPDATE")
            .bind(1, text: list).run()
    }

    func integrityReport(quick: Bool) throws(GateKitError) -> [String] {
        try read { (db) throws(GateKitError) -> [String] in
            var problems: [String] = []
            let name = try PostgresNamespace.namespace(appID: appID)
            let table = try db.statement("SELECT count(*) FROM pg_tables WHERE schemaname = ?1 AND tablename = ?2")
            for t in schema.tables {
                guard try table.bind(1, text: name).bind(2, text: t).step(), table.int64(0) == 1 else {
                    problems.append("table \(t) is missing")
                    table.reset()
                    continue
                }
                table.reset()
            }
            if problems.isEmpty {
                let version = try db.statement("SELECT value FROM gatekit_meta WHERE key = 'schema_version'")
                defer { version.reset() }
                let found = try version.step() ? version.text(0) : nil
                if found != String(schema.currentVersion) { problems.append("schema version is \(found ?? "missing"), not \(schema.currentVersion)") }
            }
            return problems
        }
    }

    /// Directly, the store's connection hears other clients' commits; behind a pooler the
    /// listener does, and without one nothing does: every read asks the server.
    func makeChangeProbe() -> any ChangeProbe {
        let localByOthers = { [unowned self] in localCommits.total &- ownCommits }
        guard connection.pooled else { return NotificationProbe(connection, localByOthers: localByOthers) }
        guard let listener else { return UnheardChanges() }
        return NotificationProbe(listener, reconnects: true, localByOthers: localByOthers)
    }

    func notificationSocket() -> Int32? {
        lock.withLock {
            guard let heard = connection.pooled ? listener : connection else { return nil }
            return heard.conn.map { heard.pq.PQsocket($0) }.flatMap { $0 >= 0 ? $0 : nil }
        }
    }
}

/// Commits by other connections, seen as the notifications every GateKit write sends: a read
/// of what the socket already holds, no round trip. A reconnect counts as a change (what was
/// sent while the connection was down is lost).
///
/// Notifications cross the server asynchronously anyway, so the socket is read at most every
/// `pollInterval`: answers from a cache are then at most that much older than the
/// notification's arrival, and a warm read costs a clock read instead of a system call
/// (BENCHMARKS.md measures reading per call instead).
final class NotificationProbe: ChangeProbe {
    private unowned let connection: PostgresConnection
    /// Commits by other handles of this process (`LocalCommits`): seen at once, no socket read.
    private let localByOthers: () -> UInt64
    private var seen: (session: UInt64, count: UInt64, local: UInt64)?
    private var lastPoll: UInt64 = 0
    static let pollIntervalNanoseconds: UInt64 = 100_000
    /// A connection used only to listen (behind a pooler) is reconnected here when it broke:
    /// no read or write would.
    private let reconnects: Bool

    init(_ connection: PostgresConnection, reconnects: Bool = false, localByOthers: @escaping () -> UInt64) {
        self.connection = connection
        self.reconnects = reconnects
        self.localByOthers = localByOthers
    }

    func changed() throws(GateKitError) -> Bool {
        let clock = Clock.monotonicNanoseconds()
        let local = localByOthers()
        if let seen, seen.session == connection.session, seen.local == local,
           clock &- lastPoll < NotificationProbe.pollIntervalNanoseconds { return false }
        lastPoll = clock
        if reconnects { try? connection.ensureConnected() }
        connection.pollNotifications()
        let now = (session: connection.session, count: connection.notificationsFromOthers, local: local)
        defer { seen = now }
        guard let seen else { return true }
        return seen != now
    }

    func invalidate() { seen = nil }
}

/// Behind a pooler with no listen connection, another client's commits cannot be heard: every
/// question counts as changed, so caches ask the server each time (correct, not cached), and
/// waits poll (`seesCommits`).
final class UnheardChanges: ChangeProbe {
    func changed() throws(GateKitError) -> Bool { true }
    func invalidate() {}
    var seesCommits: Bool { false }
}
