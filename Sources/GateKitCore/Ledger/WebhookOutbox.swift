import GateKitStore
import GateKitSupport

/// The transactional outbox (docs/webhooks.md, "Guarantees"): the changes a write appends to
/// the feed become, in the same transaction, one pending delivery for each endpoint enabled
/// then. A change is never recorded without its deliveries, and no delivery exists for a change
/// that rolled back. What each delivery carries is rendered when it is first sent; which event
/// types an endpoint wants is judged then too, so this costs one statement a write (none read
/// back), whatever the endpoints.
enum WebhookOutbox {
    /// A delivery's states (`ledger_webhook_deliveries.state`).
    static let pending: Int64 = 0

    /// Enqueues the `changes` last appended (the head row's lock is held: they are the newest).
    static func enqueue(_ db: any DatabaseConnection, changes: Int, now: Int64) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_webhook_deliveries(endpoint_id, seq, customer, state, attempts, next_attempt_ms, created_ms)
            SELECT e.id, c.seq, c.environment || '/' || c.test_signed || '/' || c.original_transaction_id, ?1, 0, ?2, ?2
            FROM ledger_changes c, ledger_webhook_endpoints e
            WHERE e.enabled = 1 AND c.seq > (SELECT last_seq FROM ledger_feed_head WHERE id = 1) - ?3
            """).bind(1, pending).bind(2, now).bind(3, Int64(changes)).run()
    }
}
