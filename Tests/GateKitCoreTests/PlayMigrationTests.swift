import Testing
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// Migration 15 (Google Play) upgrades a store that holds status changes: SQLite rebuilds that
/// table to widen its CHECK, PostgreSQL replaces the checks; either way every row stays, the
/// table still refuses UPDATE and DELETE, and Play's statuses (paused, pending) are accepted.
@Suite struct PlayMigrationTests {
    @Test func statusChangesKeepTheirRowsAndStayAppendOnly() throws {
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "play-migration")
        let before = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(14)))
        let old = try Store(schema: before, path: path, appID: appID)
        try old.write { (db) throws(GateKitError) in
            let overriding = db.dialect == .postgresql ? " OVERRIDING SYSTEM VALUE" : ""
            try db.execute("""
                INSERT INTO ledger_items(id, environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body)\(overriding)
                VALUES (7, 'Production', 0, '\(String(repeating: "a", count: 64))', 2, 1, 1, 1, '{}');
                INSERT INTO ledger_status_changes(environment, test_signed, original_transaction_id, group_id, from_status, to_status, item_id, at_ms)
                VALUES ('Production', 0, '1000', 'g', NULL, 1, 7, 10), ('Production', 0, '1000', 'g', 1, 5, 7, 20);
                """)
        }
        #expect(failure {
            try old.write { (db) throws(GateKitError) in
                try db.execute("INSERT INTO ledger_status_changes(environment, test_signed, original_transaction_id, to_status, item_id, at_ms) VALUES ('Production', 0, '1', 6, 7, 30)")
            }
        } != nil, "before migration 15 a paused status is refused")
        let upgraded = try Store(schema: .gatekit, path: path, appID: appID)
        let rows = try upgraded.read { (db) throws(GateKitError) -> [String] in
            let s = try db.statement("SELECT id, original_transaction_id, from_status, to_status, item_id, at_ms FROM ledger_status_changes ORDER BY id")
            defer { s.reset() }
            var out: [String] = []
            while try s.step() { out.append("\(s.int64(0)) \(s.text(1) ?? "") \(s.optionalInt64(2) ?? 0) \(s.int64(3)) \(s.int64(4)) \(s.int64(5))") }
            return out
        }
        #expect(rows == ["1 1000 0 1 7 10", "2 1000 1 5 7 20"])
        try upgraded.write { (db) throws(GateKitError) in
            try db.execute("""
                INSERT INTO ledger_status_changes(environment, test_signed, original_transaction_id, from_status, to_status, item_id, at_ms)
                VALUES ('Production', 0, 'play-token', 1, 6, 7, 30), ('Production', 0, 'play-token', 6, 7, 7, 40)
                """)
        }
        for refused in ["UPDATE ledger_status_changes SET at_ms = 0", "DELETE FROM ledger_status_changes",
                        "INSERT INTO ledger_status_changes(environment, test_signed, original_transaction_id, to_status, item_id, at_ms) VALUES ('Production', 0, 'x', 8, 7, 1)"] {
            #expect(failure { try upgraded.write { (db) throws(GateKitError) in try db.execute(refused) } } != nil, "\(refused)")
        }
        #expect(try upgraded.read { (db) throws(GateKitError) in try db.scalar("SELECT COUNT(*) FROM ledger_status_changes") } == 4)
    }
}
