import GateKitLedger
import GateKitStore
import GateKitSupport

/// How each endpoint's deliveries stand (docs/webhooks.md, "Watching delivery"): pending, the
/// age of the oldest pending, attempts made, dead, not wanted, delivered and the last success —
/// as JSON, and as the Prometheus text exposition a fleet scrapes.
extension Ledger {
    public struct WebhookEndpointReport: Sendable {
        public let endpoint: WebhookEndpoint
        public var pending: Int64 = 0
        public var oldestPendingMs: Int64?
        public var delivered: Int64 = 0
        public var dead: Int64 = 0
        public var notWanted: Int64 = 0
        public var attempts: Int64 = 0
        public var lastSuccessMs: Int64?
        public var lastFailure: String?

        public func json(now: Int64) -> JSONValue {
            guard case .object(var members) = endpoint.json() else { return .null }
            var stats: [(String, JSONValue)] = [("pending", .number(pending))]
            if let oldest = oldestPendingMs { stats.append(("oldestPendingAgeMs", .number(max(now - oldest, 0)))) }
            stats += [("delivered", .number(delivered)), ("dead", .number(dead)), ("notWanted", .number(notWanted)), ("attempts", .number(attempts))]
            if let lastSuccessMs { stats.append(("lastSuccess", .number(lastSuccessMs))) }
            if let lastFailure { stats.append(("lastFailure", .string(lastFailure))) }
            members.append(("deliveries", .object(stats)))
            return .object(members)
        }
    }

    public func webhookReport() throws(GateKitError) -> [WebhookEndpointReport] {
        try store.read { (db) throws(GateKitError) -> [WebhookEndpointReport] in
            let endpoints = Dictionary(uniqueKeysWithValues: try Ledger.webhookEndpoints(db).map { ($0.id, $0) })
            return try WebhookOutbox.standing(db).compactMap { s in
                guard let endpoint = endpoints[s.endpointID] else { return nil }
                var r = WebhookEndpointReport(endpoint: endpoint)
                r.pending = s.pending
                r.oldestPendingMs = s.oldestPendingMs
                r.delivered = s.delivered
                r.dead = s.dead
                r.notWanted = s.notWanted
                r.attempts = s.attempts
                r.lastSuccessMs = s.lastSuccessMs
                r.lastFailure = s.lastFailure
                return r
            }
        }
    }

    public func webhookReportJSON() throws(GateKitError) -> String {
        let now = Clock.nowMilliseconds()
        return JSONWriter.serialize(.object([("endpoints", .array(try webhookReport().map { $0.json(now: now) }))]))
    }

    /// The Prometheus text exposition format 0.0.4, one series per endpoint (labelled by id).
    public func webhookMetricsText() throws(GateKitError) -> String {
        let reports = try webhookReport()
        let now = Clock.nowMilliseconds()
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: (WebhookEndpointReport) -> Double?) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for r in reports {
                guard let v = value(r) else { continue }
                out += "\(name){endpoint=\"\(r.endpoint.id)\"} \(v == v.rounded() ? String(Int64(v)) : String(v))\n"
            }
        }
        family("gatekit_webhook_pending", "gauge", "Deliveries waiting to be sent or retried.") { Double($0.pending) }
        family("gatekit_webhook_oldest_pending_age_seconds", "gauge", "Age of the oldest pending delivery.") { r in
            r.oldestPendingMs.map { Double(max(now - $0, 0)) / 1000 } ?? 0
        }
        family("gatekit_webhook_delivered_total", "counter", "Deliveries a receiver acknowledged with a 2xx.") { Double($0.delivered) }
        family("gatekit_webhook_dead_total", "counter", "Deliveries given up after the retry window.") { Double($0.dead) }
        family("gatekit_webhook_attempts_total", "counter", "Attempts made, successful or not.") { Double($0.attempts) }
        family("gatekit_webhook_last_success_timestamp_seconds", "gauge", "When a delivery last succeeded.") { r in
            r.lastSuccessMs.map { Double($0) / 1000 }
        }
        family("gatekit_webhook_endpoint_enabled", "gauge", "1 while the endpoint is enabled.") { $0.endpoint.enabled ? 1 : 0 }
        return out
    }

    /// Queues again, to endpoint `id`, the events of the changes numbered `fromSeq` to `toSeq`
    /// and recorded from `fromMs` to `toMs` (each bound inclusive; 0 and Int64.max for open
    /// ends), whatever became of them: sent, dead, not wanted, or never queued there. Returns
    /// how many were queued; each goes with its id and body as first sent.
    public func replayWebhooks(to id: String, fromSeq: Int64, toSeq: Int64, fromMs: Int64, toMs: Int64) throws(GateKitError) -> Int64 {
        guard fromSeq >= 0, toSeq >= fromSeq, fromMs >= 0, toMs >= fromMs else { throw .invalid("a replay's range is empty or negative") }
        return try store.write(.subjects([Ledger.webhookClaimsSubject])) { (db) throws(GateKitError) -> Int64 in
            _ = try Ledger.webhookEndpoint(db, id)
            return try WebhookOutbox.requeue(db, endpoint: id, seqs: fromSeq...toSeq, recorded: fromMs...toMs, now: Clock.nowMilliseconds())
        }
    }
}

extension Ledger {
    /// A delivery's states, by name.
    public static let webhookDeliveryStates = ["pending", "delivered", "dead", "not-wanted"]

    /// Endpoint `id`'s deliveries after `afterSeq` (of one state, or all), with every attempt.
    public func webhookDeliveriesJSON(endpoint id: String, state: String?, afterSeq: Int64, limit: Int) throws(GateKitError) -> String {
        guard (1...1_000).contains(limit) else { throw .invalid("limit must be 1 to 1000, not \(limit)") }
        guard afterSeq >= 0 else { throw .invalid("after_seq is negative") }
        let stateNumber = try state.map { (name) throws(GateKitError) -> Int64 in
            guard let i = Ledger.webhookDeliveryStates.firstIndex(of: name) else {
                throw .invalid("a delivery's state is one of \(Ledger.webhookDeliveryStates.joined(separator: ", ")), not \(Quoted.text(name))")
            }
            return Int64(i)
        }
        return try store.read { (db) throws(GateKitError) -> String in
            _ = try Ledger.webhookEndpoint(db, id)
            let s = try db.statement("""
                SELECT seq, state, event_type, next_attempt_ms, last_status, last_error, done_ms FROM ledger_webhook_deliveries
                WHERE endpoint_id = ?1 AND seq > ?2 AND (?3 IS NULL OR state = ?3) ORDER BY seq LIMIT ?4
                """)
            defer { s.reset() }
            s.bind(1, text: id).bind(2, afterSeq).bind(3, stateNumber).bind(4, Int64(limit))
            let a = try db.statement("""
                SELECT at_ms, status, duration_ms, error, excerpt FROM ledger_webhook_attempts WHERE endpoint_id = ?1 AND seq = ?2 ORDER BY attempt
                """)
            var items: [JSONValue] = []
            var last = afterSeq
            while try s.step() {
                let seq = s.int64(0)
                last = seq
                let state = Int(s.int64(1))
                var members: [(String, JSONValue)] = [("seq", .number(seq)), ("eventId", .string(WebhookEvent.id(seq: seq)))]
                if let type = s.text(2) { members.append(("type", .string(type))) }
                members.append(("state", .string(Ledger.webhookDeliveryStates.indices.contains(state) ? Ledger.webhookDeliveryStates[state] : "unknown")))
                if state == 0 { members.append(("nextAttempt", .number(s.int64(3)))) }
                if let done = s.optionalInt64(6) { members.append(("done", .number(done))) }
                var attempts: [JSONValue] = []
                a.bind(1, text: id).bind(2, seq)
                while try a.step() {
                    var m: [(String, JSONValue)] = [("at", .number(a.int64(0))), ("status", .number(a.int64(1))), ("durationMs", .number(a.int64(2)))]
                    if let error = a.text(3) { m.append(("error", .string(error))) }
                    if let excerpt = a.text(4) { m.append(("excerpt", .string(excerpt))) }
                    attempts.append(.object(m))
                }
                a.reset()
                members.append(("attempts", .array(attempts)))
                items.append(.object(members))
            }
            return JSONWriter.serialize(.object([("deliveries", .array(items)), ("last", .number(last))]))
        }
    }
}
