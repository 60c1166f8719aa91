/// Values from the input (or the environment) inside error messages: bounded, escaped and
/// always in double quotes, so a message can neither grow with the input nor carry control
/// characters, terminal escapes or look-alike text into a host's logs.
///
/// Rules: at most `limit` characters of the value, then `…(N bytes)`; `\"` and `\\`;
/// `\0`, `\n`, `\r`, `\t`; every other C0/C1 control, DEL, bidirectional-text control and
/// line/paragraph separator as `\u{XXXX}`; each byte that is not part of valid UTF-8 as `\xNN`.
/// A value holding a NUL therefore never reads like the same value cut at the NUL.
public enum Quoted {
    public static let limit = 64

    public static func text(_ s: String) -> String { bytes(s.utf8) }

    /// "absent" for nil, else the quoted text.
    public static func text(_ s: String?) -> String { s.map(text) ?? "absent" }

    public static func bytes<C: Collection>(_ input: C, limit: Int = Quoted.limit) -> String where C.Element == UInt8 {
        let bytes = Array(input.prefix(limit * 4 + 4))
        var out = "\""
        var shown = 0
        var i = 0
        while i < bytes.count && shown < limit {
            let (scalar, width) = decodeScalar(bytes, at: i)
            if let scalar {
                out += escaped(scalar)
            } else {
                out += "\\x" + Hex.encode(bytes[i...i])
            }
            i += width
            shown += 1
        }
        out += "\""
        if i < input.count { out += "…(\(input.count) bytes)" }
        return out
    }

    private static func escaped(_ u: Unicode.Scalar) -> String {
        switch u.value {
        case 0x00: return "\\0"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x01...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFEFF:
            return "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
        default:
            return String(u)
        }
    }

    /// The scalar starting at `i` and its byte width, or nil and 1 for a byte that does not
    /// start a well-formed UTF-8 sequence (overlong forms and surrogates included).
    private static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let lead = b[i]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let width: Int, minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: width = 2; minimum = 0x80; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: width = 3; minimum = 0x800; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: width = 4; minimum = 0x10000; value = UInt32(lead & 0x07)
        default: return (nil, 1)
        }
        guard i + width <= b.count else { return (nil, 1) }
        for k in 1..<width {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, width)
    }
}

extension Quoted {
    /// A file path: the same escaping with room for a whole path (PATH_MAX).
    public static func path(_ p: String) -> String { bytes(p.utf8, limit: 4096) }
}
