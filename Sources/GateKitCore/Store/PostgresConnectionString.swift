import GateKitSupport

/// Which store strings name a PostgreSQL server rather than an SQLite file, and how one is
/// shown without its secrets.
enum PostgresConnectionString {
    /// A `postgresql://` or `postgres://` URI, or a libpq key=value string whose first keyword
    /// is one of libpq's (`host=db1 dbname=gatekit`). Anything else is an SQLite path; a file
    /// whose name looks like a key=value string is named with a leading `./`.
    static func isConnectionString(_ text: String) -> Bool {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") { return true }
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let keyword = trimmed[..<equals].trimmingSuffix { $0 == " " || $0 == "\t" }
        return keywords.contains(String(keyword))
    }

    /// libpq's connection keywords (PostgreSQL 15 documentation, "Parameter Key Words").
    static let keywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
        "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode",
        "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslrootcert", "sslcrl", "sslcrldir",
        "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib",
        "service", "target_session_attrs", "load_balance_hosts",
    ]

    /// A URI for messages and `gatekit_store_path`: user, host, port and database; never the
    /// password or other options. A socket folder as host is percent-encoded, as libpq reads it.
    static func display(user: String, host: String, port: String, database: String) -> String {
        func escaped(_ part: String) -> String {
            var out = ""
            for b in part.utf8 {
                switch b {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    out.unicodeScalars.append(Unicode.Scalar(b))
                default:
                    out += "%" + Hex.encode(CollectionOfOne(b)).uppercased()
                }
            }
            return out
        }
        let who = user.isEmpty ? "" : escaped(user) + "@"
        let at = port.isEmpty ? escaped(host) : escaped(host) + ":" + port
        return "postgresql://\(who)\(at)/\(escaped(database))"
    }

    /// `message` with every occurrence of `secret` (a password) replaced.
    static func redacting(_ secret: String?, in message: String) -> String {
        guard let secret, !secret.isEmpty else { return message }
        return Text.pieces(message, separatedBy: secret).joined(separator: "********")
    }
}

private extension Substring {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
