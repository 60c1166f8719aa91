import GateKitSupport

/// What the store's SQL needs from a connection, on SQLite and on PostgreSQL alike.
///
/// Statements are written once, in the SQL both engines accept: numbered parameters `?N`
/// (rewritten to `$N` for PostgreSQL), `ON CONFLICT … DO NOTHING` rather than `INSERT OR
/// IGNORE`, `IS NULL` or `=` rather than `IS` (which PostgreSQL lacks), `RETURNING id` rather
/// than the last row id. The few places that differ ask `dialect`.
public protocol DatabaseConnection: AnyObject {
    var dialect: SQLDialect { get }
    func execute(_ sql: String) throws(GateKitError)
    /// A cached prepared statement, reset and with bindings cleared.
    func statement(_ sql: String) throws(GateKitError) -> any DatabaseStatement
    /// Copy `copy` of the statement: on PostgreSQL each copy holds an answer of its own, so
    /// the same read for several items can be prefetched together; one statement on SQLite.
    func statement(_ sql: String, copy: Int) throws(GateKitError) -> any DatabaseStatement
}

public enum SQLDialect: Sendable { case sqlite, postgresql }

extension DatabaseConnection {
    /// The first column of the first row of a query as an integer (0 when there is no row).
    public func scalar(_ sql: String) throws(GateKitError) -> Int64 {
        let s = try statement(sql)
        defer { s.reset() }
        return try s.step() ? s.int64(0) : 0
    }

    /// `body` between `begin` and COMMIT; ROLLBACK when it throws.
    func transaction<T>(_ begin: String, _ body: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> T {
        try execute(begin)
        do throws(GateKitError) {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A prepared statement. Columns are 0-based and parameters 1-based, as in SQLite.
public protocol DatabaseStatement: AnyObject {
    func reset()
    @discardableResult func bind(_ index: Int32, _ value: Int64) -> Self
    /// nil binds NULL.
    @discardableResult func bind(_ index: Int32, _ value: Int64?) -> Self
    @discardableResult func bind(_ index: Int32, text: String?) -> Self
    @discardableResult func bind(_ index: Int32, blob: [UInt8]?) -> Self
    /// Advances: true with a row, false when done.
    func step() throws(GateKitError) -> Bool
    /// A hint that the statement, as bound now, is about to be stepped: in a PostgreSQL write
    /// transaction it is sent at once, so the reads an operation needs travel in one round
    /// trip; the next `step` with the same bindings takes its answer (other bindings run
    /// anew). Nothing on SQLite, where a read costs no round trip.
    func prefetch() throws(GateKitError)
    /// Runs a statement that returns no rows, then resets it.
    func run() throws(GateKitError)
    func int64(_ column: Int32) -> Int64
    func isNull(_ column: Int32) -> Bool
    func text(_ column: Int32) -> String?
    func blob(_ column: Int32) -> [UInt8]?
}

extension DatabaseStatement {
    /// The column as an integer; nil when NULL.
    public func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    /// Runs an `INSERT … RETURNING id` and answers the id.
    public func insertedID() throws(GateKitError) -> Int64 {
        defer { reset() }
        guard try step() else { throw GateKitError(.EINTERNAL, "an insert returned no id") }
        return int64(0)
    }
}
