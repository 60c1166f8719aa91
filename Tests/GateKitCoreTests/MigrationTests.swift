import Testing
@testable import GateKitCrypto
@testable import GateKitEULA
@testable import GateKitPermissions
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// The domains' migrations: the released ones never change, and one written with `DDL` gives
/// both backends the same schema and upgrades a store in the field.
@Suite struct MigrationTests {
    /// SHA-256 of each released migration's text, per backend, as 0.1.0 shipped it: stores in
    /// the field were built from these bytes.
    static let released: [(sqlite: String, postgres: String)] = [
        ("afeaa86d3bd9fbfc448c9a1aae08f309209644dcacdb6c42d50c078d7513b3c1", "6eebf908c0bf6930ae18398a02433dea2f5e6e1595deeaae56d91abc4e0fa23d"),
        ("9c0dd8b52315f533fbaf5f2ff2831053b629681532c1d6ec0f6f8dca6a42f256", "db34f31b0345be8377267acfc3a3e5ef64419c26b738d7616caa04d81635bf66"),
        ("f36736838265a9bbcc8f5065e82ba76abe29cd6dd4f953b167ef8854af791cc5", "321c0f22396d09433ea5b1ada3eb48b14729b49d4277a78c413db6f7dd717ae3"),
        ("a39b3242cfa3e4cdcc97d5f190bb8b326710a0658a466c706f64cb27ed626680", "e27991da0e3eb03ac91513a22da7277b03533eac3a4bf21df9be76cd02ab83e1"),
    ]

    static func sha256(_ text: String) throws -> String { Hex.encode(try Digest.hash(.sha256, Array(text.utf8))) }

    @Test func releasedMigrationsStayByteForByte() throws {
        let migrations = StoreSchema.gatekit.migrations
        #expect(migrations.count >= MigrationTests.released.count)
        for (index, pinned) in MigrationTests.released.enumerated() where index < migrations.count {
            #expect(try MigrationTests.sha256(migrations[index].sqlite) == pinned.sqlite, "SQLite migration \(index + 1)")
            #expect(try MigrationTests.sha256(migrations[index].postgres) == pinned.postgres, "PostgreSQL migration \(index + 1)")
        }
    }

    /// The permission tables of migration 2, written once with `DDL`.
    static let permissionsWrittenOnce = Migration([
        .table("perm_categories", [
            Column("category", .integer, primaryKey: true, check: "category BETWEEN 1000000 AND 2147483647"),
            Column("name", .text, notNull: true, unique: true, check: "length(name) BETWEEN 1 AND 64"),
            Column("registered_ms", .integer, notNull: true),
        ]),
        .table("perm_usage_descriptions", [
            Column("category", .integer, primaryKey: true, check: "category > 0"),
            Column("text", .text, notNull: true, check: "length(text) > 0"),
            Column("updated_ms", .integer, notNull: true),
        ]),
        .table("perm_states", [
            Column("category", .integer, primaryKey: true, check: "category > 0"),
            Column("state", .integer, notNull: true, check: "state IN (0, 100, 200, 403, 406)"),
            Column("system_state", .integer, check: "system_state IN (0, 200, 403, 501)"),
            Column("updated_ms", .integer, notNull: true),
        ]),
        .table("perm_history", [
            Column("id", .identity),
            Column("category", .integer, notNull: true, check: "category > 0"),
            Column("from_state", .integer, notNull: true),
            Column("to_state", .integer, notNull: true),
            Column("source", .integer, notNull: true, check: "source IN (1, 2, 3, 4)"),
            Column("at_ms", .integer, notNull: true),
        ]),
        .index("perm_history_by_category", on: "perm_history", ["category", "id"]),
        .appendOnly("perm_history"),
    ])

    static func shapes(_ schema: StoreSchema, _ tag: String) throws -> (sqlite: SchemaAgreementTests.Shape, postgres: SchemaAgreementTests.Shape?) {
        let folder = TemporaryFolder()
        let sqlite = try SchemaAgreementTests.sqliteShape(try Store(schema: schema, path: folder.file("s.sqlite"), appID: nil))
        guard let server = postgresTestServer() else { return (sqlite, nil) }
        let appID = uniqueAppID(tag)
        let postgres = try SchemaAgreementTests.postgresShape(try Store(schema: schema, path: server, appID: appID),
                                                              schema: try PostgresNamespace.namespace(appID: appID))
        return (sqlite, postgres)
    }

    @Test func ddlRendersWhatTheReleasedMigrationsWrote() throws {
        let released = StoreSchema([StoreTables.metadata + EULASchema.decisions, PermissionSchema.states])
        let rendered = StoreSchema([StoreTables.metadata + EULASchema.decisions, MigrationTests.permissionsWrittenOnce])
        let a = try MigrationTests.shapes(released, "released"), b = try MigrationTests.shapes(rendered, "rendered")
        #expect(a.sqlite.columns["perm_history"]?.count == 6)
        #expect(a.sqlite == b.sqlite)
        #expect(a.postgres == b.postgres)
        #expect(MigrationTests.permissionsWrittenOnce.tables == PermissionSchema.states.tables)
        #expect(MigrationTests.permissionsWrittenOnce.appendOnlyTables == PermissionSchema.states.appendOnlyTables)
    }

    /// A next migration, written once: a table of every column kind, a partial unique index,
    /// append-only rows and a column added later.
    static let next = Migration([
        .table("example_events", [
            Column("id", .identity),
            Column("account", .text, notNull: true),
            Column("payload", .blob),
            Column("amount", .integer, notNull: true, check: "amount >= 0"),
            Column("item_id", .integer, references: "ledger_items(id)"),
        ]),
        .index("example_events_by_account", on: "example_events", ["account", "id"], unique: true, where: "payload IS NOT NULL"),
        .appendOnly("example_events"),
        .addColumn("perm_states", Column("note", .text)),
    ])

    /// SQLite 3.40's integrity check misreads a NOT NULL column of a WITHOUT ROWID table that is
    /// declared before a key column as NULL, and a store it calls corrupt is refused on open
    /// (issue 48's ledger_metric_paid did, until its non-key columns went last): every such
    /// table keeps its NOT NULL non-key columns after its key's.
    @Test func everyWithoutRowIDTableDeclaresItsKeyFirst() throws {
        let folder = TemporaryFolder()
        let store = try Store(schema: .gatekit, path: folder.file("order.sqlite"), appID: nil)
        let misplaced = try store.read { (db) throws(GateKitError) -> [String] in
            var tables: [String] = []
            let list = try db.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%WITHOUT ROWID%' ORDER BY name")
            defer { list.reset() }
            while try list.step() { if let name = list.text(0) { tables.append(name) } }
            #expect(tables.count >= 8, "\(tables)")
            var out: [String] = []
            for table in tables {
                var columns: [(name: String, notNull: Bool, key: Bool)] = []
                let info = try db.statement("SELECT name, \"notnull\", pk FROM pragma_table_info(?1)")
                defer { info.reset() }
                info.bind(1, text: table)
                while try info.step() { columns.append((info.text(0) ?? "", info.int64(1) != 0, info.int64(2) != 0)) }
                guard let lastKey = columns.lastIndex(where: \.key) else { continue }
                out += columns[..<lastKey].filter { $0.notNull && !$0.key }.map { "\(table).\($0.name)" }
            }
            return out
        }
        #expect(misplaced == [])
    }

    @Test func aMigrationWrittenOnceGivesBothBackendsOneSchemaAndUpgradesAStore() throws {
        let extended = StoreSchema(StoreSchema.gatekit.migrations + [MigrationTests.next])
        let shapes = try MigrationTests.shapes(extended, "next")
        #expect(shapes.sqlite.columns["example_events"]?.map(\.name) == ["id", "account", "payload", "amount", "item_id"])
        #expect(shapes.sqlite.indexes["example_events"] == ["UNIQUE account,id"])
        #expect(shapes.sqlite.refusals["example_events"] == ["UPDATE", "DELETE"])
        #expect(shapes.sqlite.columns["perm_states"]?.last?.name == "note")
        if let postgres = shapes.postgres {
            #expect(postgres == shapes.sqlite)
        }
        // A store of the released schema moves forward to the next version, and refuses the
        // older library afterwards, untouched.
        let folder = TemporaryFolder()
        let path = folder.file("field.sqlite")
        let field = try Store(schema: .gatekit, path: path, appID: nil)
        try field.write { (db) throws(GateKitError) in
            try db.execute("INSERT INTO perm_states(category, state, updated_ms) VALUES (1000, 200, 1)")
        }
        let upgraded = try Store(schema: extended, path: path, appID: nil)
        #expect(try upgraded.read { (db) throws(GateKitError) in try db.scalar("PRAGMA user_version") } == extended.currentVersion)
        #expect(try upgraded.read { (db) throws(GateKitError) in try db.scalar("SELECT state FROM perm_states WHERE category = 1000") } == 200)
        #expect(failure { try Store(schema: .gatekit, path: path, appID: nil) } == .ENEWER)
    }

    /// A table of derived data given a new shape: dropped and made anew by one migration, then
    /// dropped for good by another. The store's list of tables (what PostgreSQL's integrity
    /// check looks for) follows, and both backends open the store at each step.
    @Test func aDroppedTableLeavesTheSchemaAndCanBeMadeAnew() throws {
        let made = Migration([.table("example_cache", [Column("key", .text, notNull: true), Column("value", .integer)])])
        let reshaped = Migration([.dropTable("example_cache"),
                                  .table("example_cache", [Column("key", .text, notNull: true), Column("value", .blob)])])
        let gone = Migration([.dropTable("example_cache")])
        #expect(reshaped.sqlite.hasPrefix("DROP TABLE example_cache;\nCREATE TABLE example_cache("))
        let base = StoreSchema.gatekit.migrations
        for (migrations, expected) in [(base + [made, reshaped], 1), (base + [made, reshaped, gone], 0)] {
            let schema = StoreSchema(migrations)
            #expect(schema.tables.filter { $0 == "example_cache" }.count == expected)
            #expect(schema.tables.count == StoreSchema.gatekit.tables.count + expected)
            let shapes = try MigrationTests.shapes(schema, "dropped\(expected)")
            #expect((shapes.sqlite.columns["example_cache"]?.map(\.name) ?? []) == (expected == 1 ? ["key", "value"] : []))
            if let postgres = shapes.postgres { #expect(postgres == shapes.sqlite) }
        }
    }
}
