/// One JSON object of an API's answer, read member by member for that API's typed reader
/// (PlayReader, StripeReader): absent or null is nil, a member of the wrong type an error with
/// the reader's code naming the member's path, never a default.
package struct JSONMembers: Sendable {
    package let value: JSONValue
    package let path: String
    package let code: GateKitError.Code

    package init(_ value: JSONValue, _ path: String, code: GateKitError.Code) {
        self.value = value
        self.path = path
        self.code = code
    }

    /// The members of a whole answer: at most `maximumLength` bytes of one JSON object.
    package init(object json: [UInt8], _ name: String, code: GateKitError.Code, maximumLength: Int) throws(GateKitError) {
        guard json.count <= maximumLength else {
            throw GateKitError(code, "the \(name) is \(json.count) bytes; at most \(maximumLength) are read")
        }
        let document: JSONValue
        do { document = try JSONParser.parse(json) } catch { throw GateKitError(code, "the \(name) is not JSON: \(error.message)") }
        guard case .object = document else { throw GateKitError(code, "the \(name) is not a JSON object") }
        self.init(document, name, code: code)
    }

    package func member(_ name: String) -> JSONValue? {
        guard let found = value[name], found != .null else { return nil }
        return found
    }

    package func wrong(_ name: String, _ type: String) -> GateKitError {
        GateKitError(code, "\(path).\(name) is not \(type)")
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

    /// A member's object, as members of the same answer.
    package func object(_ name: String) throws(GateKitError) -> JSONMembers? {
        guard let found = member(name) else { return nil }
        guard case .object = found else { throw wrong(name, "an object") }
        return JSONMembers(found, "\(path).\(name)", code: code)
    }
}
