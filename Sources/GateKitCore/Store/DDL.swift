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
