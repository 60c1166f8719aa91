import GateKitSupport

/// Rows for one table, gathered during a write transaction and sent as multi-row INSERTs.
///
/// On PostgreSQL a statement's fixed cost — finding its plan, starting the executor, reading
/// the table's CHECK expressions, the end-of-statement foreign-key checks — outweighs storing
/// one row (the profile in BENCHMARKS.md, "Ledger ingestion at the speed of verification"):
/// one statement per `rowsPerStatement` rows pays it once for all of them. Both engines take
/// the same SQL, so SQLite runs the same statements.
package struct RowInserts {
    package enum Value: Sendable {
        case integer(Int64?)
        case text(String?)
        case blob([UInt8]?)
    }

    /// `into`: the table and its columns, e.g. "t(a, b)"; `values`: each column's expression,
    /// with `?` where its value goes ("?" alone for most); `then`: what follows the VALUES
    /// (an ON CONFLICT clause, or nothing).
    package init(into: String, values: [String], then suffix: String = "") {
        self.into = into
        self.expressions = values
        self.suffix = suffix
    }

    private let into: String
    private let expressions: [String]
    private let suffix: String
    private var rows: [[Value]] = []

    /// Rows per statement: a statement's parameters stay far below both engines' limits
    /// (SQLite 32,766; PostgreSQL 65,535) at any table's width.
    package static let rowsPerStatement = 64

    package var isEmpty: Bool { rows.isEmpty }

    package mutating func append(_ row: [Value]) throws(GateKitError) {
        guard row.count == expressions.count else {
            throw .internalError("a row of \(row.count) values for the \(expressions.count) columns of \(into)")
        }
        rows.append(row)
    }

    /// Sends the rows gathered so far, in the order they came.
    package mutating func flush(_ db: any DatabaseConnection) throws(GateKitError) {
        var start = 0
        while start < rows.count {
            let count = min(RowInserts.rowsPerStatement, rows.count - start)
            let s = try db.statement(sql(rows: count))
            var parameter: Int32 = 1
            for row in rows[start..<(start + count)] {
                for value in row {
                    s.bind(parameter, value: value)
                    parameter += 1
                }
            }
            try s.run()
            start += count
        }
        rows.removeAll(keepingCapacity: true)
    }

    /// "INSERT INTO t(a, b) VALUES (?1, ?2), (?3, ?4) …": one text per table and row count,
    /// made once per process, so each engine prepares it once per connection.
    private func sql(rows count: Int) -> String {
        let key = TextKey(into: into, expressions: expressions, suffix: suffix, rows: count)
        if let made = RowInserts.texts.withLock({ $0[key] }) { return made }
        let made = text(rows: count)
        RowInserts.texts.withLock { $0[key] = made }
        return made
    }

    /// Hashed by its table's text (sampled, `StatementText`) and row count alone: hashing each
    /// column's expression cost more than the lookup saves. Equality compares every part.
    private struct TextKey: Hashable {
        let into: String
        let expressions: [String]
        let suffix: String
        let rows: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(StatementText(sql: into))
            hasher.combine(rows)
        }
    }

    private static let texts = Locked([TextKey: String]())

    private func text(rows count: Int) -> String {
        var text = "INSERT INTO \(into) VALUES "
        var parameter = 1
        for row in 0..<count {
            text += row == 0 ? "(" : ", ("
            for (i, expression) in expressions.enumerated() {
                if i > 0 { text += ", " }
                text += expression.replacingFirstQuestionMark(with: "?\(parameter)")
                parameter += 1
            }
            text += ")"
        }
        return suffix.isEmpty ? text : text + " " + suffix
    }
}

private extension String {
    func replacingFirstQuestionMark(with replacement: String) -> String {
        guard let mark = firstIndex(of: "?") else { return self }
        return self[..<mark] + replacement + self[index(after: mark)...]
    }
}

extension DatabaseStatement {
    /// Binds a value of a row of inserts (or of any statement built the same way).
    @discardableResult package func bind(_ index: Int32, value: RowInserts.Value) -> Self {
        switch value {
        case let .integer(n): bind(index, n)
        case let .text(t): bind(index, text: t)
        case let .blob(b): bind(index, blob: b)
        }
    }
}
