import Glibc
import Testing
@testable import GateKitEULA
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// A write transaction on PostgreSQL runs in libpq's pipeline mode (`PostgresConnection`):
/// writes are sent without waiting, reads may be prefetched. What a caller sees must not change.
@Suite struct PostgresPipelineTests {
    static let upsert = "INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    static let read = "SELECT value FROM gatekit_meta WHERE key = ?1"

    static func value(_ store: Store, _ key: String) throws -> String? {
        try store.read { (db) throws(GateKitError) -> String? in
            let s = try db.statement(read).bind(1, text: key)
            defer { s.reset() }
            return try s.step() ? s.text(0) : nil
        }
    }

    @Test func aFailedWriteSurfacesNamedAndNothingOfItsTransactionIsKept() throws {
        guard let server = postgresTestServer() else { return }
        let store = try Store(schema: .gatekit, path: server, appID: uniqueAppID("pipeline-fail"))
        try store.write { (db) throws(GateKitError) in try db.statement(Self.upsert).bind(1, text: "kept").bind(2, text: "1").run() }
        try EULAGate(store: store).record(.accepted, documentID: "terms", hash: String(repeating: "1", count: 64), user: nil)
        // The failing UPDATE (append-only) is answered only at the next read: that read throws
        // its error, naming the UPDATE.
        #expect {
            try store.write { (db) throws(GateKitError) in
                try db.statement(Self.upsert).bind(1, text: "lost").bind(2, text: "1").run()
                try db.statement("UPDATE eula_decisions SET decision = ?1").bind(1, Int64(2)).run()
                _ = try db.scalar("SELECT count(*) FROM gatekit_meta")
            }
        } throws: { error in
            guard let e = error as? GateKitError else { return false }
            return e.message.contains("append-only") && e.message.contains("UPDATE eula_decisions")
        }
        // At COMMIT, with a statement prepared after the failure (the server never ran that
        // PREPARE): the error, not an uncertain commit, and nothing of the transaction stays.
        let fresh = "INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO NOTHING"
        #expect {
            try store.write { (db) throws(GateKitError) in
                try db.statement("DELETE FROM eula_decisions WHERE decision = ?1").bind(1, Int64(1)).run()
                try db.statement(fresh).bind(1, text: "after").bind(2, text: "1").run()
            }
        } throws: { ($0 as? GateKitError)?.code != .EUNCERTAIN && ($0 as? GateKitError)?.message.contains("append-only") == true }
        #expect(try Self.value(store, "lost") == nil)
        #expect(try Self.value(store, "after") == nil)
        // The same connection goes on: the statement is prepared again and runs.
        try store.write { (db) throws(GateKitError) in try db.statement(fresh).bind(1, text: "after").bind(2, text: "2").run() }
        #expect(try Self.value(store, "after") == "2")
        #expect(try Self.value(store, "kept") == "1")
    }

    @Test func manyWritesInOneTransactionAreAllCommitted() throws {
        guard let server = postgresTestServer() else { return }
        let store = try Store(schema: .gatekit, path: server, appID: uniqueAppID("pipeline-many"))
        // More than the answers read together at most (`maximumAwaited`), with reads among them.
        let count = PostgresConnection.maximumAwaited * 3 + 7
        let seen = try store.write { (db) throws(GateKitError) -> [Int64] in
            var seen: [Int64] = []
            for i in 0..<count {
                try db.statement(Self.upsert).bind(1, text: "k\(i)").bind(2, text: "\(i)").run()
                if i % 500 == 0 { seen.append(try db.scalar("SELECT count(*) FROM gatekit_meta WHERE key LIKE 'k%'")) }
            }
            return seen
        }
        #expect(seen == stride(from: 0, to: count, by: 500).map { Int64($0 + 1) })  // each read sees the writes sent before it
        let total = try store.read { (db) throws(GateKitError) in try db.scalar("SELECT count(*) FROM gatekit_meta WHERE key LIKE 'k%'") }
        #expect(total == Int64(count))
    }

    @Test func aPrefetchedAnswerServesOnlyTheSameBindingsInTheSameTransaction() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("pipeline-prefetch")
        let store = try Store(schema: .gatekit, path: server, appID: app), other = try Store(schema: .gatekit, path: server, appID: app)
        try store.write { (db) throws(GateKitError) in
            try db.statement(Self.upsert).bind(1, text: "a").bind(2, text: "A1").run()
            try db.statement(Self.upsert).bind(1, text: "b").bind(2, text: "B1").run()
        }
        func step(_ db: any DatabaseConnection, _ key: String) throws(GateKitError) -> String? {
            let s = try db.statement(Self.read).bind(1, text: key)
            defer { s.reset() }
            return try s.step() ? s.text(0) : nil
        }
        let (same, otherKey) = try store.write { (db) throws(GateKitError) -> (String?, String?) in
            try db.statement(Self.read).bind(1, text: "a").prefetch()
            let same = try step(db, "a")
            try db.statement(Self.read).bind(1, text: "a").prefetch()
            return (same, try step(db, "b"))  // asked for "a", stepped for "b": b's row
        }
        #expect(same == "A1")
        #expect(otherKey == "B1")
        // Prefetched and never stepped: the next transaction reads anew, after another commit.
        try store.write { (db) throws(GateKitError) in try db.statement(Self.read).bind(1, text: "a").prefetch() }
        try other.write { (db) throws(GateKitError) in try db.statement(Self.upsert).bind(1, text: "a").bind(2, text: "A2").run() }
        #expect(try store.write { (db) throws(GateKitError) -> String? in try step(db, "a") } == "A2")
    }
    @Test func aConnectionKilledInsideAWriteIsReplacedAndTheWriteRunsOnce() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("pipeline-killed")
        let store = try Store(schema: .gatekit, path: server, appID: app), admin = try Store(schema: .gatekit, path: server, appID: app)
        var attempts = 0
        try store.write { (db) throws(GateKitError) in
            attempts += 1
            try db.statement(Self.upsert).bind(1, text: "attempt").bind(2, text: "\(attempts)").run()  // sent, not yet answered
            let pid = try db.scalar("SELECT pg_backend_pid()")
            if attempts == 1 {
                // The server ends this session mid-transaction: the next answer never comes.
                _ = try admin.read { (a) throws(GateKitError) in
                    try a.statement("SELECT pg_terminate_backend(CAST(?1 AS integer))").bind(1, pid).step()
                }
                usleep(50_000)
            }
            try db.statement(Self.upsert).bind(1, text: "done").bind(2, text: "\(attempts)").run()
            _ = try db.scalar("SELECT count(*) FROM gatekit_meta")
        }
        // Nothing of the killed attempt stayed; the write ran again on a new connection, once.
        #expect(attempts == 2)
        #expect(try Self.value(store, "attempt") == "2")
        #expect(try Self.value(store, "done") == "2")
        try store.write { (db) throws(GateKitError) in try db.statement(Self.upsert).bind(1, text: "after").bind(2, text: "1").run() }
        #expect(try Self.value(store, "after") == "1")
    }
    @Test func writesUseGenericPlansAndReadsTheServersChoice() throws {
        guard let server = postgresTestServer() else { return }
        let store = try Store(schema: .gatekit, path: server, appID: uniqueAppID("pipeline-plans"))
        func mode(_ db: any DatabaseConnection) throws(GateKitError) -> String? {
            let s = try db.statement("SELECT current_setting('plan_cache_mode')")
            defer { s.reset() }
            return try s.step() ? s.text(0) : nil
        }
        #expect(try store.write { (db) throws(GateKitError) in try mode(db) } == "force_generic_plan")
        #expect(try store.read { (db) throws(GateKitError) in try mode(db) } == "auto")  // only for the transaction
    }
}
