import GateKitSupport

/// Typed reads of a Play API answer's members: absent or null is nil, a wrong type an error
/// (GATEKIT_EPLAY_RESPONSE) naming the member, never a default.
package struct PlayReader {
    let members: JSONMembers
    var path: String { members.path }

    package init(_ value: JSONValue, _ path: String) {
        members = JSONMembers(value, path, code: .EPLAY_RESPONSE)
    }

    /// A purchase answer is a few KB; 1 MiB bounds the work.
    package static let maximumLength = 1 << 20

    /// The reader of a whole answer: at most `maximumLength` bytes of one JSON object.
    package init(answer json: [UInt8], _ resource: String) throws(GateKitError) {
        members = try JSONMembers(object: json, resource, code: .EPLAY_RESPONSE, maximumLength: PlayReader.maximumLength)
    }

    private func wrong(_ name: String, _ type: String) -> GateKitError { members.wrong(name, type) }

    package func string(_ name: String) throws(GateKitError) -> String? { try members.string(name) }

    package func bool(_ name: String) throws(GateKitError) -> Bool? { try members.bool(name) }

    /// An int64 as Google writes them: a JSON string of digits (a number is taken too).
    package func int64(_ name: String) throws(GateKitError) -> Int64? {
        guard let found = members.member(name) else { return nil }
        if let text = found.stringValue, let number = Int64(text) { return number }
        if case let .number(text) = found, let number = Int64(text) { return number }
        throw wrong(name, "an integer")
    }

    package func time(_ name: String) throws(GateKitError) -> Int64? {
        guard let text = try string(name) else { return nil }
        guard let ms = PlayTime.milliseconds(text) else { throw wrong(name, "an RFC 3339 UTC timestamp") }
        return ms
    }

    package func object(_ name: String) throws(GateKitError) -> JSONValue? {
        try members.object(name)?.value
    }

    package func array(_ name: String) throws(GateKitError) -> [JSONValue] {
        guard let found = members.member(name) else { return [] }
        guard case let .array(items) = found else { throw wrong(name, "an array") }
        return items
    }

    /// The answer's `kind` must be the resource asked for: a device's purchase JSON (the
    /// Billing Library's `originalJson`) or another resource is never read as the API's answer.
    /// `required` false: an answer without a `kind` is read (the ProductPurchaseV2 reference
    /// does not list one); one naming another resource is still refused.
    package func requireKind(_ kind: String, required: Bool = true) throws(GateKitError) {
        guard let found = try string("kind") else {
            if !required { return }
            throw GateKitError(.EPLAY_RESPONSE, "\(path) has no kind: not the Play Developer API's answer (it says \"kind\": \"\(kind)\")")
        }
        guard found == kind else {
            throw GateKitError(.EPLAY_RESPONSE, "\(path)'s kind is \(Quoted.text(found)), not \"\(kind)\"")
        }
    }
}
