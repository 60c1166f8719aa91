import GateKitSupport

/// The store's SQL as PostgreSQL reads it: `?N` parameters become `$N`.
enum PostgresSQL {
    /// The rewritten text and the number of parameters (the highest N). Quoted strings and
    /// identifiers are copied as they are.
    static func translate(_ sql: String) throws(GateKitError) -> (text: String, parameters: Int) {
        var out = [UInt8]()
        out.reserveCapacity(sql.utf8.count)
        var highest = 0
        var quote: UInt8? = nil
        let bytes = Array(sql.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                if b == q { quote = nil }
                out.append(b)
                i += 1
                continue
            }
            if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
                quote = b
            } else if b == UInt8(ascii: "?") {
                var j = i + 1
                var n = 0
                while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9"), n < 10_000 {
                    n = n * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                    j += 1
                }
                guard n > 0 else { throw GateKitError(.EINTERNAL, "a statement has an unnumbered parameter: \(sql.prefix(60))") }
                highest = max(highest, n)
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: bytes[(i + 1)..<j])
                i = j
                continue
            }
            out.append(b)
            i += 1
        }
        return (String(decoding: out, as: UTF8.self), highest)
    }
}
