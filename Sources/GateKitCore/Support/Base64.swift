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

    /// The tables of the whole-quantum path: for each position of a quantum, each character's
    /// sextet already shifted into place; a character that is not a sextet (padding, white
    /// space, invalid) sets the top byte, so one test of the four OR-ed finds any of them.
    private static func quantumTables(_ alphabet: Alphabet) -> [UInt32] {
        let sextets = table(alphabet)
        var t = [UInt32](repeating: 0, count: 4 * 256)
        for position in 0..<4 {
            for c in 0..<256 {
                let v = sextets[c]
                t[position * 256 + c] = v >= 64 ? 0xFF00_0000 : UInt32(v) << (6 * (3 - position))
            }
        }
        return t
    }

    private static let standardQuanta = quantumTables(.standard)
    private static let urlQuanta = quantumTables(.url)

    /// Decodes, or returns nil for any character outside the alphabet, misplaced or missing
    /// padding (standard), any padding (url), or non-zero unused bits. Contiguous text (an
    /// array, a slice, a native string's UTF-8) is read in place; other collections are copied
    /// first.
    public static func decode<C: Collection>(_ text: C, alphabet: Alphabet) -> [UInt8]? where C.Element == UInt8 {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(contiguous: $0, alphabet: alphabet) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode(contiguous: $0, alphabet: alphabet) }
    }

    /// The decoder over bytes in memory, written straight into the result (a push's token and
    /// message, a signed transaction's certificates). Whole quanta of four alphabet characters
    /// go three bytes at a time; from the first quantum holding anything else (padding, white
    /// space, an invalid character, a short end) the careful loop decides, character by
    /// character, from that quantum's start.
    private static func decode(contiguous text: UnsafeBufferPointer<UInt8>, alphabet: Alphabet) -> [UInt8]? {
        decode(text, alphabet: alphabet, quantaFirst: true)
    }

    /// `quantaFirst: false` is the careful loop alone, which the tests hold the fast path to.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, alphabet: Alphabet, quantaFirst: Bool) -> [UInt8]? {
        let standard = alphabet == .standard
        let table = standard ? standardTable : urlTable
        let quanta = standard ? standardQuanta : urlQuanta
        var valid = true
        // At most 3 bytes per 4 characters, and 2 for a last quantum of 2 or 3.
        let out = table.withUnsafeBufferPointer { t in quanta.withUnsafeBufferPointer { q in
            [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { buffer, written in
                var o = 0
                var start = 0
                if quantaFirst {
                    while start &+ 4 <= text.count {
                        let word = q[Int(text[start])] | q[256 &+ Int(text[start &+ 1])]
                            | q[512 &+ Int(text[start &+ 2])] | q[768 &+ Int(text[start &+ 3])]
                        if word & 0xFF00_0000 != 0 { break }
                        buffer[o] = UInt8(truncatingIfNeeded: word >> 16)
                        buffer[o &+ 1] = UInt8(truncatingIfNeeded: word >> 8)
                        buffer[o &+ 2] = UInt8(truncatingIfNeeded: word)
                        o &+= 3
                        start &+= 4
                    }
                }
                var acc: UInt32 = 0
                var n = 0          // sextets in the current quantum
                var padding = 0
                for c in UnsafeBufferPointer(rebasing: text[start...]) {
                    if standard && c == UInt8(ascii: "=") {
                        padding += 1
                        continue
                    }
                    let v = t[Int(c)]
                    if v == skip { continue }
                    if v == invalid || padding > 0 {
                        valid = false
                        break
                    }
                    acc = acc << 6 | UInt32(v)
                    n += 1
                    if n == 4 {
                        buffer[o] = UInt8(truncatingIfNeeded: acc >> 16)
                        buffer[o + 1] = UInt8(truncatingIfNeeded: acc >> 8)
                        buffer[o + 2] = UInt8(truncatingIfNeeded: acc)
                        o += 3
                        acc = 0
                        n = 0
                    }
                }
                switch n {
                case _ where !valid: break
                case 0:
                    valid = padding == 0
                case 2:
                    valid = acc & 0x0F == 0 && (!standard || padding == 2)
                    if valid {
                        buffer[o] = UInt8(truncatingIfNeeded: acc >> 4)
                        o += 1
                    }
                case 3:
                    valid = acc & 0x03 == 0 && (!standard || padding == 1)
                    if valid {
                        buffer[o] = UInt8(truncatingIfNeeded: acc >> 10)
                        buffer[o + 1] = UInt8(truncatingIfNeeded: acc >> 2)
                        o += 2
                    }
                default:
                    valid = false
                }
                written = valid ? o : 0
            }
        } }
        return valid ? out : nil
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
