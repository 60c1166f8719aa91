/// A JSON document that keeps what it was given: object members in order, numbers as
/// their exact text (so `1697679936049.7297` and 20-digit ids survive a round trip).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public static func number(_ value: Int64) -> JSONValue { .number(String(value)) }
    public static func number(_ value: Int) -> JSONValue { .number(String(value)) }

    /// The member named `key` of an object (the first, if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        // A name of another length is passed over without the string comparison's set-up.
        let length = key.utf8.count
        return members.first { $0.0.utf8.count == length && $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case let .bool(b) = self { return b }
        return nil
    }

    /// An integer, accepting a fractional part by truncation toward zero (Xcode writes
    /// `1697679936049.7297` where Apple's servers write integers). Nil when out of range.
    public var int64Value: Int64? {
        guard case let .number(text) = self else { return nil }
        if let v = Int64(text) { return v }
        guard let dot = text.firstIndex(where: { $0 == "." || $0 == "e" || $0 == "E" }), text[dot] == "." else {
            return Double(text).flatMap { $0.isFinite && abs($0) < 9.2e18 ? Int64($0) : nil }
        }
        let fraction = text[text.index(after: dot)...]
        guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text[..<dot])
    }

    public var doubleValue: Double? {
        guard case let .number(text) = self else { return nil }
        return Double(text)
    }
}
