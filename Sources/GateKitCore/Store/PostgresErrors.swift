import CPostgres
import Glibc
import GateKitSupport

/// A failed result as GateKit's error: its SQLSTATE mapped onto the stable codes, the message
/// without the password.
extension PostgresConnection {
    /// Throws the classified error unless `result` succeeded.
    func check(_ result: OpaquePointer?, _ context: String) throws(GateKitError) {
        guard let result else {
            if let conn, pq.PQstatus(conn) != CONNECTION_OK { throw lost() }
            throw GateKitError(.ENOMEM, "libpq returned no result for \(context)")
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
            throw GateKitError(.EBUSY, "\(context) gave up after the connection's statement_timeout (30 s unless the connection string sets another)\(waited): \(message) (SQLSTATE \(state)); nothing was written")
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
        case "40001", "40P01", "55P03", "57014", "23505": GateKitError(.EBUSY, message)
        case "25006", "42501": GateKitError(.EREADONLY, message)  // read-only transaction (a standby), no privilege
        case "53100": GateKitError(.EIO, message)  // disk full
        case "53200": GateKitError(.ENOMEM, message)
        case "54000", "54001": GateKitError(.ETOOLARGE, message)
        case "XX001", "XX002": GateKitError(.ECORRUPT, message)  // data or index corrupted
        default:
            switch state.prefix(2) {
            case "08", "57", "53", "28": GateKitError(.ECONNECTION, message)  // connection, shutdown, resources, login
            default: GateKitError(.EINTERNAL, message)
            }
        }
    }


    static func string(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

    static func trimmed(_ message: String) -> String {
        var lines = message.split(separator: "\n").map { $0.trimmingCharacters() }
        lines.removeAll { $0.isEmpty }
        return lines.joined(separator: "; ")
    }
}


private extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" })
    }
}
