import GateKitLedger
import GateKitStore
import GateKitSupport

/// What a delivery carries (docs/webhooks.md, "Events"): the feed's change `seq` named as a
/// business event, in the Standard Webhooks shape {"type","timestamp","data"}. `data` is the
/// change as the feed lists it (customer, app accounts, product, entitlement names, store, the
/// answer after the change) with the answer before it, the period and price of the purchase's
/// newest transaction by then, and whether that period is a free trial. Rendered once, when the
/// delivery is first sent, and kept: every attempt and replay sends the same bytes.
struct WebhookEvent {
    let id: String
    let type: BusinessEvent
    let body: String

    /// The event's id: the same for every endpoint, attempt and replay (a receiver's key to
    /// drop duplicates).
    static func id(seq: Int64) -> String { "evt_\(seq)" }

    static func render(_ ledger: Ledger, _ db: any DatabaseConnection, seq: Int64) throws(GateKitError) -> WebhookEvent {
        guard case .object(var data)? = try ledger.change(db, seq: seq) else {
            throw GateKitError(.ECORRUPT, "a webhook delivery names the change \(seq), which the feed does not hold")
        }
        let s = try db.statement("""
            SELECT environment, test_signed, original_transaction_id, product_id, entitled, reason, until_ms, at_ms, will_renew, cause
            FROM ledger_changes WHERE seq = ?1
            """)
        defer { s.reset() }
        s.bind(1, seq)
        guard try s.step() else { throw GateKitError(.ECORRUPT, "the change \(seq) vanished while it was read") }
        let environment = s.text(0) ?? "", test = s.int64(1), original = s.text(2) ?? "", product = s.text(3) ?? ""
        let after = (entitled: s.int64(4) == 1, reason: try reason(s.int64(5)), untilMs: s.optionalInt64(6))
        let at = s.int64(7)
        let renewalAfter = s.optionalInt64(8)
        let isTransfer = s.text(9) == "transfer"  // the feed's cause (docs/ledger.md)

        let before = try db.statement("""
            SELECT entitled, reason, until_ms, will_renew, app_user_ids FROM ledger_changes WHERE environment = ?1 AND test_signed = ?2
                AND original_transaction_id = ?3 AND product_id = ?4 AND seq < ?5 ORDER BY seq DESC LIMIT 1
            """)
        defer { before.reset() }
        before.bind(1, text: environment).bind(2, test).bind(3, text: original).bind(4, text: product).bind(5, seq)
        let previous = try before.step() ? (entitled: before.int64(0) == 1, reason: try reason(before.int64(1)), untilMs: before.optionalInt64(2)) : nil
        let renewalBefore = previous == nil ? nil : before.optionalInt64(3)
        let usersBefore = previous == nil ? nil : before.text(4)

        let other = try db.statement("""
            SELECT 1 FROM ledger_changes WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3
                AND product_id <> ?4 AND seq < ?5 LIMIT 1
            """)
        defer { other.reset() }
        other.bind(1, text: environment).bind(2, test).bind(3, text: original).bind(4, text: product).bind(5, seq)
        let otherProductBefore = try other.step()

        // The purchase's transactions of this product by the change's instant, newest first:
        // the period the answer ends with, and the one before it.
        let t = try db.statement("""
            SELECT transaction_id, trial, price, currency, purchase_ms, expires_ms, store FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 AND product_id = ?4
                AND (purchase_ms IS NULL OR purchase_ms <= ?5)
            ORDER BY purchase_ms DESC, signed_ms DESC LIMIT 16
            """)
        defer { t.reset() }
        t.bind(1, text: environment).bind(2, test).bind(3, text: original).bind(4, text: product).bind(5, at)
        var newest: (id: String, trial: Bool, price: Int64?, currency: String?, start: Int64?, end: Int64?, store: PurchaseStore)?
        var trialBefore = false
        while try t.step() {
            let id = t.text(0) ?? ""
            if let newest {
                if id != newest.id { trialBefore = t.optionalInt64(1) == 1; break }
            } else {
                newest = (id, t.optionalInt64(1) == 1, t.optionalInt64(2), t.text(3), t.optionalInt64(4), t.optionalInt64(5),
                          PurchaseStore(stored: t.text(6)))
            }
        }

        let type = BusinessEvent.of(.init(before: previous, after: after, willRenewBefore: renews(renewalBefore), willRenewAfter: renews(renewalAfter),
                                          otherProductBefore: otherProductBefore, isGrant: newest.map { !$0.store.rules.isSale } ?? false,
                                          isTransfer: isTransfer, trialNow: newest?.trial ?? false, trialBefore: trialBefore))
        if let previous {
            var members: [(String, JSONValue)] = [("entitled", .bool(previous.entitled)), ("reason", .string(previous.reason.name))]
            if let until = previous.untilMs { members.append(("until", .number(until))) }
            if let code = renewalBefore, code != 2 { members.append(("willRenew", .bool(code == 1))) }
            if isTransfer, let users = usersBefore {
                do throws(GateKitError) { members.append(("appUserIds", try JSONParser.parse(Array(users.utf8)))) } catch {
                    throw GateKitError(.ECORRUPT, "ledger_changes holds app user ids that are not JSON")
                }
            }
            data.append(("previous", .object(members)))
        }
        if let newest {
            data.append(("transactionId", .string(newest.id)))
            var period: [(String, JSONValue)] = []
            if let start = newest.start { period.append(("start", .number(start))) }
            if let end = newest.end { period.append(("end", .number(end))) }
            if !period.isEmpty { data.append(("period", .object(period))) }
            if let price = newest.price, let currency = newest.currency {
                data.append(("price", .object([("milliunits", .number(price)), ("currency", .string(currency))])))
            }
            data.append(("trial", .bool(newest.trial)))
        }
        let id = id(seq: seq)
        data.insert(("id", .string(id)), at: 0)
        let body = JSONWriter.serialize(.object([("type", .string(type.rawValue)), ("timestamp", .string(Timestamp.rfc3339Milliseconds(at))),
                                                 ("data", .object(data))]))
        return WebhookEvent(id: id, type: type, body: body)
    }

    /// Whether a stored renewal code (`will_renew`) says the subscription renews: it does unless
    /// a store said not (2, not said: renews); nil for rows kept before the code was.
    private static func renews(_ code: Int64?) -> Bool? { code.map { $0 != 0 } }

    private static func reason(_ raw: Int64) throws(GateKitError) -> Entitlement.Reason {
        guard let reason = Int32(exactly: raw).flatMap(Entitlement.Reason.init(rawValue:)) else {
            throw GateKitError(.ECORRUPT, "ledger_changes holds the unknown reason \(raw)")
        }
        return reason
    }
}
