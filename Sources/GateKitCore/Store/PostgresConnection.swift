import CPostgres
import Glibc
import GateKitSupport

/// One libpq connection with a cache of prepared statements. Not thread-safe by itself:
/// `PostgresStore` serializes every use behind its lock.
///
/// A broken connection is re-established by `ensureConnected` (the next call); everything
/// that belonged to the old session — prepared statements, notifications not yet seen — is
/// dropped, and `session` moves on so caches keyed to it start over.
final class PostgresConnection: DatabaseConnection {
    var dialect: SQLDialect { .postgresql }
    let pq: gk_pq
    private let keywords: [String]
    private let values: [String]
    /// The password, when the connection string or `$PGPASSWORD` holds one: removed from every
    /// message GateKit passes on.
    private let password: String?
    /// Statements run after every (re)connect to the server itself: search_path, LISTEN.
    private let sessionSetup: [String]
    /// The store's namespace, quoted: behind a pooler the search path of every transaction.
    private let namespace: String?
    /// A connection that must reach the server itself (the listen connection): a pooler is refused.
    private let mustBeDirect: Bool
    /// The connection's settings (`options`, `$PGOPTIONS` or GateKit's defaults) as name and
    /// value, for a pooler that does not pass them on; the error when they are not settings.
    private let optionSettings: Result<[(name: String, value: String)], GateKitError>
    /// The connection parameters without `options`, for a pooler that refuses them.
    private let keywordsWithoutOptions: [String]
    private let valuesWithoutOptions: [String]
    /// `options` was given by $PGOPTIONS, which libpq always sends: a pooler refusing it cannot
    /// be reached without the host's change.
    private let optionsFromEnvironment: Bool
    /// A pooler is between GateKit and the server (`PostgresPooler`): set by every connect.
    private(set) var pooled = false
    /// The pooler refused `options`: connections are made without it from then on.
    private var optionsRefused = false
    /// What every transaction sets behind a pooler: the settings, then the search path.
    private(set) var transactionSettings: [(name: String, value: String)] = []
    var conn: OpaquePointer?
    /// Moves on with every (re)connect.
    var session: UInt64 = 0
    /// Notifications on `channel` sent by other sessions, counted as they arrive.
    var notificationsFromOthers: UInt64 = 0
    /// The payload of the notifications this connection's store sends through a pooler: not
    /// another's commit when it arrives here.
    var ownPayload: String?
    var cache: [StatementKey: PostgresStatement] = [:]
    var statementNumber = 0
    /// The server and database, without the password (for messages and `gatekit_store_path`).
    var location = "postgresql://"
    /// The SQLSTATE of the last failed statement (which failures a write may retry).
    var lastSQLState: String?
    /// TLS was GateKit's default (a TCP connection whose string said nothing of sslmode).
    private let tlsByDefault: Bool

    /// Defaults GateKit sets unless the connection string or a `PG*` variable says otherwise:
    /// give up connecting after 10 s, a statement after 30 s, and notice a dead server within
    /// about a minute instead of TCP's two hours.
    static let defaultConnectTimeoutSeconds = "10"
    static let defaultOptions = "-c statement_timeout=30000 -c idle_in_transaction_session_timeout=60000"

    /// `namespace` (quoted): the store's search path; `listen`: LISTEN on it (direct connections).
    init(connectionString: String, namespace: String?, listen: Bool, mustBeDirect: Bool = false) throws(GateKitError) {
        pq = try PostgresLibrary.functions().pointee
        var parseError: UnsafeMutablePointer<CChar>? = nil
        guard let parsed = pq.PQconninfoParse(connectionString, &parseError) else {
            if let parseError { pq.PQfreemem(parseError) }
            // libpq's reason quotes the offending part, which may be the password.
            throw GateKitError(.EINVAL, "the PostgreSQL connection string is malformed (libpq's reason is not repeated because it can quote the password); see https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING")
        }
        var given: [String: String] = [:]
        var i = 0
        while let keyword = parsed[i].keyword {
            if let value = parsed[i].val { given[String(cString: keyword)] = String(cString: value) }
            i += 1
        }
        pq.PQconninfoFree(parsed)
        password = given["password"] ?? (getenv("PGPASSWORD").map { String(cString: $0) })
        // Defaults first: with expand_dbname, what the string says overrides them.
        var k: [String] = ["fallback_application_name"], v: [String] = ["gatekit"]
        tlsByDefault = PostgresConnection.usesTCP(given) && given["sslmode"] == nil && given["requiressl"] == nil && getenv("PGSSLMODE") == nil
        if tlsByDefault {
            // Over TCP, TLS with the server's certificate and name verified (libpq's own default,
            // `prefer`, takes plain text or any certificate): the system's CAs unless the string,
            // $PGSSLROOTCERT or libpq's ~/.postgresql/root.crt names others.
            k.append("sslmode")
            v.append("verify-full")
            if given["sslrootcert"] == nil, getenv("PGSSLROOTCERT") == nil, let system = PostgresConnection.systemCAs(pq) {
                k.append("sslrootcert")
                v.append(system)
            }
        }
        if getenv("PGCONNECT_TIMEOUT") == nil { k.append("connect_timeout"); v.append(PostgresConnection.defaultConnectTimeoutSeconds) }
        let environmentOptions = getenv("PGOPTIONS").map { String(cString: $0) }
        optionsFromEnvironment = given["options"] == nil && environmentOptions != nil
        if environmentOptions == nil { k.append("options"); v.append(PostgresConnection.defaultOptions) }
        let options = given["options"] ?? environmentOptions ?? PostgresConnection.defaultOptions
        optionSettings = Result { () throws(GateKitError) in try PostgresOptions.settings(options) }
        k += ["keepalives_idle", "keepalives_interval", "keepalives_count"]
        v += ["30", "10", "3"]
        // Without options: the string's own keywords, one by one, instead of the string.
        let without = given.filter { $0.key != "options" }.sorted { $0.key < $1.key }
        keywordsWithoutOptions = k.filter { $0 != "options" } + without.map(\.key) + ["client_encoding"]
        valuesWithoutOptions = zip(k, v).filter { $0.0 != "options" }.map(\.1) + without.map(\.value) + ["UTF8"]
        k.append("dbname")
        v.append(connectionString)
        // Last, so it always wins: every string crosses as UTF-8.
        k.append("client_encoding")
        v.append("UTF8")
        keywords = k
        values = v
        self.namespace = namespace
        self.mustBeDirect = mustBeDirect
        sessionSetup = (namespace.map { ["SET search_path TO \($0)"] } ?? []) + (listen ? namespace.map { ["LISTEN \($0)"] } ?? [] : [])
        try connect()
    }


    deinit {
        cache.removeAll()
        if let conn { pq.PQfinish(conn) }
    }

    /// A message from libpq or the server without the password.
    func redacted(_ message: String) -> String {
        PostgresConnectionString.redacting(password, in: message)
    }

    /// (Re)connects and runs the session set-up.
    func connect() throws(GateKitError) {
        if let old = conn {
            pq.PQfinish(old)
            conn = nil
        }
        cache.removeAll()
        session &+= 1
        let c = PostgresConnection.withCStringArray(optionsRefused ? keywordsWithoutOptions : keywords) { k in
            PostgresConnection.withCStringArray(optionsRefused ? valuesWithoutOptions : values) { v in
                pq.PQconnectdbParams(k, v, optionsRefused ? 0 : 1)
            }
        }
        guard let c else { throw GateKitError(.ENOMEM, "libpq could not allocate a connection") }
        guard pq.PQstatus(c) == CONNECTION_OK else {
            let reason = redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage(c))))
            pq.PQfinish(c)
            if Text.contains(reason, "unsupported startup parameter: options"), !optionsRefused, !optionsFromEnvironment {
                // A pooler (PgBouncer) that does not take `options`: connect without them and
                // set them in every transaction instead (`PostgresPooler`).
                optionsRefused = true
                return try connect()
            }
            if Text.contains(reason, "unsupported startup parameter") {
                let which = optionsFromEnvironment && Text.contains(reason, ": options") ? " ($PGOPTIONS, which libpq always sends: unset it, or add options to the pooler's ignore_startup_parameters; GateKit sets them in every transaction)" : " (add it to the pooler's ignore_startup_parameters, or leave it out of the connection string)"
                throw GateKitError(.EINVAL, "the PostgreSQL store cannot be reached through this connection: \(reason)\(which)")
            }
            let hint = tlsByDefault ? " (over TCP GateKit requires TLS and verifies the server's certificate and name: name its CA with sslrootcert=FILE, or say sslmode=require, or sslmode=disable, in the connection string to accept less)" : ""
            throw GateKitError(.ECONNECTION, "cannot connect to the PostgreSQL store: \(reason)\(hint)")
        }
        _ = pq.PQsetNoticeReceiver(c, gk_pq_ignore_notice, nil)
        conn = c
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        location = PostgresConnectionString.display(user: text(pq.PQuser(c)), host: text(pq.PQhost(c)), port: text(pq.PQport(c)),
                                                   database: text(pq.PQdb(c)))
        do throws(GateKitError) {
            let pidDiffers = try isPooled(c)
            pooled = optionsRefused || pidDiffers
            if pooled {
                if mustBeDirect {
                    throw GateKitError(.EINVAL, "\(location) is reached through a connection pooler (the server's backend pid is not the one the connection was given): a listen connection must reach the server directly (LISTEN needs a session of its own)")
                }
                // The store's search path last, so no `-c search_path=…` of the options wins
                // over it (directly, the session's SET runs after the startup options too).
                // What GateKit's reads depend on first (another pool client may have changed it
                // in the server session: bytea as escape text would read as a corrupt store).
                transactionSettings = PostgresConnection.pooledReadSettings + (try optionSettings.get())
                    + (namespace.map { [("search_path", $0 + ", pg_catalog, pg_temp")] } ?? [])
            } else {
                for sql in sessionSetup { try execute(sql) }
            }
        } catch {
            // Never left connected: the next call would take a refused connection for a good one.
            pq.PQfinish(c)
            conn = nil
            throw error
        }
    }


    /// Reconnects when the connection is gone, and leaves any transaction a failure left open.
    /// Before a write (`probing`), reading what the socket holds notices a connection the
    /// server closed while idle (a restart, an idle timeout, pg_terminate_backend) before the
    /// write is sent on it: the first read takes the server's goodbye, the second its end of
    /// stream. (A read needs no probe: it is retried on a new connection.)
    func ensureConnected(probing: Bool = false) throws(GateKitError) {
        abandonPipeline()
        if probing {
            pollNotifications()
            pollNotifications()
        }
        guard let conn, pq.PQstatus(conn) == CONNECTION_OK else { return try connect() }
        if pq.PQtransactionStatus(conn) != PQTRANS_IDLE { try? execute("ROLLBACK") }
    }

    /// The live connection, or `.ECONNECTION` when it broke.
    func live() throws(GateKitError) -> OpaquePointer {
        guard let conn, pq.PQstatus(conn) == CONNECTION_OK else { throw lost() }
        return conn
    }

    func lost() -> GateKitError {
        let reason = conn.map { redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage($0)))) } ?? ""
        return GateKitError(.ECONNECTION, "the connection to the PostgreSQL store \(location) broke\(reason.isEmpty ? "" : " (\(reason))"); nothing was written, and the next call reconnects")
    }

    /// The session settings GateKit's reads depend on, set in every transaction behind a
    /// pooler: other clients share the server sessions and may have changed them.
    static let pooledReadSettings: [(name: String, value: String)] = [("bytea_output", "hex")]

    /// BEGIN (or `sql`), outside a pipeline; behind a pooler with the transaction's settings.
    func begin(_ sql: String = "BEGIN") throws(GateKitError) {
        try execute(sql)
        guard pooled, !transactionSettings.isEmpty else { return }
        let conn = try live()
        let result = withTransactionSettings { sql, count, values in pq.PQexecParams(conn, sql, count, nil, values, nil, nil, 0) } ?? nil
        defer { pq.PQclear(result) }
        try check(result, "setting the transaction's search_path and options")
    }

    /// The first column of the first row of a statement without parameters, run by itself.
    func firstText(_ sql: String) throws(GateKitError) -> String {
        let result = pq.PQexec(try live(), sql)
        defer { pq.PQclear(result) }
        try check(result, "'\(sql.prefix(60))'")
        guard let result, pq.PQntuples(result) > 0, let value = pq.PQgetvalue(result, 0, 0) else { return "" }
        return String(cString: value)
    }

    /// Runs `sql` (one statement or several) and reads its answer. In a write transaction's
    /// pipeline, what was sent before is answered first, and `sql` runs outside the pipeline,
    /// in the same transaction.
    func execute(_ sql: String) throws(GateKitError) {
        if pipelining {
            try readAnswers()
            let conn = try live()
            guard pq.PQexitPipelineMode(conn) == 1 else { throw GateKitError(.EINTERNAL, "libpq could not leave pipeline mode to run '\(sql.prefix(60))'") }
            pipelining = false
            defer { if pq.PQenterPipelineMode(conn) == 1 { pipelining = true } else { dropConnection() } }
            return try execute(sql)
        }
        let conn = try live()
        let result = pq.PQexec(conn, sql)
        defer { pq.PQclear(result) }
        try check(result, "'\(sql.prefix(60))'")
    }

    // MARK: pipeline mode

    /// Inside a write transaction the connection is in libpq's pipeline mode: a statement whose
    /// answer is only "done" (BEGIN, the slot locks, every INSERT) is sent without waiting for
    /// it, and the answers are read when a statement's rows are needed or at COMMIT. A
    /// transaction's writes then cost one round trip together instead of one each. A failure
    /// in a statement sent earlier surfaces at that read or at COMMIT, with its own statement
    /// named; the server aborted the transaction at it either way.
    var pipelining = false
    /// What was sent and not yet answered, in order.
    var awaited: [Awaited] = []
    var awaitedRead = 0
    var syncsUnread = 0
    /// Statements holding a prefetched answer (`DatabaseStatement.prefetch`), dropped when
    /// the transaction ends.
    var prefetching: [PostgresStatement] = []

    /// Answers read together at the latest after this many statements: what the server has
    /// to answer stays small, and a long batch cannot fill both sockets' buffers.
    static let maximumAwaited = 512

    struct Awaited {
        let context: String
        /// The statement whose rows this answer carries.
        var reader: PostgresStatement?
        /// The statement this answer prepares: not prepared unless the answer says so.
        var prepares: PostgresStatement?
    }


    func dropConnection() {
        if let conn { pq.PQfinish(conn) }
        conn = nil
        endPipeline()
    }

    func statement(_ sql: String) throws(GateKitError) -> any DatabaseStatement { try statement(sql, copy: 0) }

    func statement(_ sql: String, copy: Int) throws(GateKitError) -> any DatabaseStatement {
        let key = StatementKey(sql: StatementText(sql: sql), copy: copy)
        if let s = cache[key] {
            s.reset()
            return s
        }
        let (text, parameters) = try PostgresSQL.translate(sql)
        statementNumber += 1
        let s = PostgresStatement(connection: self, sql: text, parameters: parameters, name: "gatekit_\(statementNumber)")
        cache[key] = s
        return s
    }

    struct StatementKey: Hashable {
        let sql: StatementText
        let copy: Int
    }


    /// A NULL-terminated array of C strings for the duration of `body`.
    /// nil when memory ran out.
    static func withCStringArray<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T?) -> T? {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        guard !copies.contains(where: { $0 == nil }) else { return nil }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { buffer in buffer.baseAddress.flatMap(body) }
    }
}
