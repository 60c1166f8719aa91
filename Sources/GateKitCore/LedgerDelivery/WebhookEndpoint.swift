import GateKitHTTPS
import GateKitSupport
import GateKitWebhooks

/// An endpoint a team registered: where its backend hears of the ledger's changes, the event
/// types it wants (none named: every type), and the secret deliveries are signed with — two
/// while a secret is rolled, the old one until `previousUntilMs`.
public struct WebhookEndpoint: Sendable {
    public let id: String
    public var url: String
    public var eventTypes: [BusinessEvent]
    public var description: String
    public var enabled: Bool
    public let createdMs: Int64
    public var disabledMs: Int64?
    public var disabledReason: String?
    var secret: String
    var previousSecret: String?
    var previousUntilMs: Int64?

    /// Whether the endpoint wants events of `type`.
    func wants(_ type: BusinessEvent) -> Bool { eventTypes.isEmpty || eventTypes.contains(type) }

    /// The secrets that sign a delivery at `now`: the current one, and the previous one while
    /// its overlap lasts (receivers holding either accept it).
    func signingSecrets(at now: Int64) throws(GateKitError) -> [WebhookSecret] {
        var out = [try WebhookSecret(secret)]
        if let previousSecret, let until = previousUntilMs, until > now { out.append(try WebhookSecret(previousSecret)) }
        return out
    }

    /// As the host reads it; the secret only where it was just made (`withSecret`).
    public func json(withSecret: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id)), ("url", .string(url)),
                                              ("eventTypes", .array(eventTypes.map { .string($0.rawValue) })),
                                              ("description", .string(description)), ("enabled", .bool(enabled)),
                                              ("created", .number(createdMs))]
        if let disabledMs { members.append(("disabled", .number(disabledMs))) }
        if let disabledReason { members.append(("disabledReason", .string(disabledReason))) }
        if let previousUntilMs, previousSecret != nil { members.append(("previousSecretUntil", .number(previousUntilMs))) }
        if withSecret { members.append(("secret", .string(secret))) }
        return .object(members)
    }

    /// The event type names `names` (none: every type), each one known.
    static func eventTypes(_ names: [String]) throws(GateKitError) -> [BusinessEvent] {
        var out: [BusinessEvent] = []
        for name in names {
            guard let type = BusinessEvent(rawValue: name) else {
                let near = NearestName.nearest(to: name, among: BusinessEvent.allCases.map(\.rawValue))
                throw .invalid("no event type is called \(Quoted.text(name))" + (near.map { "; did you mean \(Quoted.text($0))?" } ?? ""))
            }
            if !out.contains(type) { out.append(type) }
        }
        return out
    }

    /// `url` if deliveries may go there: https:// (no credentials, query or fragment), and a
    /// host on the public internet unless the host allows private ones (a receiver on loopback in
    /// tests, one inside its own network). Each connection is checked again at its address.
    /// Plain http:// only where the host allows it, and only to loopback (a test's receiver).
    static func checkedURL(_ url: String, _ allowed: Allowed) throws(GateKitError) -> String {
        guard url.utf8.count <= 2048 else { throw .invalid("an endpoint URL is at most 2048 bytes") }
        if url.hasPrefix("http://") { return try checkedLoopbackHTTP(url, allowed) }
        let checked = try HTTPSURL.checked(url, what: "an endpoint URL")
        guard !allowed.privateAddresses else { return checked }
        let host = hostName(checked)
        if let bytes = PublicAddress.literal(host) {
            guard PublicAddress.isPublic(bytes) else {
                throw .invalid("an endpoint URL names \(host), not a public address (allow private addresses to deliver inside your network)")
            }
        } else if host.lowercased() == "localhost" || host.lowercased().hasSuffix(".localhost") || !host.contains(".") {
            throw .invalid("an endpoint URL names \(Quoted.text(host)), not a public host name (allow private addresses to deliver inside your network)")
        }
        return checked
    }

    /// What a host allows an endpoint URL beyond https:// to a public host.
    public struct Allowed: Sendable {
        /// https:// to a private, loopback or link-local address.
        public var privateAddresses: Bool
        /// http:// to a loopback address (127.0.0.0/8, [::1], localhost).
        public var loopbackHTTP: Bool

        public init(privateAddresses: Bool = false, loopbackHTTP: Bool = false) {
            self.privateAddresses = privateAddresses
            self.loopbackHTTP = loopbackHTTP
        }
    }

    /// Whether deliveries go over plain HTTP (to loopback only).
    var isLoopbackHTTP: Bool { url.hasPrefix("http://") }

    private static func checkedLoopbackHTTP(_ url: String, _ allowed: Allowed) throws(GateKitError) -> String {
        guard allowed.loopbackHTTP else {
            throw .invalid("an endpoint URL is https://; plain http:// is allowed only to loopback, when the host says so (GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP)")
        }
        // The same rules as https://, checked on the URL as if it were one.
        let checked = "http://" + (try HTTPSURL.checked("https://" + url.dropFirst("http://".count), what: "an endpoint URL")).dropFirst("https://".count)
        let host = hostName(checked)
        let loopback = PublicAddress.literal(host).map(PublicAddress.isLoopback) ?? (host.lowercased() == "localhost")
        guard loopback else {
            throw .invalid("an http:// endpoint URL names \(Quoted.text(host)), not a loopback address: anywhere else deliveries need https://")
        }
        return checked
    }

    /// The host of a checked https:// or http:// URL, without its port.
    static func hostName(_ url: String) -> String {
        let authority = url.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        return String(authority.prefix { $0 != ":" })
    }
}
