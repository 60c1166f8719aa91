import GateKitSupport

/// A schema statement written once and rendered in SQLite's or PostgreSQL's SQL, for the
/// migrations after the released ones (`Migration.init(_:)`). The two dialects differ only where
/// the engines do: integer widths, binary type, identity keys, rowid-less tables, and how
/// append-only is enforced (RAISE triggers; a trigger function that also refuses TRUNCATE).
public enum DDL: Sendable {
    case table(String, [Column], constraints: [String] = [], withoutRowID: Bool = false)
    case index(String, on: String, [String], unique: Bool = false, where: String? = nil)
    case addColumn(String, Column)
    /// A derived table given up (a later statement of the same migration may create it anew).
    case dropTable(String)
    /// An index given up (a later statement may create it anew with other columns).
    case dropIndex(String)
    /// Refuses UPDATE and DELETE (and TRUNCATE on PostgreSQL) on the table.
    case appendOnly(String)
    /// A column's CHECK widened from `was` to the column's own (a value the rows may now hold).
    /// SQLite has no ALTER for it: the table's text in sqlite_schema is edited in place, as
    /// SQLite documents for changes that leave every stored row valid ("Making Other Kinds Of
    /// Table Schema Changes"); `Migration` then checks the edit and moves the schema version on.
    case replaceCheck(String, Column, was: String)
    /// A column's CHECK written again on SQLite alone, allowing exactly what `was` allowed: SQLite
    /// evaluates `x IN (a, b, c)` over three or more constants by filling a temporary b-tree on
    /// every run of a statement that writes the row (two or fewer are compared in turn), so a hot
    /// table's check is spelt with lists of two. PostgreSQL compares an array and keeps its own.
    case respellCheck(String, Column, was: String)

    public enum Dialect: Sendable { case sqlite, postgres }

    public func render(_ dialect: Dialect) -> String {
        switch self {
        case let .table(name, columns, constraints, withoutRowID):
            let body = (columns.map { "    " + $0.render(dialect) } + constraints.map { "    " + $0 }).joined(separator: ",\n")
            return "CREATE TABLE \(name)(\n\(body)\n)" + (withoutRowID && dialect == .sqlite ? " WITHOUT ROWID" : "") + ";\n"
        case let .index(name, table, columns, unique, condition):
            return "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table)(\(columns.joined(separator: ", ")))"
                + (condition.map { "\n    WHERE \($0)" } ?? "") + ";\n"
        case let .addColumn(table, column):
            return "ALTER TABLE \(table) ADD COLUMN \(column.render(dialect));\n"
        case let .dropTable(name):
            return "DROP TABLE \(name);\n"
        case let .dropIndex(name):
            return "DROP INDEX \(name);\n"
        case let .appendOnly(table):
            return dialect == .sqlite ? DDL.sqliteAppendOnly(table) : DDL.postgresAppendOnly(table)
        case let .respellCheck(table, column, was):
            return dialect == .sqlite ? DDL.sqliteCheckEdit(table, was: was, check: column.check ?? "") : ""
        case let .replaceCheck(table, column, was):
            let check = column.check ?? ""
            guard dialect == .sqlite else {
                let name = "\(table)_\(column.name)_check"  // PostgreSQL's name for a column's CHECK
                return "ALTER TABLE \(table) DROP CONSTRAINT \(name);\nALTER TABLE \(table) ADD CONSTRAINT \(name) CHECK (\(check));\n"
            }
            return DDL.sqliteCheckEdit(table, was: was, check: check)
        }
    }

    /// SQLite's table text edited in place, `CHECK (was)` becoming `CHECK (check)`.
    private static func sqliteCheckEdit(_ table: String, was: String, check: String) -> String {
        func literal(_ text: String) -> String { "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'" }
        return """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, \(literal("CHECK (\(was))")), \(literal("CHECK (\(check))")))
                WHERE type = 'table' AND name = \(literal(table));
            PRAGMA writable_schema = OFF;

            """
    }

    /// After a `replaceCheck` or `respellCheck` on SQLite: the table's text holds the new CHECK
    /// (else the store's table is not the one GateKit made, and the migration stops), and the
    /// schema version moves on, so every connection reads the table's definition again.
    func checkReplaced(_ db: any DatabaseConnection) throws(GateKitError) {
        guard db.dialect == .sqlite, let (table, column) = editedCheck else { return }
        let edited = try db.statement("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1 AND instr(sql, ?2) > 0")
        defer { edited.reset() }
        edited.bind(1, text: table).bind(2, text: "CHECK (\(column.check ?? ""))")
        guard try edited.step() else {
            throw GateKitError(.ECORRUPT, "the table \(table) is not as GateKit created it: its \(column.name) CHECK could not be rewritten")
        }
        let version = try db.statement("PRAGMA schema_version")
        defer { version.reset() }
        guard try version.step() else { throw GateKitError(.ECORRUPT, "SQLite gave no schema version") }
        try db.execute("PRAGMA schema_version = \(version.int64(0) &+ 1)")
    }

    /// The table and column whose CHECK this statement edits in SQLite's text.
    var editedCheck: (table: String, column: Column)? {
        switch self {
        case let .replaceCheck(table, column, _), let .respellCheck(table, column, _): return (table, column)
        default: return nil
        }
    }

    var createdTable: String? {
        if case let .table(name, _, _, _) = self { return name }
        return nil
    }

    var droppedTable: String? {
        if case let .dropTable(name) = self { return name }
        return nil
    }

    var appendOnlyTable: String? {
        if case let .appendOnly(table) = self { return table }
        return nil
    }

    /// SQLite's append-only triggers, as the released ledger migration writes them.
    public static func sqliteAppendOnly(_ table: String) -> String {
        """
        CREATE TRIGGER \(table)_no_update BEFORE UPDATE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) is append-only'); END;
        CREATE TRIGGER \(table)_no_delete BEFORE DELETE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) is append-only'); END;

        """
    }

    /// PostgreSQL's append-only triggers over `gatekit_append_only()` (the store's own function,
    /// created by migration 1), as every released migration writes them.
    public static func postgresAppendOnly(_ table: String) -> String {
        """
        CREATE TRIGGER \(table)_append_only BEFORE UPDATE OR DELETE ON \(table)
            FOR EACH ROW EXECUTE FUNCTION gatekit_append_only();
        CREATE TRIGGER \(table)_no_truncate BEFORE TRUNCATE ON \(table)
            FOR EACH STATEMENT EXECUTE FUNCTION gatekit_append_only();

        """
    }

    static func postgresAppendOnlyTriggers(of table: String) -> [String] {
        ["\(table)_append_only", "\(table)_no_truncate"]
    }
}

/// A column of a `DDL.table`. Booleans are integers checked to 0 or 1 on both backends.
public struct Column: Sendable {
    public enum Kind: Sendable {
        case text, integer, blob
        /// The table's row id: SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity column.
        case identity
    }

    public let name: String
    public let kind: Kind
    public let notNull: Bool
    public let primaryKey: Bool
    public let unique: Bool
    public let check: String?
    public let references: String?

    public init(_ name: String, _ kind: Kind, notNull: Bool = false, primaryKey: Bool = false, unique: Bool = false,
                check: String? = nil, references: String? = nil) {
        self.name = name
        self.kind = kind
        self.notNull = notNull
        self.primaryKey = primaryKey
        self.unique = unique
        self.check = check
        self.references = references
    }

    func render(_ dialect: DDL.Dialect) -> String {
        var parts = [name]
        switch (kind, dialect) {
        case (.identity, .sqlite): return "\(name) INTEGER PRIMARY KEY"
        case (.identity, .postgres): return "\(name) BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        case (.text, _): parts.append("TEXT")
        case (.integer, .sqlite): parts.append("INTEGER")
        case (.integer, .postgres): parts.append("BIGINT")
        case (.blob, .sqlite): parts.append("BLOB")
        case (.blob, .postgres): parts.append("BYTEA")
        }
        if primaryKey { parts.append("PRIMARY KEY") }
        // SQLite lets a non-integer primary key hold NULL unless told otherwise.
        if notNull && !(primaryKey && dialect == .postgres) { parts.append("NOT NULL") }
        if unique { parts.append("UNIQUE") }
        if let check { parts.append("CHECK (\(check))") }
        if let references { parts.append("REFERENCES \(references)") }
        return parts.joined(separator: " ")
    }
}
