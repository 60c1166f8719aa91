import GateKitSupport

/// What marks a file as a GateKit store, and what every migration records: the store's format.
/// "Schema" means one thing: the ordered migrations (`StoreSchema`, the Schema layer's list).
enum StoreFormat {
    /// `PRAGMA application_id`: "GTKT". Marks a file as a GateKit store.
    static let applicationID: Int64 = 0x4754_4B54
}

extension StoreFormat {
    /// Records which GateKit last migrated the store (inside the migration's transaction).
    static func recordWriter(_ db: any DatabaseConnection) throws(GateKitError) {
        let meta = try db.statement("""
            INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """)
        try meta.bind(1, text: "schema_written_by").bind(2, text: GateKitVersion.text).run()
    }
}
