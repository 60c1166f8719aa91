/// A strict RFC 8259 parser for untrusted input: bounded nesting, valid UTF-8 only,
/// escapes and surrogate pairs checked, nothing after the document but white space, and no
/// member named twice in one object (readers disagree on which one counts: one keeps the
/// first, another the last; names are compared as bytes, never as canonically equal text).
public struct JSONParser {
    public static let maximumDepth = 64

    private let b: [UInt8]
    private var i = 0
    private let refusesRepeatedNames: Bool

    private init(_ bytes: [UInt8], refusesRepeatedNames: Bool) {
        b = bytes
        self.refusesRepeatedNames = refusesRepeatedNames
    }

    /// `allowingRepeatedNames`: for a reader that refuses them itself with an error of its own
    /// (signed data: `.EJWS_PAYLOAD_FIELD`).
    public static func parse<C: Collection>(_ bytes: C, allowingRepeatedNames: Bool = false) throws(GateKitError) -> JSONValue where C.Element == UInt8 {
        var p = JSONParser(Array(bytes), refusesRepeatedNames: !allowingRepeatedNames)
        guard p.b.withUnsafeBufferPointer(JSONParser.isASCII) || String(validating: p.b, as: UTF8.self) != nil else { throw p.fail("not valid UTF-8") }
        p.whitespace()
        let v = try p.value(depth: 0)
        p.whitespace()
        guard p.i == p.b.count else { throw p.fail("unexpected data after the JSON value") }
        return v
    }

    /// Whether every byte is ASCII, read eight at a time: such text is UTF-8 without the
    /// validating copy `String(validating:)` makes (every signed payload and push is ASCII).
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    private func fail(_ reason: String) -> GateKitError {
        GateKitError(.EINVAL, "malformed JSON at byte \(i): \(reason)")
    }

    private mutating func whitespace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) throws(GateKitError) -> JSONValue {
        for c in word.utf8 {
            guard i < b.count, b[i] == c else { throw fail("invalid literal") }
            i += 1
        }
        return v
    }

    private mutating func value(depth: Int) throws(GateKitError) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else { throw fail("nesting deeper than \(JSONParser.maximumDepth)") }
        guard i < b.count else { throw fail("unexpected end of input") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), 0x30...0x39: return try number()
        default: throw fail("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(GateKitError) -> JSONValue {
        i += 1
        var members: [(String, JSONValue)] = []
        var large = Set<ByteKey>()  // the names once there are `scannedNames` of them
        whitespace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            whitespace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let at = i
            let key = try string()
            if refusesRepeatedNames,
               members.count < JSONParser.scannedNames ? JSONParser.names(members, contain: key) : !large.insert(ByteKey(key)).inserted {
                i = at
                throw fail("the member \(Quoted.text(key)) is named twice in one object")
            }
            if refusesRepeatedNames, members.count + 1 == JSONParser.scannedNames { large = Set(members.map { ByteKey($0.0) } + [ByteKey(key)]) }
            whitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            whitespace()
            members.append((key, try value(depth: depth + 1)))
            whitespace()
            guard i < b.count else { throw fail("unterminated object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    /// Objects with fewer members are checked by a scan; larger ones by a set.
    static let scannedNames = 16

    /// A member name hashed and compared by its bytes.
    private struct ByteKey: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: ByteKey, b: ByteKey) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
        func hash(into hasher: inout Hasher) { for byte in text.utf8 { hasher.combine(byte) } }
    }

    /// Whether a member of `members` has exactly the bytes of `key`.
    private static func names(_ members: [(String, JSONValue)], contain key: String) -> Bool {
        let count = key.utf8.count
        // `==` first (a byte compare for the ASCII names of nearly every document); equal text
        // is then the same bytes only if its bytes say so (canonically equal names differ).
        return members.contains { $0.0.utf8.count == count && $0.0 == key && $0.0.utf8.elementsEqual(key.utf8) }
    }

    private mutating func array(depth: Int) throws(GateKitError) -> JSONValue {
        i += 1
        var items: [JSONValue] = []
        whitespace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            whitespace()
            items.append(try value(depth: depth + 1))
            whitespace()
            guard i < b.count else { throw fail("unterminated array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func number() throws(GateKitError) -> JSONValue {
        let start = i
        func digits() -> Int {
            let s = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - s
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { throw fail("truncated number") }
        if b[i] == 0x30 { i += 1 } else if digits() == 0 { throw fail("invalid number") }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw fail("invalid fraction") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw fail("invalid exponent") }
        }
        return .number(String(decoding: b[start..<i], as: UTF8.self))
    }

    private mutating func hex4() throws(GateKitError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let d = Hex.value(b[i + k]) else { throw fail("invalid \\u escape") }
            v = v << 4 | UInt32(d)
        }
        i += 4
        return v
    }

    /// Where the plain run of a string's bytes from `start` ends: the first quote, backslash
    /// or control byte (the end of the input if none), eight bytes at a time. In each word a
    /// byte's high bit is set where it equals '"' or '\\' or is below 0x20; a borrow can set
    /// it falsely only above a byte that truly matched, so the lowest set bit is the first match.
    private func plainRunEnd(from start: Int) -> Int {
        b.withUnsafeBufferPointer { bytes in
            var k = start
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                while k &+ 8 <= bytes.count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                    let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                    let found = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word) & highs
                    if found != 0 { return k &+ found.trailingZeroBitCount / 8 }
                    k &+= 8
                }
            }
            while k < bytes.count {
                let c = bytes[k]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return k }
                k &+= 1
            }
            return k
        }
    }

    private mutating func string() throws(GateKitError) -> String {
        i += 1
        // Most strings hold no escape: one scan to the closing quote, one copy (the whole
        // document was checked as UTF-8 already). An escape or a control byte takes the
        // byte-by-byte path from where the scan stopped.
        let start = i
        i = plainRunEnd(from: i)
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            i += 1
            return String(decoding: b[start..<(i - 1)], as: UTF8.self)
        }
        var out = Array(b[start..<i])
        while true {
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i < b.count else { throw fail("unterminated escape") }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid code point") }
                    out.append(contentsOf: String(Character(u)).utf8)
                default:
                    throw fail("invalid escape")
                }
            case 0..<0x20:
                throw fail("control character in string")
            default:
                out.append(c)
            }
        }
    }
}
