import GateKitSupport

/// Typed reads of a Stripe object's members: absent or null is nil, a wrong type an error
/// (GATEKIT_ESTRIPE_OBJECT) naming the member, never a default. Stripe writes integers (amounts
/// in the currency's minor unit, instants in Unix seconds) as JSON numbers.
package struct StripeReader {
    let members: JSONMembers
    var path: String { members.path }

    package init(_ value: JSONValue, _ path: String) {
        members = JSONMembers(value, path, code: .ESTRIPE_OBJECT)
    }

    private init(_ members: JSONMembers) { self.members = members }

    /// A Subscription with its items, or a Checkout Session with its line items, is a few KB
    /// (a list member carries at most 100): 1 MiB bounds the work.
    package static let maximumLength = 1 << 20

    /// The reader of a whole object: at most `maximumLength` bytes of one JSON object.
    package init(object json: [UInt8], kind: String) throws(GateKitError) {
        self.init(try JSONMembers(object: json, "Stripe \(kind)", code: .ESTRIPE_OBJECT, maximumLength: StripeReader.maximumLength))
    }

    /// The `object` member of a JSON document, which names what Stripe answered.
    package static func objectKind(_ json: [UInt8]) throws(GateKitError) -> String {
        let reader = try StripeReader(object: json, kind: "object")
        guard let kind = try reader.string("object") else {
            throw GateKitError(.ESTRIPE_OBJECT, "the answer has no \"object\": not a Stripe API object")
        }
        return kind
    }

    func wrong(_ name: String, _ type: String) -> GateKitError { members.wrong(name, type) }

    package func string(_ name: String) throws(GateKitError) -> String? { try members.string(name) }

    package func bool(_ name: String) throws(GateKitError) -> Bool? { try members.bool(name) }

    /// An id Stripe gives: 1 to 255 bytes (Stripe's bound), kept byte for byte.
    package func id(_ name: String) throws(GateKitError) -> String? {
        guard let text = try string(name) else { return nil }
        guard !text.isEmpty, text.utf8.count <= 255 else { throw wrong(name, "an id of 1 to 255 bytes") }
        return text
    }

    /// A member that must be there.
    package func required<T>(_ found: T?, _ name: String) throws(GateKitError) -> T {
        guard let found else { throw GateKitError(.ESTRIPE_OBJECT, "\(path) has no \(name)") }
        return found
    }

    package func int64(_ name: String) throws(GateKitError) -> Int64? {
        guard let found = members.member(name) else { return nil }
        guard case let .number(text) = found, let number = Int64(text) else { throw wrong(name, "an integer") }
        return number
    }

    /// An instant in Unix seconds, as milliseconds.
    package func time(_ name: String) throws(GateKitError) -> Int64? {
        guard let seconds = try int64(name) else { return nil }
        guard seconds >= 0, seconds < 253_402_300_800 else { throw wrong(name, "an instant in Unix seconds before the year 10000") }
        return seconds * 1000
    }

    package func object(_ name: String) throws(GateKitError) -> StripeReader? {
        try members.object(name).map(StripeReader.init)
    }

    /// A member that is an id, or the object it names expanded (`expand[]`): its id either way.
    package func reference(_ name: String) throws(GateKitError) -> String? {
        guard let found = members.member(name) else { return nil }
        if case .object = found { return try StripeReader(found, "\(path).\(name)").id("id") }
        return try id(name)
    }

    /// The member as an expanded object; nil when absent or only an id.
    package func expanded(_ name: String) throws(GateKitError) -> StripeReader? {
        guard let found = members.member(name) else { return nil }
        switch found {
        case .object: return StripeReader(found, "\(path).\(name)")
        case .string: return nil
        default: throw wrong(name, "an id or an object")
        }
    }

    /// A list object's `data` (`{"object":"list","data":[…],"has_more":…}`) with whether more
    /// pages follow.
    package func list(_ name: String) throws(GateKitError) -> (items: [StripeReader], hasMore: Bool)? {
        guard let list = try object(name) else { return nil }
        guard try list.string("object") == "list" else { throw wrong(name, "a list object") }
        guard case let .array(items)? = list.members.member("data") else { throw list.wrong("data", "an array") }
        var readers: [StripeReader] = []
        for (i, item) in items.enumerated() {
            guard case .object = item else { throw list.wrong("data[\(i)]", "an object") }
            readers.append(StripeReader(item, "\(path).\(name).data[\(i)]"))
        }
        return (readers, try list.bool("has_more") ?? false)
    }

    /// The string values of an object of strings (Stripe's `metadata`).
    package func strings(_ name: String) throws(GateKitError) -> [String: String] {
        guard let found = members.member(name) else { return [:] }
        guard case let .object(members) = found else { throw wrong(name, "an object") }
        var values: [String: String] = [:]
        for (key, value) in members {
            guard let text = value.stringValue else { throw wrong("\(name).\(key)", "a string") }
            values[key] = text
        }
        return values
    }
}
