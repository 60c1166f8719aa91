import Glibc
@testable import GateKitSchema
@testable import GateKitCrypto
@testable import GateKitStore
@testable import GateKitSupport

/// A fresh private folder per test, removed at the end.
final class TemporaryFolder {
    let path: String

    init() {
        var template = Array("/tmp/gatekit-test-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let p = mkdtemp(base) else { return nil }
            return String(cString: p)
        }
        path = made ?? "/tmp/gatekit-test-fallback-\(getpid())"
    }

    deinit { _ = system("rm -rf '\(path)'") }

    func file(_ name: String) -> String { "\(path)/\(name)" }
}

/// The error code `body` fails with (nil: it succeeded), whatever it throws.
func failure(_ body: () throws -> Any) -> GateKitError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as GateKitError {
        return error.code
    } catch {
        return .EINTERNAL
    }
}

enum Files {
    static func write(_ path: String, _ bytes: [UInt8]) {
        guard let f = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, f) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}

func sha256Hex(_ text: String) throws -> String {
    Hex.encode(try Digest.hash(.sha256, Array(text.utf8)))
}

extension Store {
    /// The first column of every row `sql` reads, as integers: what a test compares a table with.
    func integers(_ sql: String) throws -> [Int64] {
        try read { (db) throws(GateKitError) -> [Int64] in
            let s = try db.statement(sql)
            defer { s.reset() }
            var out: [Int64] = []
            while try s.step() { out.append(s.int64(0)) }
            return out
        }
    }
}

/// The store-contract suites (EULA, permissions, ledger) run on SQLite, and a second time on
/// PostgreSQL with GATEKIT_TEST_BACKEND=postgresql (make test does both): a store a test names
/// by file path then opens on the test server as the app id "swift.<folder>.<file>", unique to
/// the run and the same for every handle of the test.
enum TestStores {
    /// Where a test makes a store of an older schema: a file of `folder`, or on PostgreSQL
    /// runs the test server under a fresh app id tagged `tag`.
    static func previous(in folder: TemporaryFolder, _ tag: String) -> (path: String, appID: String?) {
        guard onPostgres, let server = postgresTestServer() else { return (folder.file("previous.sqlite"), nil) }
        return (server, uniqueAppID(tag))
    }

    /// Copies the rows of each table, the named columns only ("#" marks an integer column; rows
    /// in the order of the first), from `source` to `target`: a store of an older schema filled
    /// as it would hold the same data.
    static func copy(_ tables: [(table: String, columns: [String])], from source: Store, to target: Store) throws {
        for (table, columns) in tables {
            let names = columns.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
            var rows: [[RowInserts.Value]] = []
            try source.read { (db) throws(GateKitError) in
                let s = try db.statement("SELECT \(names.joined(separator: ", ")) FROM \(table) ORDER BY \(names.first ?? "1")")
                defer { s.reset() }
                while try s.step() {
                    rows.append(columns.indices.map { i in
                        columns[i].hasPrefix("#") ? .integer(s.optionalInt64(Int32(i))) : .text(s.text(Int32(i)))
                    })
                }
            }
            try target.write { (db) throws(GateKitError) in
                var insert = RowInserts(into: "\(table)(\(names.joined(separator: ", ")))\(db.dialect == .postgresql ? " OVERRIDING SYSTEM VALUE" : "")",
                                        values: Array(repeating: "?", count: names.count))
                for row in rows { try insert.append(row) }
                try insert.flush(db)
            }
        }
    }

    static var onPostgres: Bool {
        guard let backend = getenv("GATEKIT_TEST_BACKEND") else { return false }
        return String(cString: backend) == "postgresql"
    }

    static func open(_ path: String) throws -> Store {
        guard onPostgres else { return try Store(schema: .gatekit, path: path, appID: nil) }
        guard let server = getenv("GATEKIT_TEST_POSTGRES") else {
            throw GateKitError(.EINVAL, "GATEKIT_TEST_BACKEND=postgresql needs GATEKIT_TEST_POSTGRES (scripts/with-postgres.sh)")
        }
        let parts = path.split(separator: "/").suffix(2).joined(separator: ".")
        let appID = String(("swift." + parts).map { c -> Character in
            c.isLetter && c.isASCII || c.isNumber && c.isASCII || c == "." || c == "-" || c == "_" ? c : "-"
        }.prefix(128))
        // Behind the test pooler (GATEKIT_TEST_POSTGRES its address), the direct server hears commits.
        let listen = getenv("GATEKIT_TEST_POSTGRES_LISTEN").map { String(cString: $0) }
        return try Store(schema: .gatekit, path: String(cString: server), appID: appID, listenURI: listen)
    }
}
