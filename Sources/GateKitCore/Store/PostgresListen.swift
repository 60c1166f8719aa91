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
            if n.pointee.be_pid != own, !isOwn(n.pointee.extra) { notificationsFromOthers &+= 1 }
            pq.PQfreemem(n)
        }
    }

    /// A notification the store's own handle sent through a pooler (its payload is the handle's).
    private func isOwn(_ payload: UnsafeMutablePointer<CChar>?) -> Bool {
        guard let ownPayload, let payload else { return false }
        return String(cString: payload) == ownPayload
    }

    /// Waits at most `milliseconds` for a notification carrying `payload`; others that arrive
    /// meanwhile are counted as `pollNotifications` counts them.
    func awaitNotification(payload: String, milliseconds: Int) -> Bool {
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(milliseconds) &* 1_000_000
        while let conn, pq.PQstatus(conn) == CONNECTION_OK {
            _ = pq.PQconsumeInput(conn)
            while let n = pq.PQnotifies(conn) {
                let extra = n.pointee.extra.map { String(cString: $0) }
                pq.PQfreemem(n)
                if extra == payload { return true }
                notificationsFromOthers &+= 1
            }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return false }
            var entry = pollfd(fd: pq.PQsocket(conn), events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32(min((deadline - now) / 1_000_000 + 1, 100)))
        }
        return false
    }
}
