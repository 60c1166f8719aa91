import CPostgres
import Glibc
import GateKitSupport

/// libpq's pipeline mode for write transactions: statements sent without waiting, answers
/// read together (the state it keeps is the connection's: `awaited`, `pipelining`).
extension PostgresConnection {
    func prefetchedBy(_ statement: PostgresStatement) { prefetching.append(statement) }

    func endPipeline() {
        pipelining = false
        for s in prefetching { s.dropPrefetched() }
        prefetching.removeAll(keepingCapacity: true)
    }

    /// BEGIN (or `begin`, a BEGIN with its isolation), in pipeline mode; behind a pooler with
    /// the transaction's settings after it.
    func beginPipelined(_ begin: String = "BEGIN") throws(GateKitError) {
        let conn = try live()
        guard pq.PQenterPipelineMode(conn) == 1 else {
            throw GateKitError(.EINTERNAL, "libpq could not enter pipeline mode: \(redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage(conn)))))")
        }
        pipelining = true
        try sendPlain(begin)
        if pooled, !transactionSettings.isEmpty { try sendTransactionSettings() }
    }

    /// The transaction's settings behind a pooler (`PostgresPooler`), sent in the pipeline.
    private func sendTransactionSettings() throws(GateKitError) {
        let conn = try live()
        let ok = withTransactionSettings { sql, count, values in pq.PQsendQueryParams(conn, sql, count, nil, values, nil, nil, 0) } ?? 0
        try sent(ok, Awaited(context: "setting the transaction's search_path and options"))
    }

    /// Sends a statement without parameters (BEGIN, NOTIFY, COMMIT) in the pipeline.
    func sendPlain(_ sql: String) throws(GateKitError) {
        let conn = try live()
        try sent(pq.PQsendQueryParams(conn, sql, 0, nil, nil, nil, nil, 0), Awaited(context: "'\(sql.prefix(60))'"))
    }

    /// Records what a `PQsend…` call (its return value `ok`) will be answered with.
    func sent(_ ok: Int32, _ awaiting: @autoclosure () -> Awaited) throws(GateKitError) {
        guard ok == 1 else {
            if let conn, pq.PQstatus(conn) != CONNECTION_OK { throw lost() }
            throw GateKitError(.EINTERNAL, "libpq refused to send a statement: \(conn.map { redacted(PostgresConnection.trimmed(PostgresConnection.string(pq.PQerrorMessage($0)))) } ?? "")")
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
    /// Throws the first failure; the rest are left for `abandonPipeline`. `synced`: a Sync was
    /// sent last, which makes the server answer: no Flush follows it (behind a transaction
    /// pooler a message after the transaction's end holds a server connection for nothing).
    func readAnswers(synced: Bool = false) throws(GateKitError) {
        let conn = try live()
        guard awaitedRead < awaited.count else { return }
        guard synced || pq.PQsendFlushRequest(conn) == 1, pq.PQflush(conn) == 0 else { throw lost() }
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
    func takeAnswer(_ conn: OpaquePointer) -> OpaquePointer? {
        let result = pq.PQgetResult(conn)
        if result != nil, let extra = pq.PQgetResult(conn) { pq.PQclear(extra) }
        return result
    }

    /// NOTIFY and COMMIT in the pipeline, then every answer. A broken connection after COMMIT
    /// was sent leaves the outcome unknown: `.EUNCERTAIN`.
    func commitPipelined(after before: String?) throws(GateKitError) {
        if let before { try sendPlain(before) }
        try sendPlain("COMMIT")
        let conn = try live()
        do throws(GateKitError) {
            guard pq.PQpipelineSync(conn) == 1 else { throw lost() }
            syncsUnread += 1
            try readAnswers(synced: true)
            let sync = pq.PQgetResult(conn)
            defer { pq.PQclear(sync) }
            guard sync.map({ pq.PQresultStatus($0) }) == PGRES_PIPELINE_SYNC else { throw lost() }
            syncsUnread -= 1
        } catch where error.code == .ECONNECTION {
            // COMMIT was sent and its answer never arrived: it may have committed.
            throw GateKitError(.EUNCERTAIN, "the connection to the PostgreSQL store \(location) broke during COMMIT: the write may or may not be recorded; retrying it is safe")
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
}
