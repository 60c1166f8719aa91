/// RFC 3986 percent-encoding: every byte outside the unreserved set (A–Z a–z 0–9 - . _ ~)
/// becomes %XX, so a value stays one path segment or one query value whatever it holds.
public enum PercentEncoding {
    public static func encode(_ value: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for b in value.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]]
            }
        }
        // "." and ".." alone would name the current or parent folder: encode them too.
        if out == [UInt8(ascii: ".")] || out == [UInt8(ascii: "."), UInt8(ascii: ".")] {
            return String(repeating: "%2E", count: out.count)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
