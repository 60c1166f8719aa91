import CPostgres
import Glibc
import GateKitSupport

/// The store behind a connection pooler (PgBouncer in transaction or session mode, or a managed
/// equivalent): consecutive transactions of one connection may run on different server
/// sessions, so nothing may live in a session. Behind one, GateKit
/// - sets the store's `search_path` and the connection's settings (`options`: GateKit's
///   timeouts, or what the connection string or `$PGOPTIONS` says) with `set_config(…, true)`
///   inside every transaction, reads included (`SET LOCAL`: gone at COMMIT);
/// - runs unnamed statements (parsed with each run) instead of named prepared ones, which
///   live in one server session (Debian's PgBouncer 1.18 does not follow them);
/// - holds only transaction-scoped locks (the store's own lock rows, `pg_advisory_xact_lock`),
///   as it does directly;
/// - cannot LISTEN: another client's commits are seen through a direct listen connection
///   (`PostgresStore`'s `listenURI`) or not cached at all.
extension PostgresConnection {
    /// A pooler hands out a backend key of its own: the pid libpq was given is not the server
    /// process answering.
    func isPooled(_ c: OpaquePointer) throws(GateKitError) -> Bool {
        try firstText("SELECT pg_backend_pid()") != String(pq.PQbackendPID(c))
    }

    /// `set_config(name, value, true)` for every setting and the store's search path, as one
    /// statement: `body` gets its text, its parameter count and values (NULL-terminated C strings).
    func withTransactionSettings<T>(_ body: (String, Int32, UnsafePointer<UnsafePointer<CChar>?>) -> T?) -> T? {
        let sql = "SELECT " + transactionSettings.indices.map { "set_config($\(2 * $0 + 1), $\(2 * $0 + 2), true)" }.joined(separator: ", ")
        return PostgresConnection.withCStringArray(transactionSettings.flatMap { [$0.name, $0.value] }) { values in
            body(sql, Int32(transactionSettings.count * 2), values)
        }
    }
}

/// libpq's `options` (`-c name=value`, `-cname=value`, `--name=value`; a backslash keeps the
/// next character, a space included), as the settings GateKit applies in each transaction when
/// a pooler does not pass them on. Anything else (a command-line switch the server alone
/// understands) cannot be applied that way: an error behind a pooler, never dropped.
enum PostgresOptions {
    static func settings(_ options: String) throws(GateKitError) -> [(name: String, value: String)] {
        var words: [String] = []
        var word = ""
        var escaped = false, inWord = false
        for c in options {
            if escaped { word.append(c); escaped = false; inWord = true; continue }
            if c == "\\" { escaped = true; inWord = true; continue }
            if c == " " || c == "\t" || c == "\n" {
                if inWord { words.append(word); word = ""; inWord = false }
                continue
            }
            word.append(c)
            inWord = true
        }
        if escaped { word.append("\\") }
        if inWord { words.append(word) }
        var settings: [(name: String, value: String)] = []
        var i = 0
        while i < words.count {
            var assignment: Substring
            if words[i] == "-c" {
                guard i + 1 < words.count else { throw refusal(options, "'-c' is not followed by name=value") }
                assignment = Substring(words[i + 1])
                i += 2
            } else if words[i].hasPrefix("--") {
                assignment = words[i].dropFirst(2)
                i += 1
            } else if words[i].hasPrefix("-c") {
                assignment = words[i].dropFirst(2)
                i += 1
            } else {
                throw refusal(options, "\(Quoted.text(words[i])) is not a setting (-c name=value)")
            }
            guard let equals = assignment.firstIndex(of: "=") else { throw refusal(options, "\(Quoted.text(String(assignment))) has no '='") }
            // A setting's name is an identifier: '-' stands for '_', as the server reads it.
            let name = String(assignment[..<equals]).replacingDashes()
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) }) else {
                throw refusal(options, "\(Quoted.text(name)) is not a setting's name")
            }
            settings.append((name, String(assignment[assignment.index(after: equals)...])))
        }
        return settings
    }

    private static func refusal(_ options: String, _ why: String) -> GateKitError {
        GateKitError(.EINVAL, "the connection's options \(Quoted.text(options)) cannot be applied behind a connection pooler: \(why); behind a pooler GateKit sets each -c name=value inside every transaction (SET LOCAL), and nothing else can be")
    }
}

private extension String {
    func replacingDashes() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}
