/// Lowercase hexadecimal encoding and strict decoding.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex digits (either case); nil for odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? { decode(digits: Array(text.utf8)[...]) }

    /// The same from the digits' bytes, read in place.
    public static func decode(digits utf8: ArraySlice<UInt8>) -> [UInt8]? {
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            guard let hi = value(utf8[i]), let lo = value(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// Appends the bytes of an even number of hex digits to `out`; false (some appended) for any other.
    public static func decode<Digits: Collection>(digits: Digits, appendingTo out: inout [UInt8]) -> Bool where Digits.Element == UInt8 {
        guard digits.count % 2 == 0 else { return false }
        var high: UInt8?
        for c in digits {
            guard let v = value(c) else { return false }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return true
    }

    /// True when `text` is exactly `length` lowercase hex digits.
    public static func isLowercase(_ text: String, length: Int) -> Bool {
        var n = 0
        for c in text.utf8 {
            guard (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) else { return false }
            n += 1
        }
        return n == length
    }

    @inline(__always)
    static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
