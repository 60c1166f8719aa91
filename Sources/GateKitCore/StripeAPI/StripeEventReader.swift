import Glibc
import GateKitSupport

/// Reads the few members of a verified event body GateKit needs — the top level's `object`,
/// `id`, `type`, `livemode`, `created`, `api_version`, and `data.object`'s `id` and `object` —
/// without building the JSON tree the body holds: the structure is checked as it is walked, and
/// a string nobody reads is skipped to its closing quote with `memchr` (an invoice's lines make
/// a body of 64 KB, which a whole parse took as long as its HMAC). What nobody reads is checked
/// for its structure only; the members read mean exactly what a whole parse gives (a string
/// with an escape, and a number, are decoded by `JSONParser`).
struct StripeEventReader {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    /// The members GateKit reads, by name; every other name is nil to the readers below.
    enum Member: Int, CaseIterable {
        case object, id, type, livemode, created, apiVersion, data

        var name: String { ["object", "id", "type", "livemode", "created", "api_version", "data"][rawValue] }

        /// Compared as bytes: the hundreds of names a body holds make no String and no hash
        /// (they cost more than the HMAC of a 2 KB event).
        private static let names = allCases.map { Array($0.name.utf8) }

        static func named(_ bytes: UnsafeRawBufferPointer) -> Member? {
            for member in allCases where names[member.rawValue].count == bytes.count && bytes.elementsEqual(names[member.rawValue]) {
                return member
            }
            return nil
        }
    }

    /// The values read of one object's members; nil where the body has no such member. Stored
    /// fields, not a table: nothing allocated per delivery but the values.
    struct Members {
        private var object, id, type, livemode, created, apiVersion: JSONValue?

        subscript(_ member: Member) -> JSONValue? {
            get {
                switch member {
                case .object: object
                case .id: id
                case .type: type
                case .livemode: livemode
                case .created: created
                case .apiVersion: apiVersion
                case .data: nil
                }
            }
            set {
                switch member {
                case .object: object = newValue
                case .id: id = newValue
                case .type: type = newValue
                case .livemode: livemode = newValue
                case .created: created = newValue
                case .apiVersion: apiVersion = newValue
                case .data: break  // the container, never a value read
                }
            }
        }

        var isEmpty: Bool { Member.allCases.allSatisfy { self[$0] == nil } }
    }

    /// What the reader found: the top level's members, and `data.object`'s.
    struct Found {
        var top = Members()
        var object = Members()
    }

    static let objectMembers: [Member] = [.id, .object]
    static let maximumDepth = 512

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    static func read(_ body: UnsafeRawBufferPointer) throws(GateKitError) -> Found {
        var reader = StripeEventReader(body)
        var found = Found()
        reader.whitespace()
        try reader.object(depth: 0) { (reader, name) throws(GateKitError) in
            guard let name else { return false }
            if name == .data {
                return try reader.object(depth: 1) { (reader, inner) throws(GateKitError) in
                    guard inner == .object else { return false }
                    try reader.object(depth: 2) { (reader, member) throws(GateKitError) in
                        guard let member, objectMembers.contains(member) else { return false }
                        guard found.object[member] == nil else { throw reader.fail("names data.object.\(member.name) twice") }
                        found.object[member] = try reader.decodedValue()
                        return true
                    }
                    return true
                }
            }
            guard found.top[name] == nil else { throw reader.fail("names \(name.name) twice") }
            found.top[name] = try reader.decodedValue()
            return true
        }
        reader.whitespace()
        guard reader.at == body.count else { throw reader.fail("goes on after its object") }
        return found
    }

    func fail(_ why: String) -> GateKitError { GateKitError(.ESTRIPE_EVENT, "the verified body is not JSON: it \(why) (at byte \(at))") }

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func whitespace() {
        while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(GateKitError) {
        guard current == byte else { throw fail("lacks \(what)") }
        at += 1
    }

    /// An object whose members `member` reads (returning true) or leaves to be skipped.
    /// Returns true for the caller of a nested reader (it consumed the value).
    @discardableResult
    private mutating func object(depth: Int, _ member: (inout StripeEventReader, Member?) throws(GateKitError) -> Bool) throws(GateKitError) -> Bool {
        guard depth < StripeEventReader.maximumDepth else { throw fail("nests deeper than \(StripeEventReader.maximumDepth)") }
        whitespace()
        guard current == UInt8(ascii: "{") else {
            // A member read as an object that is not one: skipped as whatever it is.
            try skipValue(depth: depth)
            return true
        }
        at += 1
        whitespace()
        if current == UInt8(ascii: "}") { at += 1; return true }
        while true {
            whitespace()
            let start = at
            try skipString()
            let text = try memberName(from: start)
            whitespace()
            try expect(UInt8(ascii: ":"), "a colon after a member name")
            whitespace()
            if try !member(&self, text) { try skipValue(depth: depth + 1) }
            whitespace()
            if current == UInt8(ascii: ",") { at += 1; continue }
            try expect(UInt8(ascii: "}"), "a comma or a closing brace")
            return true
        }
    }

    /// The member the name skipped from `start` names, if GateKit reads one so named. A name
    /// with an escape is decoded before it is compared, as a whole parse would.
    private func memberName(from start: Int) throws(GateKitError) -> Member? {
        let inner = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(at - 1)])
        guard inner.contains(UInt8(ascii: "\\")) else { return Member.named(inner) }
        var text = try string(from: start)
        return text.withUTF8 { Member.named(UnsafeRawBufferPointer($0)) }
    }

    /// The value at the cursor (a member GateKit reads: short): a string without escapes, true
    /// and false read here, anything else decoded by `JSONParser`.
    private mutating func decodedValue() throws(GateKitError) -> JSONValue {
        let start = at
        try skipValue(depth: 0)
        if bytes[start] == UInt8(ascii: "\"") { return .string(try string(from: start)) }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
        if raw.elementsEqual("true".utf8) { return .bool(true) }
        if raw.elementsEqual("false".utf8) { return .bool(false) }
        // A whole number as JSON writes one (no leading zero): its text, as `JSONParser` keeps it.
        let digits = raw.first == UInt8(ascii: "-") ? UnsafeRawBufferPointer(rebasing: raw.dropFirst()) : raw
        if !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
           digits.first != UInt8(ascii: "0") || digits.count == 1 {
            return .number(String(decoding: raw, as: UTF8.self))
        }
        return try decoded(from: start)
    }

    /// The string skipped from `start` (its opening quote) to the cursor: its bytes when it has no
    /// escape (valid UTF-8 and no control character, as JSON requires), else `JSONParser`'s reading.
    private func string(from start: Int) throws(GateKitError) -> String {
        let inner = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(at - 1)])
        guard !inner.contains(UInt8(ascii: "\\")) else {
            guard case let .string(text) = try decoded(from: start) else { throw fail("has a string that is none") }
            return text
        }
        guard !inner.contains(where: { $0 < 0x20 }) else { throw fail("has a string that is not UTF-8 text") }
        // ASCII is UTF-8 as it stands: only other bytes need the (generic, slower) validation.
        if !inner.contains(where: { $0 >= 0x80 }) { return String(decoding: inner, as: UTF8.self) }
        guard let text = String(validating: inner, as: UTF8.self) else { throw fail("has a string that is not UTF-8 text") }
        return text
    }

    private func decoded(from start: Int) throws(GateKitError) -> JSONValue {
        do {
            return try JSONParser.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
        } catch {
            throw GateKitError(.ESTRIPE_EVENT, "the verified body is not JSON: \(error.message)")
        }
    }

    private mutating func skipValue(depth: Int) throws(GateKitError) {
        guard depth < StripeEventReader.maximumDepth else { throw fail("nests deeper than \(StripeEventReader.maximumDepth)") }
        whitespace()
        guard let b = current else { throw fail("ends where a value is due") }
        switch b {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"): try object(depth: depth + 1) { (_, _) throws(GateKitError) in false }
        case UInt8(ascii: "["):
            at += 1
            whitespace()
            if current == UInt8(ascii: "]") { at += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                whitespace()
                if current == UInt8(ascii: ",") { at += 1; continue }
                try expect(UInt8(ascii: "]"), "a comma or a closing bracket")
                return
            }
        default:
            // A number or a literal: its bytes up to the next delimiter (decoded only when read).
            let start = at
            while let c = current, c != UInt8(ascii: ","), c != UInt8(ascii: "}"), c != UInt8(ascii: "]"),
                  c != 0x20, c != 0x09, c != 0x0A, c != 0x0D { at += 1 }
            guard at > start else { throw fail("has no value where one is due") }
        }
    }

    /// Past a string's closing quote (one not escaped by an odd run of backslashes).
    private mutating func skipString() throws(GateKitError) {
        try expect(UInt8(ascii: "\""), "a string")
        guard let base = bytes.baseAddress else { throw fail("ends inside a string") }
        while true {
            guard at < bytes.count, let found = memchr(base + at, Int32(UInt8(ascii: "\"")), bytes.count - at) else {
                throw fail("ends inside a string")
            }
            let quote = base.distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while quote - 1 - backslashes >= at, bytes[quote - 1 - backslashes] == UInt8(ascii: "\\") { backslashes += 1 }
            at = quote + 1
            if backslashes % 2 == 0 { return }
        }
    }
}
