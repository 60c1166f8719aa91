import CPostgres
import Glibc
import GateKitSupport

/// A statement prepared on the server once per session (named, so later runs skip parsing
/// and planning); behind a pooler, which may run each transaction on another session, an
/// unnamed one, parsed with each run. Parameters cross as text, bytes as binary; results come
/// back as text.
final class PostgresStatement: DatabaseStatement {
    private unowned let connection: PostgresConnection
    /// libpq's functions, copied: `deinit` may run while the connection itself is going away.
    private let pq: gk_pq
    private let sql: String
    private let name: String
    /// Each parameter's type (int8, text or bytea: known from the binding call even for a
    /// NULL) and value; nil where nothing was bound.
    private var values: [(oid: Oid, value: Value?)?]
    /// The session the statement was prepared in (0: not yet).
    private var preparedIn: UInt64 = 0
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rows: Int32 = 0

    /// The bindings a prefetched answer was asked with, until the `step` that takes it.
    private var prefetched: [(oid: Oid, value: Value?)?]?

    private enum Value: Equatable {
        case integer(Int64), text(String), bytes([UInt8])
    }
    private static let int8: Oid = 20, text: Oid = 25, bytea: Oid = 17

    init(connection: PostgresConnection, sql: String, parameters: Int, name: String) {
        self.connection = connection
        pq = connection.pq
        self.sql = sql
        self.name = name
        values = Array(repeating: nil, count: parameters)
    }

    deinit { if let result { pq.PQclear(result) } }

    /// A prefetched answer is kept for the `step` it was asked for.
    func reset() {
        if prefetched == nil {
            if let result { pq.PQclear(result) }
            result = nil
            rows = 0
        }
        row = -1
        for i in values.indices { values[i] = nil }
    }

    func prefetch() throws(GateKitError) {
        guard connection.pipelining, prefetched == nil else { return }
        if let result { pq.PQclear(result) }
        result = nil
        rows = 0
        try send(reading: true)
        prefetched = values
        connection.prefetchedBy(self)
    }

    /// The transaction ended: an answer prefetched and never stepped is dropped.
    func dropPrefetched() {
        guard prefetched != nil else { return }
        prefetched = nil
        reset()
    }

    private static func same(_ a: [(oid: Oid, value: Value?)?], _ b: [(oid: Oid, value: Value?)?]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in x?.oid == y?.oid && x?.value == y?.value }
    }

    /// Out-of-range indexes are ignored, as SQLite does with a parameter a statement lacks.
    private func set(_ index: Int32, _ oid: Oid, _ value: Value?) -> Self {
        let i = Int(index) - 1
        if i >= 0 && i < values.count { values[i] = (oid, value) }
        return self
    }

    @discardableResult func bind(_ index: Int32, _ value: Int64) -> Self { set(index, Self.int8, .integer(value)) }
    @discardableResult func bind(_ index: Int32, _ value: Int64?) -> Self { set(index, Self.int8, value.map { .integer($0) }) }
    @discardableResult func bind(_ index: Int32, text: String?) -> Self { set(index, Self.text, text.map { .text($0) }) }
    @discardableResult func bind(_ index: Int32, blob: [UInt8]?) -> Self { set(index, Self.bytea, blob.map { .bytes($0) }) }

    func step() throws(GateKitError) -> Bool {
        if let asked = prefetched {
            prefetched = nil
            if result == nil { try connection.readAnswers() }
            if !PostgresStatement.same(asked, values) {
                // Bound otherwise since: that answer is not this one.
                if let result { pq.PQclear(result) }
                result = nil
            }
        }
        if result == nil { try execute() }
        guard row < rows else { return false }
        row += 1
        return row < rows
    }

    /// In a write transaction's pipeline, sent without waiting for its answer.
    func run() throws(GateKitError) {
        defer { reset() }
        if connection.pipelining {
            try send(reading: false)
        } else {
            while try step() {}
        }
    }

    /// The answer `PostgresConnection.readAnswers` read for this statement.
    func received(_ answer: OpaquePointer?) {
        if let result { pq.PQclear(result) }
        result = answer
        rows = answer.map { pq.PQntuples($0) } ?? 0
        row = -1
    }

    /// Its preparation failed, or a failure before it aborted it: prepared again next time.
    func forgetPrepared() { preparedIn = 0 }

    private var context: String { "'\(sql.prefix(60))'" }

    private func execute() throws(GateKitError) {
        if connection.pipelining {
            try send(reading: true)
            return try connection.readAnswers()
        }
        let conn = try connection.live()
        let executed: OpaquePointer?
        if connection.pooled {
            let types = values.map { $0?.oid ?? 0 }
            executed = withParameters { count, pointers, lengths, formats in
                pq.PQexecParams(conn, sql, count, types, pointers, lengths, formats, 0)
            }
        } else {
            if preparedIn != connection.session {
                // Types from the first bindings; a parameter never bound is left to the server.
                let types = values.map { $0?.oid ?? 0 }
                let prepared = pq.PQprepare(conn, name, sql, Int32(values.count), types)
                defer { pq.PQclear(prepared) }
                try connection.check(prepared, "preparing \(context)")
                preparedIn = connection.session
            }
            executed = withParameters { count, pointers, lengths, formats in
                pq.PQexecPrepared(conn, name, count, pointers, lengths, formats, 0)
            }
        }
        do {
            try connection.check(executed, context)
        } catch {
            pq.PQclear(executed)
            throw error
        }
        received(executed)
    }

    /// Sends the statement (prepared first if this session has not) in the pipeline; its rows,
    /// when `reading`, go to `received`.
    private func send(reading: Bool) throws(GateKitError) {
        let conn = try connection.live()
        if connection.pooled {
            let types = values.map { $0?.oid ?? 0 }
            let ok: Int32 = withParameters { count, pointers, lengths, formats in
                pq.PQsendQueryParams(conn, sql, count, types, pointers, lengths, formats, 0)
            }
            return try connection.sentQuery(ok, context, reader: reading ? self : nil)
        }
        if preparedIn != connection.session {
            let types = values.map { $0?.oid ?? 0 }
            preparedIn = connection.session
            try connection.sentPrepare(pq.PQsendPrepare(conn, name, sql, Int32(values.count), types), self, context)
        }
        let ok: Int32 = withParameters { count, pointers, lengths, formats in
            pq.PQsendQueryPrepared(conn, name, count, pointers, lengths, formats, 0)
        }
        try connection.sentQuery(ok, context, reader: reading ? self : nil)
    }

    /// The bound values as libpq takes them (one buffer; text and integers NUL-terminated),
    /// for the duration of `body`.
    private func withParameters<T>(_ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> T) -> T {
        var storage: [UInt8] = []
        var spans: [(offset: Int, length: Int)?] = []
        var formats: [Int32] = []
        for parameter in values {
            let start = storage.count
            switch parameter?.value {
            case nil:
                spans.append(nil)
                formats.append(0)
                continue
            case .integer(let n):
                storage.append(contentsOf: String(n).utf8)
                formats.append(0)
            case .text(let t):
                storage.append(contentsOf: t.utf8)
                formats.append(0)
            case .bytes(let b):
                storage.append(contentsOf: b)
                formats.append(1)
            }
            spans.append((start, storage.count - start))
            storage.append(0)
        }
        return storage.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0) }
            let pointers: [UnsafePointer<CChar>?] = spans.map { span in
                span.flatMap { s in base.map { ($0 + s.offset).assumingMemoryBound(to: CChar.self) } }
            }
            return body(Int32(values.count), pointers, spans.map { Int32($0?.length ?? 0) }, formats)
        }
    }

    private func value(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let result, row >= 0, row < rows, column >= 0, column < pq.PQnfields(result),
              pq.PQgetisnull(result, row, column) == 0,
              let p = pq.PQgetvalue(result, row, column) else { return nil }
        let n = Int(pq.PQgetlength(result, row, column))
        return UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: n)
    }

    func isNull(_ column: Int32) -> Bool { value(column) == nil }

    /// 0 for NULL or a value that is not an integer, as SQLite answers for NULL; a boolean
    /// (`t`/`f`, what a comparison yields here) is 1 or 0, as in SQLite.
    func int64(_ column: Int32) -> Int64 {
        guard let v = value(column), !v.isEmpty else { return 0 }
        if v.count == 1, v[0] == UInt8(ascii: "t") { return 1 }
        let negative = v[0] == UInt8(ascii: "-")
        var n: Int64 = 0
        for b in v.dropFirst(negative ? 1 : 0) {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return 0 }
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.subtractingReportingOverflow(Int64(b - UInt8(ascii: "0")))
            guard !o1, !o2 else { return 0 }
            n = sum  // accumulated negatively so Int64.min parses
        }
        if negative { return n }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(n)
        return overflow ? 0 : positive
    }

    func text(_ column: Int32) -> String? {
        value(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// bytea in text form is `\x` and hex digits.
    func blob(_ column: Int32) -> [UInt8]? {
        guard let v = value(column) else { return nil }
        guard v.count >= 2, v[0] == UInt8(ascii: "\\"), v[1] == UInt8(ascii: "x") else { return Array(v) }
        return Hex.decode(String(decoding: v.dropFirst(2), as: UTF8.self)) ?? []
    }
}
