import COpenSSL
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
    /// Statements run after every (re)connect: search_path, LISTEN.
    private let sessionSetup: [String]
    private(set) var conn: OpaquePointer?
    /// Moves on with every (re)connect.
    private(set) var session: UInt64 = 0
    /// Notifications on `channel` sent by other sessions, counted as they arrive.
    private(set) var notificationsFromOthers: UInt64 = 0
    private var cache: [StatementKey: PostgresStatement] = [:]
    private var statementNumber = 0
    /// The server and database, without the password (for messages and `gatekit_store_path`).
    private(set) var location = "postgresql://"
    /// The SQLSTATE of the last failed statement (which failures a write may retry).
    private(set) var lastSQLState: String?
    /// TLS was GateKit's default (a TCP connection whose string said nothing of sslmode).
    private let tlsByDefault: Bool

    /// Defaults GateKit sets unless the connection string or a `PG*` variable says otherwise:
    /// give up connecting after 10 s, a statement after 30 s, and notice a dead server within
    /// about a minute instead of TCP's two hours.
    static let defaultConnectTimeoutSeconds = "10"
    static let defaultOptions = "-c statement_timeout=30000 -c idle_in_transaction_session_timeout=60000"

    init(connectionString: String, sessionSetup: [String]) throws(GateKitError) {
        pq = try PostgresLibrary.functions().pointee
        var parseError: UnsafeMutablePointer<CChar>? = nil
        guard let parsed = pq.PQconninfoParse(connectionString, &parseError) else {
            if let parseError { pq.PQfreemem(parseError) }
            // libpq's reason quotes the offending part, which may be the password.
            throw GateKitError(.invalidArgument, "the PostgreSQL connection string is malformed (libpq's reason is not repeated because it can quote the password); see https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING")
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
        if getenv("PGOPTIONS") == nil { k.append("options"); v.append(PostgresConnection.defaultOptions) }
        k += ["keepalives_idle", "keepalives_interval", "keepalives_count", "dbname"]
        v += ["30", "10", "3", connectionString]
        // Last, so it always wins: every string crosses as UTF-8.
        k.append("client_encoding")
        v.append("UTF8")
        keywords = k
        values = v
        self.sessionSetup = sessionSetup
        try connect()
    }

    /// Whether libpq will reach any of the hosts over TCP (a host that is not a socket folder,
    /// or a hostaddr); no host at all is the local socket.
    static func usesTCP(_ given: [String: String]) -> Bool {
        if let address = given["hostaddr"] ?? getenv("PGHOSTADDR").map({ String(cString: $0) }), !address.isEmpty { return true }
        guard let hosts = given["host"] ?? getenv("PGHOST").map({ String(cString: $0) }) else { return false }
        return hosts.split(separator: ",", omittingEmptySubsequences: false).contains { h in
            !h.isEmpty && !h.hasPrefix("/") && !h.hasPrefix("@")
        }
    }

    /// The system's CA certificates for `sslrootcert`: libpq 16 reads "system" itself; before,
    /// OpenSSL's default file (Debian: /usr/lib/ssl/cert.pem, the ca-certificates bundle).
    /// Nil when libpq's own ~/.postgresql/root.crt is there to decide.
    static func systemCAs(_ pq: gk_pq) -> String? {
        if let home = getenv("HOME"), access(String(cString: home) + "/.postgresql/root.crt", F_OK) == 0 { return nil }
        if pq.PQlibVersion() >= 160000 { return "system" }
        return X509_get_default_cert_file().map { String(cString: $0) }
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
        let c = PostgresConnection.withCStringArray(keywords) { k in
            PostgresConnection.withCStringArray(values) { v in pq.PQconnectdbParams(k, v, 1) }
        }
        guard let c else { throw GateKitError(.outOfMemory, "libpq could not allocate a connection") }
        guard pq.PQstatus(c) == CONNECTION_OK else {
            let reason = redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage(c))))
            pq.PQfinish(c)
            if reason.contains("unsupported startup parameter") {
                throw GateKitError(.invalidArgument, "the PostgreSQL store cannot be reached through this connection: \(reason). A connection pooler (PgBouncer) is in front of the server; GateKit needs a session of its own (prepared statements, LISTEN, session settings): connect to the server directly")
            }
            let hint = tlsByDefault ? " (over TCP GateKit requires TLS and verifies the server's certificate and name: name its CA with sslrootcert=FILE, or say sslmode=require, or sslmode=disable, in the connection string to accept less)" : ""
            throw GateKitError(.connection, "cannot connect to the PostgreSQL store: \(reason)\(hint)")
        }
        _ = pq.PQsetNoticeReceiver(c, gk_pq_ignore_notice, nil)
        conn = c
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        location = PostgresConnectionString.display(user: text(pq.PQuser(c)), host: text(pq.PQhost(c)), port: text(pq.PQport(c)),
                                                   database: text(pq.PQdb(c)))
        do throws(GateKitError) {
            for sql in sessionSetup { try execute(sql) }
            try refusePooler(c)
        } catch {
            // Never left connected: the next call would take a refused connection for a good one.
            pq.PQfinish(c)
            conn = nil
            throw error
        }
    }

    /// A pooler between GateKit and the server (PgBouncer, in any pool mode) hands out a backend
    /// key of its own: the pid libpq was told is not the server process answering. Behind one,
    /// session state (search_path, prepared statements, LISTEN) can be lost between
    /// transactions or reach another client, so GateKit refuses it rather than guess.
    private func refusePooler(_ c: OpaquePointer) throws(GateKitError) {
        let result = pq.PQexec(c, "SELECT pg_backend_pid()")
        defer { pq.PQclear(result) }
        try check(result, "SELECT pg_backend_pid()")
        let server = result.flatMap { pq.PQgetvalue($0, 0, 0) }.map { String(cString: $0) }
        guard server == String(pq.PQbackendPID(c)) else {
            throw GateKitError(.invalidArgument, "\(location) is reached through a connection pooler (the server's backend pid \(server ?? "?") is not the \(pq.PQbackendPID(c)) the connection was given): GateKit needs a session of its own (prepared statements, LISTEN, session settings), which a pooler in transaction mode loses or shares; connect to the server directly")
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

    /// The live connection, or `.connection` when it broke.
    func live() throws(GateKitError) -> OpaquePointer {
        guard let conn, pq.PQstatus(conn) == CONNECTION_OK else { throw lost() }
        return conn
    }

    func lost() -> GateKitError {
        let reason = conn.map { redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage($0)))) } ?? ""
        return GateKitError(.connection, "the connection to the PostgreSQL store \(location) broke\(reason.isEmpty ? "" : " (\(reason))"); nothing was written, and the next call reconnects")
    }

    /// Runs `sql` (one statement or several) and reads its answer. In a write transaction's
    /// pipeline, what was sent before is answered first, and `sql` runs outside the pipeline,
    /// in the same transaction.
    func execute(_ sql: String) throws(GateKitError) {
        if pipelining {
            try readAnswers()
            let conn = try live()
            guard pq.PQexitPipelineMode(conn) == 1 else { throw GateKitError(.internal, "libpq could not leave pipeline mode to run '\(sql.prefix(60))'") }
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
    private(set) var pipelining = false
    /// What was sent and not yet answered, in order.
    private var awaited: [Awaited] = []
    private var awaitedRead = 0
    private var syncsUnread = 0
    /// Statements holding a prefetched answer (`DatabaseStatement.prefetch`), dropped when
    /// the transaction ends.
    private var prefetching: [PostgresStatement] = []

    /// Answers read together at the latest after this many statements: what the server has
    /// to answer stays small, and a long batch cannot fill both sockets' buffers.
    static let maximumAwaited = 512

    private struct Awaited {
        let context: String
        /// The statement whose rows this answer carries.
        var reader: PostgresStatement?
        /// The statement this answer prepares: not prepared unless the answer says so.
        var prepares: PostgresStatement?
    }

    func prefetchedBy(_ statement: PostgresStatement) { prefetching.append(statement) }

    private func endPipeline() {
        pipelining = false
        for s in prefetching { s.dropPrefetched() }
        prefetching.removeAll(keepingCapacity: true)
    }

    /// BEGIN, in pipeline mode.
    func beginPipelined() throws(GateKitError) {
        let conn = try live()
        guard pq.PQenterPipelineMode(conn) == 1 else {
            throw GateKitError(.internal, "libpq could not enter pipeline mode: \(redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage(conn)))))")
        }
        pipelining = true
        try sendPlain("BEGIN")
    }

    /// Sends a statement without parameters (BEGIN, NOTIFY, COMMIT) in the pipeline.
    private func sendPlain(_ sql: String) throws(GateKitError) {
        let conn = try live()
        try sent(pq.PQsendQueryParams(conn, sql, 0, nil, nil, nil, nil, 0), Awaited(context: "'\(sql.prefix(60))'"))
    }

    /// Records what a `PQsend…` call (its return value `ok`) will be answered with.
    private func sent(_ ok: Int32, _ awaiting: @autoclosure () -> Awaited) throws(GateKitError) {
        guard ok == 1 else {
            if let conn, pq.PQstatus(conn) != CONNECTION_OK { throw lost() }
            throw GateKitError(.internal, "libpq refused to send a statement: \(conn.map { redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage($0)))) } ?? "")")
        }
        awaited.append(awaiting())
        if awaited.count - awaitedRead >= PostgresConnection.maximumAwaited { try readAnswers() }
    }

    /// A statement sent in the pipeline: preparing it, running it.
    func sentPrepare(_ ok: Int32, _ statement: PostgresStatement, _ context: String) throws(GateKitError) {
        try sent(ok, Awaited(context: "preparing \(context)", prepares: statement))
    }

    func sentQuery(_ ok: Int32, _ context: String, reader: PostgresStatement?) throws(GateKitError) {
        try sent(ok, Awaited(context: context, reader: reader))
    }

    /// Reads every answer sent for so far (one round trip), handing rows to their statement.
    /// Throws the first failure; the rest are left for `abandonPipeline`.
    func readAnswers() throws(GateKitError) {
        let conn = try live()
        guard awaitedRead < awaited.count else { return }
        guard pq.PQsendFlushRequest(conn) == 1, pq.PQflush(conn) == 0 else { throw lost() }
        while awaitedRead < awaited.count {
            let next = awaited[awaitedRead]
            awaitedRead += 1
            let result = takeAnswer(conn)
            do throws(GateKitError) {
                try check(result, next.context)
            } catch {
                next.prepares?.forgetPrepared()
                pq.PQclear(result)
                throw error
            }
            if let reader = next.reader { reader.received(result) } else { pq.PQclear(result) }
        }
        awaited.removeAll(keepingCapacity: true)
        awaitedRead = 0
    }

    /// One statement's answer: its result, then the NULL that ends it.
    private func takeAnswer(_ conn: OpaquePointer) -> OpaquePointer? {
        let result = pq.PQgetResult(conn)
        if result != nil, let extra = pq.PQgetResult(conn) { pq.PQclear(extra) }
        return result
    }

    /// NOTIFY and COMMIT in the pipeline, then every answer. A broken connection after COMMIT
    /// was sent leaves the outcome unknown: `.commitUncertain`.
    func commitPipelined(after before: String) throws(GateKitError) {
        try sendPlain(before)
        try sendPlain("COMMIT")
        let conn = try live()
        do throws(GateKitError) {
            guard pq.PQpipelineSync(conn) == 1 else { throw lost() }
            syncsUnread += 1
            try readAnswers()
            let sync = pq.PQgetResult(conn)
            defer { pq.PQclear(sync) }
            guard sync.map({ pq.PQresultStatus($0) }) == PGRES_PIPELINE_SYNC else { throw lost() }
            syncsUnread -= 1
        } catch where error.code == .connection {
            // COMMIT was sent and its answer never arrived: it may have committed.
            throw GateKitError(.commitUncertain, "the connection to the PostgreSQL store \(location) broke during COMMIT: the write may or may not be recorded; retrying it is safe")
        }
        _ = pq.PQexitPipelineMode(conn)
        endPipeline()
    }

    /// Leaves pipeline mode after a failure: reads what is still to come up to a sync (so
    /// statements a failure aborted are prepared again next time), then ROLLBACK can run.
    /// A connection that cannot be brought back to a clean state is dropped (the next call
    /// reconnects).
    func abandonPipeline() {
        guard pipelining else { return }
        defer {
            endPipeline()
            awaited.removeAll(keepingCapacity: true)
            awaitedRead = 0
            syncsUnread = 0
        }
        guard let conn, pq.PQstatus(conn) == CONNECTION_OK, pq.PQpipelineSync(conn) == 1 else { return dropConnection() }
        for next in awaited[awaitedRead...] {
            let result = takeAnswer(conn)
            if result.map({ pq.PQresultStatus($0) }) != PGRES_COMMAND_OK { next.prepares?.forgetPrepared() }
            pq.PQclear(result)
        }
        // Up to the sync just sent, past a COMMIT's that was not read.
        syncsUnread += 1
        while syncsUnread > 0 {
            guard let result = pq.PQgetResult(conn) else { return dropConnection() }
            if pq.PQresultStatus(result) == PGRES_PIPELINE_SYNC { syncsUnread -= 1 }
            pq.PQclear(result)
        }
        if pq.PQexitPipelineMode(conn) != 1 { dropConnection() }
    }

    private func dropConnection() {
        if let conn { pq.PQfinish(conn) }
        conn = nil
        endPipeline()
    }

    func statement(_ sql: String) throws(GateKitError) -> any DatabaseStatement { try statement(sql, copy: 0) }

    func statement(_ sql: String, copy: Int) throws(GateKitError) -> any DatabaseStatement {
        let key = StatementKey(sql: sql, copy: copy)
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

    private struct StatementKey: Hashable {
        let sql: String
        let copy: Int
    }

    /// Throws the classified error unless `result` succeeded.
    func check(_ result: OpaquePointer?, _ context: String) throws(GateKitError) {
        guard let result else {
            if let conn, pq.PQstatus(conn) != CONNECTION_OK { throw lost() }
            throw GateKitError(.outOfMemory, "libpq returned no result for \(context)")
        }
        let status = pq.PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        if let conn, pq.PQstatus(conn) != CONNECTION_OK { throw lost() }
        func field(_ code: UInt8) -> String? { pq.PQresultErrorField(result, Int32(code)).map { String(cString: $0) } }
        // No SQLSTATE: libpq's own failure (the server vanished mid-answer), not the server's.
        guard let state = field(UInt8(ascii: "C")) else { throw lost() }
        lastSQLState = state
        let message = redacted(field(UInt8(ascii: "M")) ?? PostgresConnection.trimmed(PostgresConnection.string(pq.PQresultErrorMessage(result))))
        if state == "57014" || state == "55P03" {
            // What it waited for: the server's context ("while locking tuple (0,3) in relation …").
            let waited = field(UInt8(ascii: "W")).map { "; it waited \(redacted(PostgresConnection.trimmed($0)))" } ?? ""
            throw GateKitError(.busy, "\(context) gave up after the connection's statement_timeout (30 s unless the connection string sets another)\(waited): \(message) (SQLSTATE \(state)); nothing was written")
        }
        throw PostgresConnection.classify(state: state, "\(context) failed: \(message) (SQLSTATE \(state))")
    }

    /// Failures a write transaction retries: another writer won a race (a serialization
    /// failure, a deadlock, a unique key it inserted first). A statement or lock timeout is
    /// not: it already waited as long as the connection allows.
    var lastFailureIsRace: Bool {
        ["40001", "40P01", "23505"].contains(lastSQLState ?? "")
    }

    /// Maps a SQLSTATE onto GateKit's stable codes.
    static func classify(state: String, _ message: String) -> GateKitError {
        switch state {
        // Serialization, deadlock, lock or statement timeout; a unique key another writer
        // inserted first (the retry then finds its row).
        case "40001", "40P01", "55P03", "57014", "23505": GateKitError(.busy, message)
        case "25006", "42501": GateKitError(.readOnly, message)  // read-only transaction (a standby), no privilege
        case "53100": GateKitError(.io, message)  // disk full
        case "53200": GateKitError(.outOfMemory, message)
        case "54000", "54001": GateKitError(.tooLarge, message)
        case "XX001", "XX002": GateKitError(.corrupt, message)  // data or index corrupted
        default:
            switch state.prefix(2) {
            case "08", "57", "53", "28": GateKitError(.connection, message)  // connection, shutdown, resources, login
            default: GateKitError(.internal, message)
            }
        }
    }

    /// Counts notifications other sessions sent since the last call; no round trip (reads what
    /// the socket already holds).
    func pollNotifications() {
        guard let conn else { return }
        _ = pq.PQconsumeInput(conn)
        let own = pq.PQbackendPID(conn)
        while let n = pq.PQnotifies(conn) {
            if n.pointee.be_pid != own { notificationsFromOthers &+= 1 }
            pq.PQfreemem(n)
        }
    }

    static func string(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

    static func trimmed(_ message: String) -> String {
        var lines = message.split(separator: "\n").map { $0.trimmingCharacters() }
        lines.removeAll { $0.isEmpty }
        return lines.joined(separator: "; ")
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

private extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" })
    }
}
