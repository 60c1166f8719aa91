/// Base64 (RFC 4648 §4) and base64url (§5) with strict, allocation-light decoding.
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `+` `/`, `=` padding; ASCII white space between characters is skipped (receipts sent by devices).
        case standard
        /// `-` `_`, no padding and no white space (JWS compact serialization).
        case url
    }

    private static let invalid: UInt8 = 0xFF
    private static let skip: UInt8 = 0xFE

    private static func table(_ alphabet: Alphabet) -> [UInt8] {
        var t = [UInt8](repeating: invalid, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            t[Int(c)] = UInt8(i)
        }
        switch alphabet {
        case .standard:
            t[Int(UInt8(ascii: "+"))] = 62
            t[Int(UInt8(ascii: "/"))] = 63
            for c in [UInt8(ascii: " "), 0x09, 0x0A, 0x0D] { t[Int(c)] = skip }
        case .url:
            t[Int(UInt8(ascii: "-"))] = 62
            t[Int(UInt8(ascii: "_"))] = 63
        }
        return t
    }

    private static let standardTable = table(.standard)
    private static let urlTable = table(.url)

    /// Decodes, or returns nil for any character outside the alphabet, misplaced or missing
    /// padding (standard), any padding (url), or non-zero unused bits.
    public static func decode<C: Collection>(_ text: C, alphabet: Alphabet) -> [UInt8]? where C.Element == UInt8 {
        let t = alphabet == .standard ? standardTable : urlTable
        var out = [UInt8]()
        out.reserveCapacity(text.count / 4 * 3 + 3)
        var acc: UInt32 = 0
        var n = 0          // sextets in the current quantum
        var padding = 0
        for c in text {
            if alphabet == .standard && c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let v = t[Int(c)]
            if v == skip { continue }
            if v == invalid || padding > 0 { return nil }
            acc = acc << 6 | UInt32(v)
            n += 1
            if n == 4 {
                out.append(UInt8(truncatingIfNeeded: acc >> 16))
                out.append(UInt8(truncatingIfNeeded: acc >> 8))
                out.append(UInt8(truncatingIfNeeded: acc))
                acc = 0
                n = 0
            }
        }
        switch n {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard acc & 0x0F == 0 else { return nil }
            if alphabet == .standard && padding != 2 { return nil }
            out.append(UInt8(truncatingIfNeeded: acc >> 4))
        case 3:
            guard acc & 0x03 == 0 else { return nil }
            if alphabet == .standard && padding != 1 { return nil }
            out.append(UInt8(truncatingIfNeeded: acc >> 10))
            out.append(UInt8(truncatingIfNeeded: acc >> 2))
        default:
            return nil
        }
        return out
    }

    public static func encode<C: Collection>(_ bytes: C, alphabet: Alphabet = .standard) -> String where C.Element == UInt8 {
        let chars: [UInt8] = Array(
            (alphabet == .standard
                ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").utf8)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            let b1 = it.next()
            let b2 = it.next()
            let v = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(chars[Int(v >> 18 & 63)])
            out.append(chars[Int(v >> 12 & 63)])
            if b1 != nil { out.append(chars[Int(v >> 6 & 63)]) } else if alphabet == .standard { out.append(UInt8(ascii: "=")) }
            if b2 != nil { out.append(chars[Int(v & 63)]) } else if alphabet == .standard { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
