import CPostgres
import Glibc
import GateKitSupport

/// GateKit talks to PostgreSQL itself, never through a pooler that would mix sessions.
extension PostgresConnection {
    /// A pooler between GateKit and the server (PgBouncer, in any pool mode) hands out a backend
    /// key of its own: the pid libpq was told is not the server process answering. Behind one,
    /// session state (search_path, prepared statements, LISTEN) can be lost between
    /// transactions or reach another client, so GateKit refuses it rather than guess.
    func refusePooler(_ c: OpaquePointer) throws(GateKitError) {
        let result = pq.PQexec(c, "SELECT pg_backend_pid()")
        defer { pq.PQclear(result) }
        try check(result, "SELECT pg_backend_pid()")
        let server = result.flatMap { pq.PQgetvalue($0, 0, 0) }.map { String(cString: $0) }
        guard server == String(pq.PQbackendPID(c)) else {
            throw GateKitError(.EINVAL, "\(location) is reached through a connection pooler (the server's backend pid \(server ?? "?") is not the \(pq.PQbackendPID(c)) the connection was given): GateKit needs a session of its own (prepared statements, LISTEN, session settings), which a pooler in transaction mode loses or shares; connect to the server directly")
        }
    }
}
