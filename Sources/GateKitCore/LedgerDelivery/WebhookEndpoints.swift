import GateKitCrypto
import GateKitLedger
import GateKitStore
import GateKitSupport
import GateKitWebhooks

/// The endpoints in the store (`ledger_webhook_endpoints`, migration 27): registered, changed,
/// their secret rolled, disabled and enabled. Each edit is one short transaction; the changes
/// committed after it are delivered as it says.
extension Ledger {
    /// Edits are serialised among themselves; ingestion reads endpoints without waiting on them.
    static let webhookEndpointsSubject = "ledger/webhook-endpoints"
    /// Claims, outcomes and replays of deliveries are serialised among themselves.
    static let webhookClaimsSubject = "ledger/webhook-claims"
    public static let maximumWebhookEndpoints = 64

    /// Registers an endpoint, enabled, with a new secret (in the answer only this once).
    public func addWebhookEndpoint(url: String, eventTypes: [String], description: String, allowed: WebhookEndpoint.Allowed) throws(GateKitError) -> WebhookEndpoint {
        let endpoint = WebhookEndpoint(id: "ep_" + Hex.encode(try RandomBytes.make(12)), url: try WebhookEndpoint.checkedURL(url, allowed),
                                       eventTypes: try WebhookEndpoint.eventTypes(eventTypes), description: try Self.checkedDescription(description),
                                       enabled: true, createdMs: Clock.nowMilliseconds(), secret: try WebhookSecret.generate())
        try store.write(.subjects([Self.webhookEndpointsSubject])) { (db) throws(GateKitError) in
            guard try db.scalar("SELECT COUNT(*) FROM ledger_webhook_endpoints") < Int64(Self.maximumWebhookEndpoints) else {
                throw .invalid("a store holds at most \(Self.maximumWebhookEndpoints) webhook endpoints")
            }
            try db.statement("""
                INSERT INTO ledger_webhook_endpoints(id, url, event_types, secret, enabled, description, created_ms)
                VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6)
                """).bind(1, text: endpoint.id).bind(2, text: endpoint.url).bind(3, text: Self.typesText(endpoint.eventTypes))
                .bind(4, text: endpoint.secret).bind(5, text: endpoint.description).bind(6, endpoint.createdMs).run()
        }
        return endpoint
    }

    /// What may change of an endpoint (nil: as it is).
    public struct WebhookEndpointChange: Sendable {
        public var url: String?
        public var eventTypes: [String]?
        public var description: String?
        public var enabled: Bool?
        public init(url: String? = nil, eventTypes: [String]? = nil, description: String? = nil, enabled: Bool? = nil) {
            self.url = url
            self.eventTypes = eventTypes
            self.description = description
            self.enabled = enabled
        }
    }

    /// Changes an endpoint. Enabling one GateKit disabled clears the reason; its dead
    /// deliveries stay dead (replay them).
    public func updateWebhookEndpoint(_ id: String, _ change: WebhookEndpointChange, allowed: WebhookEndpoint.Allowed) throws(GateKitError) -> WebhookEndpoint {
        let url = try change.url.map { (u) throws(GateKitError) in try WebhookEndpoint.checkedURL(u, allowed) }
        let types = try change.eventTypes.map { (t) throws(GateKitError) in try WebhookEndpoint.eventTypes(t) }
        let description = try change.description.map { (d) throws(GateKitError) in try Self.checkedDescription(d) }
        return try store.write(.subjects([Self.webhookEndpointsSubject])) { (db) throws(GateKitError) -> WebhookEndpoint in
            var endpoint = try Self.webhookEndpoint(db, id)
            if let url { endpoint.url = url }
            if let types { endpoint.eventTypes = types }
            if let description { endpoint.description = description }
            if let enabled = change.enabled, enabled != endpoint.enabled {
                endpoint.enabled = enabled
                endpoint.disabledMs = enabled ? nil : Clock.nowMilliseconds()
                endpoint.disabledReason = enabled ? nil : "disabled by the host"
            }
            try Self.save(db, endpoint)
            return endpoint
        }
    }

    /// A new secret for the endpoint; the old one signs too for `overlapMs` more (0: not at all),
    /// so receivers can take the new one without refusing a delivery. The answer holds the new secret.
    public func rollWebhookSecret(_ id: String, overlapMs: Int64) throws(GateKitError) -> WebhookEndpoint {
        guard (0...(7 * 86_400_000)).contains(overlapMs) else { throw .invalid("overlap_ms must be 0 to 7 days, not \(overlapMs)") }
        let fresh = try WebhookSecret.generate()
        return try store.write(.subjects([Self.webhookEndpointsSubject])) { (db) throws(GateKitError) -> WebhookEndpoint in
            var endpoint = try Self.webhookEndpoint(db, id)
            endpoint.previousSecret = overlapMs > 0 ? endpoint.secret : nil
            endpoint.previousUntilMs = overlapMs > 0 ? Clock.nowMilliseconds() + overlapMs : nil
            endpoint.secret = fresh
            try Self.save(db, endpoint)
            return endpoint
        }
    }

    /// Every endpoint, oldest first.
    public func webhookEndpoints() throws(GateKitError) -> [WebhookEndpoint] {
        try store.read { (db) throws(GateKitError) -> [WebhookEndpoint] in try Self.webhookEndpoints(db) }
    }

    static func webhookEndpoints(_ db: any DatabaseConnection, id: String? = nil) throws(GateKitError) -> [WebhookEndpoint] {
        let s = try db.statement("""
            SELECT id, url, event_types, secret, previous_secret, previous_until_ms, enabled, description, created_ms, disabled_ms, disabled_reason
            FROM ledger_webhook_endpoints WHERE ?1 IS NULL OR id = ?1 ORDER BY created_ms, id
            """)
        defer { s.reset() }
        s.bind(1, text: id)
        var out: [WebhookEndpoint] = []
        while try s.step() {
            var types: [BusinessEvent] = []
            for name in (s.text(2) ?? "").split(separator: " ") {
                guard let type = BusinessEvent(rawValue: String(name)) else {
                    throw GateKitError(.ECORRUPT, "ledger_webhook_endpoints names the unknown event type \(Quoted.text(String(name)))")
                }
                types.append(type)
            }
            out.append(WebhookEndpoint(id: s.text(0) ?? "", url: s.text(1) ?? "", eventTypes: types, description: s.text(7) ?? "",
                                       enabled: s.int64(6) == 1, createdMs: s.int64(8), disabledMs: s.optionalInt64(9),
                                       disabledReason: s.text(10), secret: s.text(3) ?? "", previousSecret: s.text(4),
                                       previousUntilMs: s.optionalInt64(5)))
        }
        return out
    }

    static func webhookEndpoint(_ db: any DatabaseConnection, _ id: String) throws(GateKitError) -> WebhookEndpoint {
        guard let endpoint = try webhookEndpoints(db, id: id).first else {
            throw GateKitError(.ENOTFOUND, "no webhook endpoint has the id \(Quoted.text(id))")
        }
        return endpoint
    }

    static func save(_ db: any DatabaseConnection, _ e: WebhookEndpoint) throws(GateKitError) {
        try db.statement("""
            UPDATE ledger_webhook_endpoints SET url = ?2, event_types = ?3, secret = ?4, previous_secret = ?5, previous_until_ms = ?6,
                enabled = ?7, description = ?8, disabled_ms = ?9, disabled_reason = ?10 WHERE id = ?1
            """).bind(1, text: e.id).bind(2, text: e.url).bind(3, text: typesText(e.eventTypes)).bind(4, text: e.secret)
            .bind(5, text: e.previousSecret).bind(6, e.previousUntilMs).bind(7, e.enabled ? 1 : 0).bind(8, text: e.description)
            .bind(9, e.disabledMs).bind(10, text: e.disabledReason).run()
    }

    private static func typesText(_ types: [BusinessEvent]) -> String { types.map(\.rawValue).joined(separator: " ") }

    private static func checkedDescription(_ d: String) throws(GateKitError) -> String {
        guard d.utf8.count <= 256, !d.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .invalid("an endpoint's description is at most 256 bytes of text, without control characters")
        }
        return d
    }
}
