import GateKitSupport

/// What a verified Stripe delivery says: which event, of what type, about which object — a
/// snapshot event (`"object": "event"`) as every Billing event is. Only whom to ask: the object
/// it carries is as Stripe rendered it at the event's `api_version`, and events arrive out of
/// order and twice.
public struct StripeEvent: Sendable, Equatable {
    public let id: String
    public let type: String
    public let livemode: Bool
    /// Unix seconds.
    public let created: Int64
    public let apiVersion: String?
    public let objectID: String
    /// The object's kind ("subscription", "invoice", "checkout.session").
    public let objectType: String
    /// When Stripe signed the delivery (its `t=`); 0 when not read from a delivery.
    public var signedAt: Int64 = 0
    /// Which of the verifier's secrets signed it (0: the first).
    public var secretIndex = 0

    public init(json body: UnsafeRawBufferPointer) throws(GateKitError) {
        func refused(_ why: String) -> GateKitError { GateKitError(.ESTRIPE_EVENT, "the verified body \(why)") }
        let found = try StripeEventReader.read(body)
        func text(_ value: JSONValue?, _ name: String) throws(GateKitError) -> String {
            guard case let .string(s)? = value, !s.isEmpty, s.utf8.count <= 255 else { throw refused("has no \(name) of 1 to 255 bytes") }
            return s
        }
        guard case let .string(kind)? = found.top[.object] else { throw refused("has no \"object\": it is not a Stripe event") }
        guard kind == "event" else {
            throw refused(kind == "v2.core.event" ? "is a thin event (v2.core.event), which carries no object: GateKit verifies snapshot events"
                                                  : "is a \(Quoted.text(kind)), not an event")
        }
        id = try text(found.top[.id], "id")
        type = try text(found.top[.type], "type")
        guard case let .bool(live)? = found.top[.livemode] else { throw refused("has no livemode") }
        livemode = live
        guard case let .number(number)? = found.top[.created], let seconds = Int64(number) else { throw refused("has no created (Unix seconds)") }
        created = seconds
        if case let .string(version)? = found.top[.apiVersion] { apiVersion = version } else { apiVersion = nil }
        guard !found.object.isEmpty else { throw refused("has no data.object") }
        objectID = try text(found.object[.id], "data.object.id")
        objectType = try text(found.object[.object], "data.object.object")
    }

    /// {"version":1,"id","type","livemode","created","apiVersion","object":{"id","object"},"signedAt","secretIndex"}
    public var json: String {
        JSONWriter.serialize(.object([
            ("version", .number(JSONDocument.version)), ("id", .string(id)), ("type", .string(type)), ("livemode", .bool(livemode)),
            ("created", .number(created)), ("apiVersion", apiVersion.map { .string($0) } ?? .null),
            ("object", .object([("id", .string(objectID)), ("object", .string(objectType))])),
            ("signedAt", .number(signedAt)), ("secretIndex", .number(Int64(secretIndex))),
        ]))
    }
}
