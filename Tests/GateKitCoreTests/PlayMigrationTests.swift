import Testing
@testable import GateKitLedger
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

    /// Migration 22: the store column takes any store's code, so a third store needs no table
    /// rebuild; SQLite rebuilds ledger_transactions once (PostgreSQL replaces the check): every
    /// row stays as it was, the table still refuses UPDATE and DELETE, and its indexes are the
    /// new shapes (the planner uses the named stores' index for Play's tokens).
    @Test func transactionsKeepTheirRowsAndTakeAnyStoresCode() throws {
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "store-code-migration")
        let old = try Store(schema: StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(21))), path: path, appID: appID)
        let columns = "environment, test_signed, transaction_id, original_transaction_id, product_id, product_type, family_shared, is_upgraded, signed_ms, identity, item_id, store"
        try old.write { (db) throws(GateKitError) in
            let overriding = db.dialect == .postgresql ? " OVERRIDING SYSTEM VALUE" : ""
            try db.execute("""
                INSERT INTO ledger_items(id, environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body)\(overriding)
                VALUES (7, 'Production', 0, '\(String(repeating: "a", count: 64))', 2, 1, 1, 1, '{}');
                INSERT INTO ledger_transactions(\(columns)) VALUES
                    ('Production', 0, '1001', '1000', 'pro', 3, 0, 0, 10, '\(String(repeating: "b", count: 64))', 7, NULL),
                    ('Production', 0, 'GPA.1', 'token-1', 'pro', 3, 0, 0, 20, '\(String(repeating: "c", count: 64))', 7, 'play');
                """)
        }
        let grant = "INSERT INTO ledger_transactions(\(columns)) VALUES ('Production', 0, 'g1', 'g1', 'pro', 1, 0, 0, 30, '\(String(repeating: "d", count: 64))', 7, 'grant')"
        #expect(failure { try old.write { (db) throws(GateKitError) in try db.execute(grant) } } != nil, "before migration 22 only Play's code is taken")
        let upgraded = try Store(schema: .gatekit, path: path, appID: appID)
        let read = { () throws -> [String] in
            try upgraded.read { (db) throws(GateKitError) -> [String] in
                let s = try db.statement("SELECT id, transaction_id, original_transaction_id, signed_ms, store FROM ledger_transactions ORDER BY id")
                defer { s.reset() }
                var out: [String] = []
                while try s.step() { out.append("\(s.text(1) ?? "") \(s.text(2) ?? "") \(s.int64(3)) \(s.text(4) ?? "-")") }
                return out
            }
        }
        #expect(try read() == ["1001 1000 10 -", "GPA.1 token-1 20 play"])
        try upgraded.write { (db) throws(GateKitError) in try db.execute(grant) }
        #expect(try read().last == "g1 g1 30 grant")
        for refused in ["UPDATE ledger_transactions SET signed_ms = 0", "DELETE FROM ledger_transactions",
                        "INSERT INTO ledger_transactions(\(columns)) VALUES ('Production', 0, 'g2', 'g2', 'pro', 1, 0, 0, 30, '\(String(repeating: "e", count: 64))', 7, '\(String(repeating: "x", count: 33))')"] {
            #expect(failure { try upgraded.write { (db) throws(GateKitError) in try db.execute(refused) } } != nil, "\(refused)")
        }
        let ledger = Ledger(store: upgraded)
        #expect(try ledger.playTokens(after: nil, limit: 10).map(\.0) == ["token-1"])
    }
}

