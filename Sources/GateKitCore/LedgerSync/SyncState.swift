import GateKitCrypto
import GateKitStore
import GateKitSupport

/// Where an environment's notification-history sync stands (one `ledger_sync` row): the
/// checkpoint, the window under way and its next page, and who holds the lease.
struct SyncState: Equatable {
    /// A span of Apple's history being read page by page.
    struct Window: Equatable {
        var startMs: Int64
        var endMs: Int64
        /// Apple's token for the next page; nil: the window's first page.
        var pageToken: String?
        var pages: Int64
        /// The digests (`Window.digest`) of the page tokens sent in this window, oldest first.
        var tokensSeen: [String] = []
        /// Times this window was begun again because a page token repeated.
        var restarts: Int64 = 0

        /// A page token as remembered: 16 bytes of its SHA-256, in hex.
        static func digest(_ token: String) -> String {
            Hex.encode(Array(((try? Digest.hash(.sha256, Array(token.utf8))) ?? Array(token.utf8)).prefix(16)))
        }

        /// Tokens remembered per window: a cycle longer than this many pages is not recognised.
        static let maximumTokensSeen = 4096
    }

    var syncedUntilMs: Int64?
    var window: Window?
    var leaseOwner: String?
    var leaseUntilMs: Int64?
    /// The Play token the last refresh pass asked about last (nil: start from the first).
    var refreshCursor: String?

    static func subject(_ environment: String) -> String { "ledger-sync/\(environment)" }

    static func read(_ db: any DatabaseConnection, environment: String) throws(GateKitError) -> SyncState {
        let s = try db.statement("""
            SELECT synced_until_ms, window_start_ms, window_end_ms, page_token, pages, lease_owner, lease_until_ms,
                page_tokens_seen, refresh_cursor, window_restarts FROM ledger_sync WHERE environment = ?1
            """)
        defer { s.reset() }
        s.bind(1, text: environment)
        guard try s.step() else { return SyncState() }
        var state = SyncState(syncedUntilMs: s.optionalInt64(0), leaseOwner: s.text(5), leaseUntilMs: s.optionalInt64(6),
                              refreshCursor: s.text(8))
        if let start = s.optionalInt64(1), let end = s.optionalInt64(2) {
            let seen = (s.text(7) ?? "").split(separator: ",").map(String.init)
            state.window = Window(startMs: start, endMs: end, pageToken: s.text(3), pages: s.int64(4), tokensSeen: seen,
                                  restarts: s.optionalInt64(9) ?? 0)
        }
        return state
    }

    func write(_ db: any DatabaseConnection, environment: String, now: Int64) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_sync(environment, synced_until_ms, window_start_ms, window_end_ms, page_token, pages,
                lease_owner, lease_until_ms, updated_ms, page_tokens_seen, refresh_cursor, window_restarts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT(environment) DO UPDATE SET synced_until_ms = excluded.synced_until_ms,
                window_start_ms = excluded.window_start_ms, window_end_ms = excluded.window_end_ms,
                page_token = excluded.page_token, pages = excluded.pages, lease_owner = excluded.lease_owner,
                lease_until_ms = excluded.lease_until_ms, updated_ms = excluded.updated_ms,
                page_tokens_seen = excluded.page_tokens_seen, refresh_cursor = excluded.refresh_cursor,
                window_restarts = excluded.window_restarts
            """).bind(1, text: environment).bind(2, syncedUntilMs).bind(3, window?.startMs).bind(4, window?.endMs)
            .bind(5, text: window?.pageToken).bind(6, window?.pages ?? 0).bind(7, text: leaseOwner).bind(8, leaseUntilMs)
            .bind(9, now).bind(10, text: window.flatMap { $0.tokensSeen.isEmpty ? nil : $0.tokensSeen.joined(separator: ",") })
            .bind(11, text: refreshCursor).bind(12, window.map { $0.restarts }).run()
    }

    /// What `ledger_sync_state` shows; a checkpoint more than `toleranceMs` after this host's
    /// `now` is flagged ("checkpointAheadMs"): this host's clock is slow, or a host whose clock
    /// ran fast wrote it (the next sync asks the server which, and heals the latter).
    func json(environment: String, now: Int64? = nil, toleranceMs: Int64 = 0) -> JSONValue {
        var members: [(String, JSONValue)] = [("version", .number(1)), ("environment", .string(environment)),
                                              ("syncedUntil", syncedUntilMs.map { .number($0) } ?? .null)]
        if let now, let synced = syncedUntilMs, synced > now, synced - now > toleranceMs {
            members.append(("checkpointAheadMs", .number(synced - now)))
        }
        if let window {
            members.append(("window", .object([("start", .number(window.startMs)), ("end", .number(window.endMs)),
                                                ("pages", .number(window.pages))])))
        }
        if let leaseUntilMs, leaseOwner != nil { members.append(("leaseUntil", .number(leaseUntilMs))) }
        return .object(members)
    }
}
