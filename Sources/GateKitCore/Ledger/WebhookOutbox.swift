import GateKitStore
import GateKitSupport

/// The transactional outbox (docs/webhooks.md, "Guarantees"): the changes a write appends to
/// the feed become, in the same transaction, one pending delivery for each endpoint enabled
/// then. A change is never recorded without its deliveries, and no delivery exists for a change
/// that rolled back. What each delivery carries is rendered when it is first sent; which event
/// types an endpoint wants is judged then too, so this costs one statement a write (none read
/// back), whatever the endpoints.
package enum WebhookOutbox {
    /// A delivery's states (`ledger_webhook_deliveries.state`).
    static let pending: Int64 = 0

    /// A delivery's customer, the key its order is kept by: the purchase the change `c` is about.
    private static let customer = "c.environment || '/' || c.test_signed || '/' || c.original_transaction_id"

    /// Enqueues the `changes` last appended (the head row's lock is held: they are the newest).
    /// The endpoints first (CROSS JOIN fixes SQLite's order): with the changes first, SQLite
    /// builds an automatic index of the endpoints on every write.
    static func enqueue(_ db: any DatabaseConnection, changes: Int, now: Int64) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_webhook_deliveries(endpoint_id, seq, customer, state, attempts, next_attempt_ms, created_ms)
            SELECT e.id, c.seq, \(customer), ?1, 0, ?2, ?2
            FROM ledger_webhook_endpoints e CROSS JOIN ledger_changes c
            WHERE e.enabled = 1 AND c.seq > (SELECT last_seq FROM ledger_feed_head WHERE id = 1) - ?3
            """).bind(1, pending).bind(2, now).bind(3, Int64(changes)).run()
    }

    /// Queues again to endpoint `id` the changes numbered `seqs` and recorded within `recorded`,
    /// whatever became of them (a new retry window, its attempts kept); returns how many.
    package static func requeue(_ db: any DatabaseConnection, endpoint id: String, seqs: ClosedRange<Int64>, recorded: ClosedRange<Int64>,
                                now: Int64) throws(GateKitError) -> Int64 {
        let s = try db.statement("""
            INSERT INTO ledger_webhook_deliveries(endpoint_id, seq, customer, state, attempts, next_attempt_ms, created_ms)
            SELECT ?1, c.seq, \(customer), ?7, 0, ?2, ?2
            FROM ledger_changes c WHERE c.seq BETWEEN ?3 AND ?4 AND c.recorded_ms BETWEEN ?5 AND ?6
            ON CONFLICT (endpoint_id, customer, seq) DO UPDATE SET state = excluded.state, attempts = 0, next_attempt_ms = excluded.next_attempt_ms,
                created_ms = excluded.created_ms, failing_since_ms = NULL, done_ms = NULL, lease_holder = NULL, lease_until_ms = NULL
            RETURNING seq
            """)
        defer { s.reset() }
        s.bind(1, text: id).bind(2, now).bind(3, seqs.lowerBound).bind(4, seqs.upperBound).bind(5, recorded.lowerBound)
            .bind(6, recorded.upperBound).bind(7, pending)
        var count: Int64 = 0
        while try s.step() { count += 1 }
        return count
    }
}

extension WebhookOutbox {
    /// How one endpoint's deliveries stand: what the report page and the delivery layer's
    /// report show.
    package struct Standing: Sendable {
        package let endpointID: String
        package let url: String
        package let enabled: Bool
        package let disabledReason: String?
        package let pending: Int64
        package let oldestPendingMs: Int64?
        package let delivered: Int64
        package let dead: Int64
        package let notWanted: Int64
        package let lastSuccessMs: Int64?
        package let attempts: Int64
        package let lastFailure: String?
    }

    /// Every endpoint's standing, oldest endpoint first: counted over its deliveries (a range of
    /// their primary key), so a report reads each delivery once.
    package static func standing(_ db: any DatabaseConnection) throws(GateKitError) -> [Standing] {
        let s = try db.statement("""
            SELECT e.id, e.url, e.enabled, e.disabled_reason,
                (SELECT COUNT(*) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 0),
                (SELECT MIN(created_ms) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 0),
                (SELECT COUNT(*) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 1),
                (SELECT COUNT(*) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 2),
                (SELECT COUNT(*) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 3),
                (SELECT MAX(done_ms) FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 1),
                (SELECT COUNT(*) FROM ledger_webhook_attempts a WHERE a.endpoint_id = e.id),
                (SELECT d.last_error FROM ledger_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.last_error IS NOT NULL
                    ORDER BY d.next_attempt_ms DESC LIMIT 1)
            FROM ledger_webhook_endpoints e ORDER BY e.created_ms, e.id
            """)
        defer { s.reset() }
        var out: [Standing] = []
        while try s.step() {
            out.append(Standing(endpointID: s.text(0) ?? "", url: s.text(1) ?? "", enabled: s.int64(2) == 1, disabledReason: s.text(3),
                                pending: s.int64(4), oldestPendingMs: s.optionalInt64(5), delivered: s.int64(6), dead: s.int64(7),
                                notWanted: s.int64(8), lastSuccessMs: s.optionalInt64(9), attempts: s.int64(10), lastFailure: s.text(11)))
        }
        return out
    }
}
