import GateKitSupport

/// One forward step of the store's schema, as each backend runs it, with what it creates that
/// the store checks afterwards (PostgreSQL's integrity and ownership checks name every table,
/// append-only trigger and function). The domain whose tables it creates owns it
/// (`EULA/EULASchema.swift`, `Ledger/LedgerSchema.swift`, ...); `StoreSchema` orders them.
public struct Migration: Sendable {
    public let sqlite: String
    public let postgres: String
    /// Tables it creates.
    public let tables: [String]
    /// Tables it drops, before it creates `tables` (a table of derived data given a new shape).
    public let droppedTables: [String]
    /// Tables whose rows can never change once written (refused by triggers on both backends).
    public let appendOnlyTables: [String]
    /// PostgreSQL functions it creates.
    public let functions: [String]
    /// Rows it fills after its SQL, in the same transaction, with what only Swift can compute
    /// (a stored signed payload decoded): the same code on both backends.
    public let fill: Fill?

    public typealias Fill = @Sendable (any DatabaseConnection) throws(GateKitError) -> Void

    /// A released migration, written per dialect. Never edit one: stores in the field were
    /// built from it (`ReleasedMigrationTests` pins each by SHA-256).
    public init(sqlite: String, postgres: String, tables: [String], appendOnlyTables: [String] = [], functions: [String] = []) {
        self.init(sqlite: sqlite, postgres: postgres, tables: tables, droppedTables: [], appendOnlyTables: appendOnlyTables, functions: functions)
    }

    /// A migration written once and rendered for each backend: every migration after the
    /// released ones is written this way, so the two schemas cannot drift apart.
    public init(_ statements: [DDL], fill: Fill? = nil) {
        sqlite = statements.map { $0.render(.sqlite) }.joined()
        postgres = statements.map { $0.render(.postgres) }.joined()
        tables = statements.compactMap(\.createdTable)
        droppedTables = statements.compactMap(\.droppedTable)
        appendOnlyTables = statements.compactMap(\.appendOnlyTable)
        functions = []
        let edits = statements.filter { $0.editedCheck != nil }
        self.fill = edits.isEmpty ? fill : { @Sendable (db) throws(GateKitError) in
            for edit in edits { try edit.checkReplaced(db) }
            try fill?(db)
        }
    }

    /// Runs the step on a connection inside the migrating transaction.
    func run(_ db: any DatabaseConnection) throws(GateKitError) {
        let sql = db.dialect == .sqlite ? sqlite : postgres
        // A step may be one backend's alone (`DDL.respellCheck`): an empty query is no statement.
        if !sql.isEmpty { try db.execute(sql) }
        try fill?(db)
    }

    /// Two parts run as one step (version 1 creates the store's own table and the EULA's);
    /// for SQL-only parts (a fill would be lost).
    public static func + (first: Migration, second: Migration) -> Migration {
        Migration(sqlite: first.sqlite + second.sqlite, postgres: first.postgres + second.postgres,
                  tables: first.tables + second.tables, droppedTables: first.droppedTables + second.droppedTables,
                  appendOnlyTables: first.appendOnlyTables + second.appendOnlyTables, functions: first.functions + second.functions)
    }

    private init(sqlite: String, postgres: String, tables: [String], droppedTables: [String], appendOnlyTables: [String], functions: [String]) {
        self.sqlite = sqlite
        self.postgres = postgres
        self.tables = tables
        self.droppedTables = droppedTables
        self.appendOnlyTables = appendOnlyTables
        self.functions = functions
        fill = nil
    }
}
