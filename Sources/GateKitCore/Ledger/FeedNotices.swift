import GateKitStore
import GateKitSupport

/// Notices of the change feed: what happened to the ledger's delivery rather than to a
/// purchase (an endpoint the delivery worker disabled), numbered with the feed's changes by the
/// same head row, so a reader's one cursor covers both and a waiting reader wakes for either.
/// They are listed apart from the changes (`"notices"` of `ledger_changes`): a reader that
/// handles purchases never mistakes one for an answer.
package enum FeedNotices {
    package enum Kind: String, Sendable {
        /// The delivery worker disabled a webhook endpoint (docs/webhooks.md, "Retries").
        case webhookEndpointDisabled = "webhook_endpoint_disabled"
    }

    /// Appends a notice: the last statements of the writing transaction, like the feed's
    /// changes (the head row's lock, held until commit, keeps every number in commit order).
    package static func append(_ db: any DatabaseConnection, _ kind: Kind, endpointID: String, url: String, detail: String,
                               now: Int64) throws(GateKitError) {
        try ChangeFeedRows.advanceHead(db, by: 1)
        try db.statement("""
            INSERT INTO ledger_feed_notices(seq, at_ms, kind, endpoint_id, url, detail)
            VALUES ((SELECT last_seq FROM ledger_feed_head WHERE id = 1), ?1, ?2, ?3, ?4, ?5)
            """).bind(1, now).bind(2, text: kind.rawValue).bind(3, text: endpointID).bind(4, text: url)
            .bind(5, text: String(detail.prefix(1024))).run()
    }

    /// The notices numbered after `seq`, oldest first, at most `limit`, as `ledger_changes`
    /// lists them (with their numbers).
    static func after(_ db: any DatabaseConnection, _ seq: Int64, limit: Int) throws(GateKitError) -> [(seq: Int64, json: JSONValue)] {
        let s = try db.statement("""
            SELECT seq, at_ms, kind, endpoint_id, url, detail FROM ledger_feed_notices WHERE seq > ?1 ORDER BY seq LIMIT ?2
            """)
        defer { s.reset() }
        s.bind(1, seq).bind(2, Int64(limit))
        var out: [(seq: Int64, json: JSONValue)] = []
        while try s.step() {
            out.append((s.int64(0), .object([
                ("seq", .number(s.int64(0))), ("at", .number(s.int64(1))), ("kind", .string(s.text(2) ?? "")),
                ("endpointId", .string(s.text(3) ?? "")), ("url", .string(s.text(4) ?? "")), ("detail", .string(s.text(5) ?? "")),
            ])))
        }
        return out
    }
}
