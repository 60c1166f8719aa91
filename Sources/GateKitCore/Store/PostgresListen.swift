import CPostgres
import Glibc
import GateKitSupport

/// LISTEN/NOTIFY: what other sessions committed, noticed without a round trip (the handles'
/// caches stay coherent across processes and hosts).
extension PostgresConnection {
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
}
