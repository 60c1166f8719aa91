import Glibc
import GateKitHTTPS
import GateKitLedger
import GateKitStore
import GateKitSupport
import GateKitWebhooks

/// The worker that sends the outbox's deliveries (docs/webhooks.md, "Delivery"). Several may
/// run, in threads and processes on several hosts: a delivery is sent by the worker holding its
/// lease, taken in a transaction and given up when it ends, so no delivery is sent twice at once
/// and one whose worker died is sent again once its lease runs out (at least once). A later event
/// of a customer waits while an earlier one to the same endpoint is pending; others flow. Each
/// endpoint's deliveries are sent by a thread of their own, so one that hangs delays only itself.
public final class WebhookDeliverer: @unchecked Sendable {
    public struct Settings: Sendable {
        /// PEM bytes of the CAs to trust instead of the system's (a test receiver's).
        public var certificateAuthorities: [UInt8]?
        /// One attempt, connection included: a receiver answers in this long or the attempt failed.
        public var attemptTimeoutMs = 10_000
        public var connectTimeoutMs = 5_000
        public var schedule = DeliverySchedule()
        /// Deliver to private, loopback and link-local addresses too (a receiver inside the host's
        /// own network, or a test's on loopback); off, only public addresses are connected to.
        public var allowPrivateAddresses = false
        /// Deliver to `http://` endpoints on loopback too, connecting to loopback addresses only
        /// (a test's receiver without TLS); off, such an endpoint's attempts fail and say why.
        public var allowLoopbackHTTP = false
        /// Names this worker in leases (several workers must differ; the default is unique).
        public var holder: String
        /// Deliveries taken per pass (they are sent at most `parallelEndpoints` endpoints at once).
        public var batch = 64
        public var parallelEndpoints = 8

        public init(holder: String) { self.holder = holder }
    }

    /// What one pass did.
    public struct Pass: Sendable {
        public var attempted = 0
        public var delivered = 0
        public var failed = 0
        public var dead = 0
        /// Events an endpoint does not want: marked so, not sent.
        public var notWanted = 0
        /// Endpoints disabled for failing too long.
        public var disabled: [String] = []

        public var json: JSONValue {
            .object([("attempted", .number(Int64(attempted))), ("delivered", .number(Int64(delivered))), ("failed", .number(Int64(failed))),
                     ("dead", .number(Int64(dead))), ("notWanted", .number(Int64(notWanted))),
                     ("disabled", .array(disabled.map { .string($0) }))])
        }
    }

    static let userAgent = "gatekit-webhooks/\(GateKitVersion.string)"
    /// The most of a receiver's answer kept with an attempt.
    static let excerptLength = 512
    /// How long past its attempts a lease lasts: the time to record their outcomes. A worker
    /// that died is replaced this long after its sends would have ended.
    static let leaseMarginMs: Int64 = 5_000

    let ledger: Ledger
    let settings: Settings
    private let transport: HTTPSTransport
    /// For `http://` endpoints, when the host allows them: plain HTTP to loopback addresses only.
    private let loopbackTransport: HTTPSTransport?

    public init(ledger: Ledger, settings: Settings) throws(GateKitError) {
        guard (100...600_000).contains(settings.attemptTimeoutMs), (100...600_000).contains(settings.connectTimeoutMs) else {
            throw .invalid("a delivery's timeouts are 100 ms to 10 minutes")
        }
        guard (1_000...(30 * 86_400_000)).contains(settings.schedule.giveUpAfterMs),
              (1_000...(30 * 86_400_000)).contains(settings.schedule.disableAfterMs) else {
            throw .invalid("give_up_after_ms and disable_after_ms are 1 second to 30 days")
        }
        guard (1...1_000).contains(settings.batch), (1...64).contains(settings.parallelEndpoints) else {
            throw .invalid("batch is 1 to 1000 and parallel_endpoints 1 to 64")
        }
        guard (1...128).contains(settings.holder.utf8.count) else { throw .invalid("a worker's name is 1 to 128 bytes") }
        var transportSettings = HTTPSTransport.Settings(certificateAuthorities: settings.certificateAuthorities,
                                                        connectTimeoutMilliseconds: settings.connectTimeoutMs,
                                                        userAgent: WebhookDeliverer.userAgent, errors: .webhookDelivery)
        transportSettings.addresses = settings.allowPrivateAddresses ? .any : .publicOnly
        transportSettings.responseLimit = 64 * 1024
        transport = try HTTPSTransport(transportSettings)
        if settings.allowLoopbackHTTP {
            transportSettings.plainHTTP = true
            transportSettings.addresses = .loopbackOnly
            loopbackTransport = try HTTPSTransport(transportSettings)
        } else {
            loopbackTransport = nil
        }
        self.ledger = ledger
        self.settings = settings
    }

    /// Sends what is due, pass after pass, until nothing is or `budgetMs` has passed; the
    /// changes time has made by now are emitted first, so their deliveries exist.
    public func deliverDue(budgetMs: Int) throws(GateKitError) -> Pass {
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(max(budgetMs, 0)) &* 1_000_000
        _ = try ledger.emitDueChanges()
        var total = Pass()
        repeat {
            let pass = try deliverOnce()
            total.attempted += pass.attempted
            total.delivered += pass.delivered
            total.failed += pass.failed
            total.dead += pass.dead
            total.notWanted += pass.notWanted
            total.disabled += pass.disabled
            if pass.attempted == 0 && pass.notWanted == 0 { break }
        } while Clock.monotonicNanoseconds() < deadline
        return total
    }

    /// A delivery taken by this worker.
    struct Claimed {
        let endpoint: WebhookEndpoint
        let seq: Int64
        /// The purchase the change is about: the deliveries' key, and the order kept.
        let customer: String
        let attempts: Int64
        let createdMs: Int64
        let event: WebhookEvent
    }

    /// An attempt's outcome.
    struct Outcome {
        let claimed: Claimed
        let atMs: Int64
        let status: Int  // 0: no answer
        let durationMs: Int64
        let error: String?
        let excerpt: String?
        let retryAfterMs: Int64?
        var succeeded: Bool { (200...299).contains(status) }
    }

    func deliverOnce() throws(GateKitError) -> Pass {
        var pass = Pass()
        let (claimed, notWanted) = try claim()
        pass.notWanted = notWanted
        guard !claimed.isEmpty else { return pass }
        var byEndpoint: [String: [Claimed]] = [:]
        var order: [String] = []
        for c in claimed {
            if byEndpoint[c.endpoint.id] == nil { order.append(c.endpoint.id) }
            byEndpoint[c.endpoint.id, default: []].append(c)
        }
        let outcomes = Outcomes()
        var start = 0
        while start < order.count {
            let group = Array(order[start..<min(start + settings.parallelEndpoints, order.count)])
            start += group.count
            var threads: [BackgroundThread] = []
            for id in group.dropFirst() {
                let list = byEndpoint[id] ?? []
                threads.append(try BackgroundThread.start("webhook delivery") { [self] in outcomes.add(self.send(list)) })
            }
            outcomes.add(send(byEndpoint[group[0]] ?? []))
            for t in threads { t.finish() }
        }
        let all = outcomes.all
        for (outcome, recorded) in zip(all, try record(all)) where outcome.status != -1 {
            pass.attempted += 1
            switch recorded {
            case .delivered: pass.delivered += 1
            case .failed: pass.failed += 1
            case .dead: pass.dead += 1
            case .disabled(let id): pass.failed += 1; pass.disabled.append(id)
            case .leaseLost: break
            }
        }
        return pass
    }

    /// Takes the due deliveries no other worker holds, oldest first, each the earliest pending
    /// one of its customer for its endpoint; renders their events the first time.
    func claim() throws(GateKitError) -> ([Claimed], Int) {
        let now = Clock.nowMilliseconds()
        // An endpoint's deliveries go one after another: the k-th is held for k + 1 attempts'
        // time, and a margin for recording the outcomes.
        var heldPerEndpoint: [String: Int64] = [:]
        func leaseUntil(_ endpoint: String) -> Int64 {
            let k = heldPerEndpoint[endpoint, default: 0] + 1
            heldPerEndpoint[endpoint] = k
            return now + k * Int64(settings.attemptTimeoutMs + settings.connectTimeoutMs) + WebhookDeliverer.leaseMarginMs
        }
        return try ledger.store.write(.subjects([Ledger.webhookClaimsSubject])) { (db) throws(GateKitError) -> ([Claimed], Int) in
            let endpoints = Dictionary(uniqueKeysWithValues: try Ledger.webhookEndpoints(db).map { ($0.id, $0) })
            guard endpoints.values.contains(where: \.enabled) else { return ([], 0) }
            let due = try db.statement("""
                SELECT d.endpoint_id, d.seq, d.attempts, d.created_ms, d.event_type, d.body, d.customer FROM ledger_webhook_deliveries d
                JOIN ledger_webhook_endpoints e ON e.id = d.endpoint_id
                WHERE d.state = 0 AND d.next_attempt_ms <= ?1 AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ?1) AND e.enabled = 1
                    AND NOT EXISTS (SELECT 1 FROM ledger_webhook_deliveries p WHERE p.state = 0 AND p.endpoint_id = d.endpoint_id
                        AND p.customer = d.customer AND p.seq < d.seq)
                ORDER BY d.next_attempt_ms, d.seq LIMIT ?2
                """)
            due.bind(1, now).bind(2, Int64(settings.batch))
            var rows: [(String, Int64, Int64, Int64, String?, String?, String)] = []
            while try due.step() {
                rows.append((due.text(0) ?? "", due.int64(1), due.int64(2), due.int64(3), due.text(4), due.text(5), due.text(6) ?? ""))
            }
            due.reset()
            var claimed: [Claimed] = []
            var notWanted = 0
            for (endpointID, seq, attempts, created, storedType, storedBody, customer) in rows {
                guard let endpoint = endpoints[endpointID] else { continue }
                let event: WebhookEvent
                if let storedType, let storedBody, let type = BusinessEvent(rawValue: storedType) {
                    event = WebhookEvent(id: WebhookEvent.id(seq: seq), type: type, body: storedBody)
                } else {
                    event = try WebhookEvent.render(ledger, db, seq: seq)
                }
                guard endpoint.wants(event.type) else {
                    try db.statement("""
                        UPDATE ledger_webhook_deliveries SET state = 3, done_ms = ?3, event_type = ?4, body = NULL
                        WHERE endpoint_id = ?1 AND customer = ?5 AND seq = ?2
                        """).bind(1, text: endpointID).bind(2, seq).bind(3, now).bind(4, text: event.type.rawValue).bind(5, text: customer).run()
                    notWanted += 1
                    continue
                }
                let take = try db.statement("""
                    UPDATE ledger_webhook_deliveries SET lease_holder = ?3, lease_until_ms = ?4, event_type = ?5, body = ?6
                    WHERE endpoint_id = ?1 AND customer = ?8 AND seq = ?2 AND state = 0 AND (lease_until_ms IS NULL OR lease_until_ms <= ?7)
                    RETURNING seq
                    """)
                take.bind(1, text: endpointID).bind(2, seq).bind(3, text: settings.holder).bind(4, leaseUntil(endpointID))
                    .bind(5, text: event.type.rawValue).bind(6, text: event.body).bind(7, now).bind(8, text: customer)
                let taken = try take.step()
                take.reset()
                if taken {
                    claimed.append(Claimed(endpoint: endpoint, seq: seq, customer: customer, attempts: attempts, createdMs: created, event: event))
                }
            }
            return (claimed, notWanted)
        }
    }

    /// Sends an endpoint's deliveries in order; after a failure the rest wait for the next pass
    /// (a receiver that is down is not asked again at once).
    func send(_ list: [Claimed]) -> [Outcome] {
        var out: [Outcome] = []
        for (i, c) in list.enumerated() {
            let outcome = attempt(c)
            out.append(outcome)
            if !outcome.succeeded {
                // The others are released untried: their lease ends now, their attempt count stays.
                out += list[(i + 1)...].map { Outcome(claimed: $0, atMs: outcome.atMs, status: -1, durationMs: 0, error: nil, excerpt: nil, retryAfterMs: nil) }
                break
            }
        }
        return out
    }

    func attempt(_ c: Claimed) -> Outcome {
        let now = Clock.nowMilliseconds()
        let started = Clock.monotonicNanoseconds()
        func elapsed() -> Int64 { Int64((Clock.monotonicNanoseconds() &- started) / 1_000_000) }
        do throws(GateKitError) {
            let timestamp = now / 1000
            let body = Array(c.event.body.utf8)
            let secrets = try c.endpoint.signingSecrets(at: now)
            let signature = try body.withUnsafeBytes { raw in
                Result { () throws(GateKitError) -> String in try StandardWebhook.sign(id: c.event.id, timestamp: timestamp, body: raw, secrets: secrets) }
            }.get()
            let request = HTTPRequest(method: "POST", url: c.endpoint.url, headers: [
                "Content-Type: application/json", "webhook-id: \(c.event.id)", "webhook-timestamp: \(timestamp)",
                "webhook-signature: \(signature)",
            ], body: body)
            let response = try transport(for: c.endpoint).send(request, timeoutMilliseconds: settings.attemptTimeoutMs)
            let excerpt = String(decoding: response.body.prefix(WebhookDeliverer.excerptLength), as: UTF8.self)
            return Outcome(claimed: c, atMs: now, status: response.status, durationMs: elapsed(),
                           error: (200...299).contains(response.status) ? nil : "answered \(response.status)",
                           excerpt: excerpt.isEmpty ? nil : excerpt, retryAfterMs: response.retryAfter.map { $0 * 1000 })
        } catch {
            return Outcome(claimed: c, atMs: now, status: 0, durationMs: elapsed(), error: error.message, excerpt: nil, retryAfterMs: nil)
        }
    }

    /// HTTPS, or plain HTTP to loopback for an `http://` endpoint when the host allows it.
    private func transport(for endpoint: WebhookEndpoint) throws(GateKitError) -> HTTPSTransport {
        guard endpoint.isLoopbackHTTP else { return transport }
        guard let loopbackTransport else {
            throw GateKitError(.EWEBHOOK_DELIVERY, "the endpoint is plain http://; this worker delivers to it only when loopback HTTP is allowed (GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP)")
        }
        return loopbackTransport
    }

    enum Recorded { case delivered, failed, dead, disabled(String), leaseLost }

    /// Writes the attempts and moves their deliveries on (only those whose lease this worker
    /// still holds), in one transaction.
    func record(_ outcomes: [Outcome]) throws(GateKitError) -> [Recorded] {
        guard !outcomes.isEmpty else { return [] }
        return try ledger.store.write(.subjects([Ledger.webhookClaimsSubject])) { (db) throws(GateKitError) -> [Recorded] in
            var out: [Recorded] = []
            for o in outcomes { out.append(try record(o, db)) }
            return out
        }
    }

    private func record(_ o: Outcome, _ db: any DatabaseConnection) throws(GateKitError) -> Recorded {
        let c = o.claimed
        if o.status == -1 {  // not tried: released for the next pass
            try db.statement("""
                UPDATE ledger_webhook_deliveries SET lease_holder = NULL, lease_until_ms = NULL
                WHERE endpoint_id = ?1 AND customer = ?4 AND seq = ?2 AND lease_holder = ?3
                """).bind(1, text: c.endpoint.id).bind(2, c.seq).bind(3, text: settings.holder).bind(4, text: c.customer).run()
            return .leaseLost
        }
        let held = try db.statement("""
            SELECT attempts, failing_since_ms FROM ledger_webhook_deliveries
            WHERE endpoint_id = ?1 AND customer = ?4 AND seq = ?2 AND lease_holder = ?3 AND state = 0
            """)
        held.bind(1, text: c.endpoint.id).bind(2, c.seq).bind(3, text: settings.holder).bind(4, text: c.customer)
        guard try held.step() else { held.reset(); return .leaseLost }
        // Attempts since the delivery was (re)queued, for its backoff; its attempts are
        // numbered across replays.
        let attempts = held.int64(0) + 1
        let failingSince = held.optionalInt64(1) ?? o.atMs
        held.reset()
        try db.statement("""
            INSERT INTO ledger_webhook_attempts(endpoint_id, seq, attempt, at_ms, status, duration_ms, error, excerpt)
            SELECT ?1, ?2, COALESCE(MAX(attempt), 0) + 1, ?3, ?4, ?5, ?6, ?7 FROM ledger_webhook_attempts WHERE endpoint_id = ?1 AND seq = ?2
            """).bind(1, text: c.endpoint.id).bind(2, c.seq).bind(3, o.atMs).bind(4, Int64(o.status))
            .bind(5, o.durationMs).bind(6, text: o.error.map { String($0.prefix(512)) }).bind(7, text: o.excerpt).run()
        if o.succeeded {
            try db.statement("""
                UPDATE ledger_webhook_deliveries SET state = 1, attempts = ?3, done_ms = ?4, last_status = ?5, last_error = NULL,
                    failing_since_ms = NULL, lease_holder = NULL, lease_until_ms = NULL WHERE endpoint_id = ?1 AND customer = ?6 AND seq = ?2
                """).bind(1, text: c.endpoint.id).bind(2, c.seq).bind(3, attempts).bind(4, Clock.nowMilliseconds()).bind(5, Int64(o.status))
                .bind(6, text: c.customer).run()
            return .delivered
        }
        let now = Clock.nowMilliseconds()
        let dead = now - c.createdMs >= settings.schedule.giveUpAfterMs
        try db.statement("""
            UPDATE ledger_webhook_deliveries SET state = ?3, attempts = ?4, next_attempt_ms = ?5, failing_since_ms = ?6, last_status = ?7,
                last_error = ?8, done_ms = ?9, lease_holder = NULL, lease_until_ms = NULL WHERE endpoint_id = ?1 AND customer = ?10 AND seq = ?2
            """).bind(1, text: c.endpoint.id).bind(2, c.seq).bind(3, dead ? 2 : 0).bind(4, attempts)
            .bind(5, settings.schedule.nextAttempt(after: attempts, now: now, retryAfterMs: o.retryAfterMs)).bind(6, failingSince)
            .bind(7, Int64(o.status)).bind(8, text: o.error.map { String($0.prefix(512)) }).bind(9, dead ? now : nil)
            .bind(10, text: c.customer).run()
        if let reason = try disabling(o, db, now: now), try disable(db, c.endpoint, reason: reason, now: now) { return .disabled(c.endpoint.id) }
        return dead ? .dead : .failed
    }

    /// Why a failed attempt disables its endpoint, or nil: the receiver answered 410 Gone (it
    /// asks for no more deliveries, Standard Webhooks), or it has answered nothing but failures
    /// for `disableAfterMs`.
    private func disabling(_ o: Outcome, _ db: any DatabaseConnection, now: Int64) throws(GateKitError) -> String? {
        if o.status == 410 { return "the receiver answered 410 Gone" }
        guard try failingTooLong(db, endpoint: o.claimed.endpoint.id, now: now) else { return nil }
        return "every delivery failed for \(DeliverySchedule.describe(settings.schedule.disableAfterMs)); the last: \(o.error ?? "")"
    }

    /// Disables an endpoint that is still enabled, and says so in the feed (a notice); false
    /// when another worker or the host disabled it first.
    private func disable(_ db: any DatabaseConnection, _ endpoint: WebhookEndpoint, reason: String, now: Int64) throws(GateKitError) -> Bool {
        let s = try db.statement("""
            UPDATE ledger_webhook_endpoints SET enabled = 0, disabled_ms = ?2, disabled_reason = ?3 WHERE id = ?1 AND enabled = 1 RETURNING id
            """)
        s.bind(1, text: endpoint.id).bind(2, now).bind(3, text: reason)
        let disabled = try s.step()
        s.reset()
        guard disabled else { return false }
        try FeedNotices.append(db, .webhookEndpointDisabled, endpointID: endpoint.id, url: endpoint.url, detail: reason, now: now)
        return true
    }

    /// Whether the endpoint's deliveries have failed, with no success, for `disableAfterMs`.
    private func failingTooLong(_ db: any DatabaseConnection, endpoint: String, now: Int64) throws(GateKitError) -> Bool {
        let s = try db.statement("""
            SELECT MIN(failing_since_ms) FROM ledger_webhook_deliveries WHERE endpoint_id = ?1 AND state IN (0, 2)
                AND failing_since_ms > COALESCE((SELECT MAX(done_ms) FROM ledger_webhook_deliveries WHERE endpoint_id = ?1 AND state = 1), 0)
            """)
        defer { s.reset() }
        s.bind(1, text: endpoint)
        guard try s.step(), let since = s.optionalInt64(0) else { return false }
        return now - since >= settings.schedule.disableAfterMs
    }

    /// Outcomes gathered from the sending threads.
    private final class Outcomes: @unchecked Sendable {
        private let lock = Lock()
        private var list: [Outcome] = []
        func add(_ more: [Outcome]) { lock.withLock { list += more } }
        var all: [Outcome] { lock.withLock { list } }
    }
}

extension WebhookDeliverer {
    /// The store's failures a worker outlives: the server restarting or away, a lock held too
    /// long. It waits and goes on; an attempt whose outcome was not recorded is sent again once
    /// its lease ends (at least once).
    static let passing: Set<GateKitError.Code> = [.ECONNECTION, .EUNCERTAIN, .EBUSY]

    /// Delivers until `stop` says so: a pass, then a wait for the store's next commit, the next
    /// retry or a change time makes, at most `idleMs` (replays queue deliveries with no commit to
    /// the feed). The store away (`passing`) is waited out, a second at a time; ends with any
    /// other error that stopped it.
    public func run(idleMs: Int = 1_000, stop: @escaping @Sendable () -> Bool) -> GateKitError? {
        while !stop() {
            guard let failure = runUntilFailure(idleMs: idleMs, stop: stop) else { return nil }
            guard WebhookDeliverer.passing.contains(failure.code) else { return failure }
            for _ in 0..<10 where !stop() {
                var nap = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                _ = nanosleep(&nap, nil)
            }
        }
        return nil
    }

    private func runUntilFailure(idleMs: Int, stop: @escaping @Sendable () -> Bool) -> GateKitError? {
        do throws(GateKitError) {
            while !stop() {
                let pass = try deliverDue(budgetMs: 1_000)
                let seq = try ledger.store.read { (db) throws(GateKitError) -> Int64 in
                    try db.scalar("SELECT COALESCE(MAX(last_seq), 0) FROM ledger_feed_head")
                }
                let next = try nextAttemptMs()
                let now = Clock.nowMilliseconds()
                var wait = Int64(idleMs)
                if let next { wait = min(wait, max(next - now, 0)) }
                // Due but not taken (leased by another worker, or behind its customer's earlier
                // event): look again shortly rather than at once.
                if pass.attempted == 0 { wait = max(wait, 100) }
                // Short naps so a stop is heard soon.
                var left = wait
                while left > 0, !stop() {
                    let nap = Int(min(left, 100))
                    if try ledger.waitForChanges(after: seq, timeoutMilliseconds: nap) { break }
                    left -= Int64(nap)
                }
            }
            return nil
        } catch {
            return error
        }
    }

    /// The earliest instant a pending delivery to an enabled endpoint comes due.
    func nextAttemptMs() throws(GateKitError) -> Int64? {
        try ledger.store.read { (db) throws(GateKitError) -> Int64? in
            let s = try db.statement("""
                SELECT MIN(CASE WHEN d.lease_until_ms > d.next_attempt_ms THEN d.lease_until_ms ELSE d.next_attempt_ms END) FROM ledger_webhook_deliveries d JOIN ledger_webhook_endpoints e ON e.id = d.endpoint_id
                WHERE d.state = 0 AND e.enabled = 1
                """)
            defer { s.reset() }
            return try s.step() ? s.optionalInt64(0) : nil
        }
    }
}
