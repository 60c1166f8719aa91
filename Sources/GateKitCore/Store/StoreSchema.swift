/// The store's schema: its migrations in order, each owned by a domain. Migration N takes a
/// store from version N-1 to N; a store's version is how many it has run. The library's
/// list is `StoreSchema.gatekit` (the Schema layer, above every domain that owns tables).
public struct StoreSchema: Sendable {
    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    public var currentVersion: Int64 { Int64(migrations.count) }

    /// Every table a current store has (what the PostgreSQL integrity check looks for).
    var tables: [String] {
        migrations.reduce(into: []) { tables, step in
            tables.removeAll { step.droppedTables.contains($0) }
            tables += step.tables
        }
    }

    /// The triggers GateKit creates on PostgreSQL: any other trigger in the namespace is refused.
    var postgresTriggers: Set<String> {
        Set(migrations.flatMap(\.appendOnlyTables).flatMap { DDL.postgresAppendOnlyTriggers(of: $0) })
    }

    /// The PostgreSQL functions GateKit creates: any other is refused.
    var postgresFunctions: Set<String> { Set(migrations.flatMap(\.functions)) }
}
