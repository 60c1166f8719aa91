import GateKitSupport

/// Typed reads of a Play API answer's members: absent or null is nil, a wrong type an error
/// (GATEKIT_EPLAY_RESPONSE) naming the member, never a default.
package struct PlayReader {
    let value: JSONValue
    let path: String

    package init(_ value: JSONValue, _ path: String) {
        self.value = value
        self.path = path
    }

    /// A purchase answer is a few KB; 1 MiB bounds the work.
    package static let maximumLength = 1 << 20

    /// The reader of a whole answer: at most `maximumLength` bytes of one JSON object.
    package init(answer json: [UInt8], _ resource: String) throws(GateKitError) {
        guard json.count <= PlayReader.maximumLength else {
            throw GateKitError(.EPLAY_RESPONSE, "the \(resource) is \(json.count) bytes; at most \(PlayReader.maximumLength) are read")
        }
        let document: JSONValue
        do { document = try JSONParser.parse(json) } catch { throw GateKitError(.EPLAY_RESPONSE, "the \(resource) is not JSON: \(error.message)") }
        guard case .object = document else { throw GateKitError(.EPLAY_RESPONSE, "the \(resource) is not a JSON object") }
        self.init(document, resource)
    }

    private func member(_ name: String) -> JSONValue? {
        guard let found = value[name], found != .null else { return nil }
        return found
    }

    private func wrong(_ name: String, _ type: String) -> GateKitError {
        GateKitError(.EPLAY_RESPONSE, "\(path).\(name) is not \(type)")
    }

    package func string(_ name: String) throws(GateKitError) -> String? {
        guard let found = member(name) else { return nil }
        guard let text = found.stringValue else { throw wrong(name, "a string") }
        return text
    }

    package func bool(_ name: String) throws(GateKitError) -> Bool? {
        guard let found = member(name) else { return nil }
        guard let flag = found.boolValue else { throw wrong(name, "true or false") }
        return flag
    }

    /// An int64 as Google writes them: a JSON string of digits (a number is taken too).
    package func int64(_ name: String) throws(GateKitError) -> Int64? {
        guard let found = member(name) else { return nil }
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
        guard let found = member(name) else { return nil }
        guard case .object = found else { throw wrong(name, "an object") }
        return found
    }

    package func array(_ name: String) throws(GateKitError) -> [JSONValue] {
        guard let found = member(name) else { return [] }
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
