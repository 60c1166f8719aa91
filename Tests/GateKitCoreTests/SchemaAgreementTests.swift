import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// The two backends' schemas are one schema (each migration is written once, with `DDL`, and
/// rendered per backend): a fresh store on each, migrated to the current version, has the same tables,
/// columns (name, kind of type, NOT NULL, primary key), secondary and unique indexes, and the
/// same append-only triggers. Read from each database's own catalog, not from the DDL text.
@Suite struct SchemaAgreementTests {
    struct Column: Hashable, CustomStringConvertible {
        let name: String
        let type: String      // INTEGER, TEXT or BLOB
        let notNull: Bool
        let primaryKey: Bool
        var description: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")\(primaryKey ? " PK" : "")" }
    }

    struct Shape: Equatable {
        var columns: [String: [Column]] = [:]          // by table, in column order
        var indexes: [String: Set<String>] = [:]        // by table: "UNIQUE a,b" / "a,b" (primary keys aside)
        var refusals: [String: Set<String>] = [:]       // by table: the events a trigger refuses

        var summary: String {
            func total<T: Collection>(_ m: [String: T]) -> Int { m.values.map(\.count).reduce(0, +) }
            return "\(columns.count) tables, \(total(columns)) columns, \(total(indexes)) indexes, \(total(refusals)) refused events"
        }
    }

    /// A declared type as one of the three kinds both backends store.
    static func kind(_ declared: String) -> String {
        let t = declared.uppercased()
        if t.contains("INT") { return "INTEGER" }
        if t.contains("BLOB") || t.contains("BYTEA") { return "BLOB" }
        if t.contains("TEXT") || t.contains("CHAR") { return "TEXT" }
        return t
    }

    static func rows(_ db: any DatabaseConnection, _ sql: String, bind: String? = nil, columns: Int32) throws -> [[String]] {
        let s = try db.statement(sql)
        defer { s.reset() }
        if let bind { s.bind(1, text: bind) }
        var out: [[String]] = []
        while try s.step() {
            out.append((0..<columns).map { s.text($0) ?? String(s.int64($0)) })
        }
        return out
    }

    static func sqliteShape(_ store: Store) throws -> Shape {
        try store.read { (db) throws(GateKitError) -> Shape in
            do {
                var shape = Shape()
                let tables = try rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", columns: 1)
                for table in tables.map({ $0[0] }) {
                    shape.columns[table] = try rows(db, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid", bind: table, columns: 4)
                        .map { Column(name: $0[0], type: kind($0[1]), notNull: $0[2] == "1" || $0[3] != "0", primaryKey: $0[3] != "0") }
                    let indexes = try rows(db, """
                        SELECT il."unique", (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno))
                        FROM pragma_index_list(?1) il WHERE il.origin <> 'pk'
                        """, bind: table, columns: 2)
                    shape.indexes[table] = Set(indexes.map { ($0[0] == "1" ? "UNIQUE " : "") + $0[1] })
                    let triggers = try rows(db, "SELECT upper(sql) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1", bind: table, columns: 1)
                    shape.refusals[table] = Set(triggers.flatMap { sql in
                        ["UPDATE", "DELETE"].filter { sql[0].contains("BEFORE \($0)") || sql[0].contains("BEFORE \($0) ON") }
                    })
                }
                return shape
            } catch let error as GateKitError {
                throw error
            } catch {
                throw .internalError("\(error)")
            }
        }
    }

    static func postgresShape(_ store: Store, schema: String) throws -> Shape {
        try store.read { (db) throws(GateKitError) -> Shape in
            do {
                var shape = Shape()
                let tables = try rows(db, "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?1 AND c.relkind = 'r' ORDER BY 1", bind: schema, columns: 1)
                for table in tables.map({ $0[0] }) {
                    let qualified = PostgresNamespace.quoted(schema) + "." + PostgresNamespace.quoted(table)
                    shape.columns[table] = try rows(db, """
                        SELECT a.attname, format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN '1' ELSE '0' END,
                               CASE WHEN EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary
                                                 AND a.attnum = ANY (i.indkey)) THEN '1' ELSE '0' END
                        FROM pg_attribute a WHERE a.attrelid = ?1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                        """, bind: qualified, columns: 4)
                        .map { Column(name: $0[0], type: kind($0[1]), notNull: $0[2] == "1", primaryKey: $0[3] == "1") }
                    let indexes = try rows(db, """
                        SELECT CASE WHEN i.indisunique THEN '1' ELSE '0' END,
                               (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
                        FROM pg_index i WHERE i.indrelid = ?1::regclass AND NOT i.indisprimary
                        """, bind: qualified, columns: 2)
                    shape.indexes[table] = Set(indexes.map { ($0[0] == "1" ? "UNIQUE " : "") + $0[1] })
                    // tgtype bits (pg_trigger.h): 8 DELETE, 16 UPDATE.
                    let triggers = try rows(db, "SELECT tgtype::text FROM pg_trigger WHERE tgrelid = ?1::regclass AND NOT tgisinternal", bind: qualified, columns: 1)
                    shape.refusals[table] = Set(triggers.flatMap { row -> [String] in
                        let bits = Int(row[0]) ?? 0
                        return (bits & 16 != 0 ? ["UPDATE"] : []) + (bits & 8 != 0 ? ["DELETE"] : [])
                    })
                }
                return shape
            } catch let error as GateKitError {
                throw error
            } catch {
                throw .internalError("\(error)")
            }
        }
    }

    @Test func bothBackendsMigrateToTheSameSchema() throws {
        let folder = TemporaryFolder()
        let sqlite = try SchemaAgreementTests.sqliteShape(try Store(schema: .gatekit, path: folder.file("s.sqlite"), appID: nil))
        // What the SQLite side must hold, so an empty catalog query cannot pass.
        #expect(sqlite.columns.keys.contains("ledger_transactions") && sqlite.columns.count >= 10)
        #expect(sqlite.refusals["eula_decisions"] == ["UPDATE", "DELETE"])
        #expect(sqlite.indexes["ledger_items"]?.contains("UNIQUE environment,test_signed,identity") == true)
        guard let server = postgresTestServer() else { return }
        let appID = uniqueAppID("schema")
        let postgres = try SchemaAgreementTests.postgresShape(try Store(schema: .gatekit, path: server, appID: appID),
                                                              schema: try PostgresNamespace.namespace(appID: appID))
        #expect(Set(sqlite.columns.keys) == Set(postgres.columns.keys))
        print("schema: SQLite \(sqlite.summary); PostgreSQL \(postgres.summary)")
        for table in sqlite.columns.keys.sorted() {
            #expect(sqlite.columns[table] == postgres.columns[table], "columns of \(table)")
            #expect(sqlite.indexes[table] == postgres.indexes[table], "indexes of \(table)")
            #expect(sqlite.refusals[table] == postgres.refusals[table], "append-only triggers of \(table)")
        }
    }
}
