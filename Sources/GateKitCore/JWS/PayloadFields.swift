import GateKitSupport

/// Typed reads of a decoded payload's members. A member that is absent or `null` reads as
/// nil; a member of the wrong JSON type is `.EJWS_PAYLOAD_FIELD` naming the path, because a
/// decoder that guessed would let a field mean something Apple did not sign.
struct PayloadFields {
    let object: JSONValue
    let path: String

    init(_ object: JSONValue, path: String) throws(GateKitError) {
        guard case let .object(members) = object else { throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(path) is not a JSON object") }
        // A repeated member would be read here as its first value but by many JSON readers
        // (Python's json) as its last: refuse the ambiguity.
        var names = Set<String>(minimumCapacity: members.count)
        for (name, _) in members where !names.insert(name).inserted {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(path) repeats the member \(Quoted.text(name))")
        }
        self.object = object
        self.path = path
    }

    private func member(_ key: String) -> JSONValue? {
        guard let v = object[key], v != .null else { return nil }
        return v
    }

    private func wrongType(_ key: String, _ expected: String) -> GateKitError {
        GateKitError(.EJWS_PAYLOAD_FIELD, "\(path).\(key) is not \(expected)")
    }

    func string(_ key: String) throws(GateKitError) -> String? {
        guard let v = member(key) else { return nil }
        guard case let .string(s) = v else { throw wrongType(key, "a string") }
        try PayloadFields.refuseNUL(s, "\(path).\(key)")
        return s
    }

    /// An integer; a fractional value (Xcode's `1697679936049.7297` milliseconds) is truncated.
    func int(_ key: String) throws(GateKitError) -> Int64? {
        guard let v = member(key) else { return nil }
        guard case .number = v, let n = v.int64Value else { throw wrongType(key, "a number in the 64-bit range") }
        return n
    }

    func bool(_ key: String) throws(GateKitError) -> Bool? {
        guard let v = member(key) else { return nil }
        guard case let .bool(b) = v else { throw wrongType(key, "a boolean") }
        return b
    }

    func strings(_ key: String) throws(GateKitError) -> [String]? {
        guard let v = member(key) else { return nil }
        guard case let .array(items) = v else { throw wrongType(key, "an array of strings") }
        var out: [String] = []
        for item in items {
            guard case let .string(s) = item else { throw wrongType(key, "an array of strings") }
            try PayloadFields.refuseNUL(s, "\(path).\(key)")
            out.append(s)
        }
        return out
    }

    /// A nested object kept as JSON (advancedCommerceInfo, commitmentInfo).
    func object(_ key: String) throws(GateKitError) -> JSONValue? {
        guard let v = member(key) else { return nil }
        guard case .object = v else { throw wrongType(key, "an object") }
        return v
    }

    /// A NUL inside a signed string would be cut there by every C reader (the store, a host's
    /// strcmp): refused, so a string means the same to every reader.
    static func refuseNUL(_ s: String, _ path: String) throws(GateKitError) {
        if s.utf8.contains(0) { throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(path) contains a NUL character") }
    }

    func fields(_ key: String) throws(GateKitError) -> PayloadFields? {
        guard let v = member(key) else { return nil }
        return try PayloadFields(v, path: "\(path).\(key)")
    }
}
