/// Serializes JSON compactly, escaping exactly what RFC 8259 requires (and DEL-free
/// control characters as \u00XX), so the output is valid UTF-8 JSON for any input string.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case let .bool(b): raw(b ? "true" : "false")
        case let .number(n): raw(n)
        case let .string(s): string(s)
        case let .array(items):
            bytes.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(members):
            bytes.append(UInt8(ascii: "{"))
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                write(item)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// JSON text another parse already validated, copied as it is.
    public mutating func raw(bytes text: [UInt8]) { bytes.append(contentsOf: text) }

    public mutating func raw(_ s: String) {
        // Through withUTF8: appending `s.utf8` element by element was the largest cost of a
        // 187-purchase receipt's JSON.
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// An integer's decimal digits, written without making a `String` of it.
    public mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for UInt64's 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { buffer in
            var n = 0
            repeat {
                buffer[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                n += 1
            } while magnitude > 0
            return n
        }
        withUnsafeBytes(of: digits) { buffer in
            for k in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[k]) }
        }
    }

    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `c` needs an escape inside a JSON string (RFC 8259: quote, backslash, controls).
    @inline(__always)
    static func needsEscape(_ c: UInt8) -> Bool { c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") }

    /// The escape of `c`, or nil when it stands for itself.
    static func escapeSequence(for c: UInt8) -> [UInt8]? {
        switch c {
        case UInt8(ascii: "\""): [0x5C, 0x22]
        case UInt8(ascii: "\\"): [0x5C, 0x5C]
        case 0x0A: [0x5C, UInt8(ascii: "n")]
        case 0x0D: [0x5C, UInt8(ascii: "r")]
        case 0x09: [0x5C, UInt8(ascii: "t")]
        case 0..<0x20: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]]
        default: nil
        }
    }

    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Most strings (ids, dates) need no escaping: copy them in one go.
            if !utf8.contains(where: Self.needsEscape) {
                bytes.append(contentsOf: utf8)
                return
            }
            for c in utf8 {
                if let sequence = Self.escapeSequence(for: c) { bytes.append(contentsOf: sequence) } else { bytes.append(c) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public static func serialize(_ value: JSONValue) -> String {
        var w = JSONWriter()
        w.write(value)
        return w.text
    }
}
