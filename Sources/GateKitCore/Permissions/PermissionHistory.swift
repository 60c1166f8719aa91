import GateKitStore
import GateKitSupport

/// One appended change. For the user, system and reset sources `from`/`to` are stored
/// states; for the provider source they are the provider's answers (0 = not determined).
public struct PermissionChangeRecord: Equatable, Sendable {
    public var id: Int64
    public var category: Int32
    public var from: Int32
    public var to: Int32
    public var source: PermissionChangeSource
    public var atMilliseconds: Int64

    func json(name: String?) -> JSONValue {
        func stateName(_ raw: Int32) -> JSONValue {
            PermissionState(rawValue: raw).map { .string($0.name.description) } ?? .null
        }
        return .object([
            ("id", .number(id)),
            ("category", .number(Int64(category))),
            ("name", name.map { .string($0) } ?? .null),
            ("from", .number(Int64(from))),
            ("from_state", stateName(from)),
            ("to", .number(Int64(to))),
            ("to_state", stateName(to)),
            ("source", .string(source.name.description)),
            ("at", .string(Timestamp.rfc3339Milliseconds(atMilliseconds))),
            ("at_ms", .number(atMilliseconds)),
        ])
    }
}

/// The append-only history table (triggers refuse UPDATE and DELETE).
enum PermissionHistory {
    static func append(_ db: any DatabaseConnection, category: Int32, from: Int32, to: Int32, source: PermissionChangeSource, at: Int64) throws(GateKitError) {
        let s = try db.statement("INSERT INTO perm_history(category, from_state, to_state, source, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)")
        try s.bind(1, Int64(category)).bind(2, Int64(from)).bind(3, Int64(to)).bind(4, source.rawValue).bind(5, at).run()
    }

    /// Oldest first; `category` nil for every category.
    static func read(_ db: any DatabaseConnection, category: Int32?) throws(GateKitError) -> [PermissionChangeRecord] {
        let s = try db.statement(category == nil
            ? "SELECT id, category, from_state, to_state, source, at_ms FROM perm_history ORDER BY id"
            : "SELECT id, category, from_state, to_state, source, at_ms FROM perm_history WHERE category = ?1 ORDER BY id")
        defer { s.reset() }
        if let category { s.bind(1, Int64(category)) }
        var out: [PermissionChangeRecord] = []
        while try s.step() {
            guard let c = Int32(exactly: s.int64(1)), let from = Int32(exactly: s.int64(2)),
                  let to = Int32(exactly: s.int64(3)), let source = PermissionChangeSource(rawValue: s.int64(4)) else { continue }
            out.append(PermissionChangeRecord(id: s.int64(0), category: c, from: from, to: to, source: source, atMilliseconds: s.int64(5)))
        }
        return out
    }
}
