import Glibc

/// A JSON document checked whole by a strict RFC 8259 reader for untrusted input (bounded
/// nesting, valid UTF-8 only, escapes and surrogate pairs checked, nothing after the document
/// but white space, no member named twice in one object: readers disagree on which one counts,
/// and names are compared as bytes, never as canonically equal text), kept as its bytes plus one
/// entry per value in document order. A reader finds a member by comparing bytes and makes a
/// `String` only of what it reads: a push's token and envelope need a few members of each
/// document, and a tree of every member (a string and an array allocated for each) cost more
/// than the reading. `JSONParser` builds its tree from the same entries.
public struct JSONTape: Sendable {
    public static let maximumDepth = 64
    /// Objects with fewer members are checked for a repeated name by a scan; larger ones by a set.
    static let scannedNames = 16

    enum Kind: UInt8, Sendable { case null, `false`, `true`, number, string, array, object }

    struct Entry: Sendable {
        var kind: Kind
        /// A string holding an escape: its text is `unescaped[count]`.
        var escaped = false
        /// String: after its opening quote. Number: its first byte. Container: its bracket.
        var start: Int32
        /// String: its closing quote. Number, container: after its last byte.
        var end: Int32
        /// The entry after this value and everything it holds.
        var next: Int32
        /// Object: its members; array: its items; escaped string: its index in `unescaped`.
        var count: Int32 = 0
    }

    let bytes: [UInt8]
    private(set) var entries: [Entry] = []
    /// The text of each string that holds an escape, unescaped.
    private(set) var unescaped: [[UInt8]] = []
    private var i = 0
    private let refusesRepeatedNames: Bool

    /// The root value's entry.
    public static let root = 0

    /// `allowingRepeatedNames`: for a reader that refuses them itself with an error of its own
    /// (signed data: `.EJWS_PAYLOAD_FIELD`).
    public init<C: Collection>(_ document: C, allowingRepeatedNames: Bool = false) throws(GateKitError) where C.Element == UInt8 {
        bytes = Array(document)
        refusesRepeatedNames = !allowingRepeatedNames
        guard bytes.count < Int(Int32.max) else { throw GateKitError(.EINVAL, "malformed JSON: \(bytes.count) bytes, over 2 GiB") }
        guard bytes.withUnsafeBufferPointer(JSONTape.isASCII) || String(validating: bytes, as: UTF8.self) != nil else { throw fail("not valid UTF-8") }
        entries.reserveCapacity(32)  // a token's claims, a push's envelope: one allocation
        whitespace()
        try value(depth: 0)
        whitespace()
        guard i == bytes.count else { throw fail("unexpected data after the JSON value") }
    }

    // MARK: Reading

    public func isObject(_ at: Int = JSONTape.root) -> Bool { entries[at].kind == .object }

    public func isNull(_ at: Int) -> Bool { entries[at].kind == .null }

    /// The entry of the member named `name` of the object at `at`, nil when it has none (or is
    /// not an object). Compared as bytes: no `String` is made of any name.
    public func member(_ name: String, of at: Int = JSONTape.root) -> Int? {
        let object = entries[at]
        guard object.kind == .object else { return nil }
        var name = name
        return name.withUTF8 { wanted -> Int? in
            var key = at + 1
            for _ in 0..<Int(object.count) {
                if textEquals(key, wanted) { return key + 1 }
                key = Int(entries[key + 1].next)
            }
            return nil
        }
    }

    /// The members of the object at `at`, each as its name's entry and its value's.
    public func members(of at: Int) -> [(name: Int, value: Int)] {
        guard entries[at].kind == .object else { return [] }
        var found: [(name: Int, value: Int)] = []
        found.reserveCapacity(Int(entries[at].count))
        var key = at + 1
        for _ in 0..<Int(entries[at].count) {
            found.append((key, key + 1))
            key = Int(entries[key + 1].next)
        }
        return found
    }

    /// The string at `at` as its UTF-8 bytes, unescaped; nil when it is not a string.
    public func stringBytes(_ at: Int) -> ArraySlice<UInt8>? {
        let entry = entries[at]
        guard entry.kind == .string else { return nil }
        return entry.escaped ? unescaped[Int(entry.count)][...] : bytes[Int(entry.start)..<Int(entry.end)]
    }

    public func string(_ at: Int) -> String? {
        stringBytes(at).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The member `name` of the object at `at` when it is a string.
    public func string(member name: String, of at: Int = JSONTape.root) -> String? {
        self.member(name, of: at).flatMap { string($0) }
    }

    /// Whether the value at `at` is the string `text`, compared as bytes without making a `String`.
    public func string(_ at: Int, is text: String) -> Bool {
        var text = text
        return entries[at].kind == .string && text.withUTF8 { textEquals(at, $0) }
    }

    public func bool(_ at: Int) -> Bool? {
        switch entries[at].kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// A number as `JSONValue.int64Value` reads it (a fraction truncated toward zero).
    public func int64(_ at: Int) -> Int64? {
        let entry = entries[at]
        guard entry.kind == .number else { return nil }
        return JSONValue.number(String(decoding: bytes[Int(entry.start)..<Int(entry.end)], as: UTF8.self)).int64Value
    }

    /// The value at `at` and all it holds as a tree.
    public func value(_ at: Int) -> JSONValue {
        bytes.withUnsafeBufferPointer { text in
            entries.withUnsafeBufferPointer { entries in tree(at, text, entries) }
        }
    }

    private func tree(_ at: Int, _ text: UnsafeBufferPointer<UInt8>, _ entries: UnsafeBufferPointer<Entry>) -> JSONValue {
        func string(_ entry: Entry) -> String {
            entry.escaped ? String(decoding: unescaped[Int(entry.count)], as: UTF8.self)
                : String(decoding: UnsafeBufferPointer(rebasing: text[Int(entry.start)..<Int(entry.end)]), as: UTF8.self)
        }
        let entry = entries[at]
        switch entry.kind {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(String(decoding: UnsafeBufferPointer(rebasing: text[Int(entry.start)..<Int(entry.end)]), as: UTF8.self))
        case .string: return .string(string(entry))
        case .array:
            var items: [JSONValue] = []
            items.reserveCapacity(Int(entry.count))
            var item = at + 1
            for _ in 0..<Int(entry.count) {
                items.append(tree(item, text, entries))
                item = Int(entries[item].next)
            }
            return .array(items)
        case .object:
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(Int(entry.count))
            var key = at + 1
            for _ in 0..<Int(entry.count) {
                members.append((string(entries[key]), tree(key + 1, text, entries)))
                key = Int(entries[key + 1].next)
            }
            return .object(members)
        }
    }

    /// Whether the string at `at` has exactly the bytes of `text`.
    private func textEquals(_ at: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = entries[at]
        if entry.escaped { return unescaped[Int(entry.count)].withUnsafeBufferPointer { JSONTape.same($0, text) } }
        let start = Int(entry.start), length = Int(entry.end) - start
        guard length == text.count else { return false }
        return bytes.withUnsafeBufferPointer { JSONTape.same(UnsafeBufferPointer(rebasing: $0[start..<(start + length)]), text) }
    }

    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let p = a.baseAddress, let q = b.baseAddress else { return true }  // both empty
        return memcmp(p, q, a.count) == 0
    }

    // MARK: Checking

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
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// Appends a value without contents at `start..<i`.
    private mutating func scalar(_ kind: Kind, from start: Int) {
        entries.append(Entry(kind: kind, start: Int32(start), end: Int32(i), next: Int32(entries.count + 1)))
    }

    private mutating func literal(_ word: StaticString, _ kind: Kind) throws(GateKitError) {
        let start = i
        for c in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard i < bytes.count, bytes[i] == c else { throw fail("invalid literal") }
            i += 1
        }
        scalar(kind, from: start)
    }

    private mutating func value(depth: Int) throws(GateKitError) {
        guard depth <= JSONTape.maximumDepth else { throw fail("nesting deeper than \(JSONTape.maximumDepth)") }
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), 0x30...0x39: try number()
        default: throw fail("unexpected character")
        }
    }

    /// Opens a container's entry; `close` fills in where it ends.
    private mutating func open(_ kind: Kind) -> Int {
        entries.append(Entry(kind: kind, start: Int32(i), end: 0, next: 0))
        i += 1
        return entries.count - 1
    }

    private mutating func close(_ at: Int, count: Int) {
        i += 1
        entries[at].end = Int32(i)
        entries[at].next = Int32(entries.count)
        entries[at].count = Int32(count)
    }

    private mutating func object(depth: Int) throws(GateKitError) {
        let at = open(.object)
        var count = 0
        var large = Set<[UInt8]>()  // the names once there are `scannedNames` of them
        whitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { close(at, count: 0); return }
        while true {
            whitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let nameAt = i
            try string()
            let name = entries.count - 1
            if refusesRepeatedNames,
               count < JSONTape.scannedNames ? named(name, before: name, in: at) : !large.insert(Array(nameBytes(name))).inserted {
                i = nameAt
                throw fail("the member \(Quoted.text(String(decoding: nameBytes(name), as: UTF8.self))) is named twice in one object")
            }
            if refusesRepeatedNames, count + 1 == JSONTape.scannedNames { large = allNames(upTo: name, in: at) }
            whitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            whitespace()
            try value(depth: depth + 1)
            count += 1
            whitespace()
            guard i < bytes.count else { throw fail("unterminated object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { close(at, count: count); return }
            throw fail("expected ',' or '}'")
        }
    }

    /// Whether a member of the object at `object` before the name at `end` has the bytes of the name at `name`.
    private func named(_ name: Int, before end: Int, in object: Int) -> Bool {
        nameBytes(name).withUnsafeBufferPointer { wanted in
            var key = object + 1
            while key < end {
                if textEquals(key, wanted) { return true }
                key = Int(entries[key + 1].next)
            }
            return false
        }
    }

    /// The names of the object at `object`, through the name at `last`.
    private func allNames(upTo last: Int, in object: Int) -> Set<[UInt8]> {
        var names: Set<[UInt8]> = [Array(nameBytes(last))]
        var key = object + 1
        while key < last {
            names.insert(Array(nameBytes(key)))
            key = Int(entries[key + 1].next)
        }
        return names
    }

    private func nameBytes(_ at: Int) -> ArraySlice<UInt8> { stringBytes(at) ?? [] }

    private mutating func array(depth: Int) throws(GateKitError) {
        let at = open(.array)
        var count = 0
        whitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { close(at, count: 0); return }
        while true {
            whitespace()
            try value(depth: depth + 1)
            count += 1
            whitespace()
            guard i < bytes.count else { throw fail("unterminated array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { close(at, count: count); return }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func number() throws(GateKitError) {
        let start = i
        func digits() -> Int {
            let s = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw fail("truncated number") }
        if bytes[i] == 0x30 { i += 1 } else if digits() == 0 { throw fail("invalid number") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw fail("invalid fraction") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw fail("invalid exponent") }
        }
        scalar(.number, from: start)
    }

    private mutating func hex4() throws(GateKitError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let d = Hex.value(bytes[i + k]) else { throw fail("invalid \\u escape") }
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
        bytes.withUnsafeBufferPointer { bytes in
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

    private mutating func string() throws(GateKitError) {
        i += 1
        // Most strings hold no escape: one scan to the closing quote, nothing copied (the whole
        // document was checked as UTF-8 already). An escape or a control byte takes the
        // byte-by-byte path from where the scan stopped, and the text is kept unescaped.
        let start = i
        i = plainRunEnd(from: i)
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
            entries.append(Entry(kind: .string, start: Int32(start), end: Int32(i), next: Int32(entries.count + 1)))
            i += 1
            return
        }
        var out = Array(bytes[start..<i])
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                entries.append(Entry(kind: .string, escaped: true, start: Int32(start), end: Int32(i - 1),
                                     next: Int32(entries.count + 1), count: Int32(unescaped.count)))
                unescaped.append(out)
                return
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[i]
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
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
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
