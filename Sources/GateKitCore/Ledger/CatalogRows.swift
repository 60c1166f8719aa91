import GateKitStore
import GateKitSupport

/// The `ledger_catalogs` rows: the host's declared catalogs, read back whole (a store holds a
/// handful) and appended one per declaration; with them the plans' lookup keys, when a catalog
/// names entries by key.
enum CatalogRows {
    private static let everyRow = "SELECT effective_ms, declared_ms, id, document FROM ledger_catalogs ORDER BY effective_ms, id"

    /// Sends the read ahead (`DatabaseStatement.prefetch`).
    static func prefetch(_ db: any DatabaseConnection) throws(GateKitError) { try db.statement(everyRow).prefetch() }

    /// Every declared catalog. Rows are append-only, so each document is parsed once per handle
    /// (`parsed`, by row id) however often a write drops the handle's other caches.
    static func all(_ db: any DatabaseConnection, parsed: Locked<[Int64: ProductCatalog]>) throws(GateKitError) -> ProductCatalogs {
        let s = try db.statement(everyRow)
        defer { s.reset() }
        var entries: [ProductCatalogs.Entry] = []
        while try s.step() {
            let id = s.int64(2)
            let catalog: ProductCatalog
            if let kept = parsed.withLock({ $0[id] }) {
                catalog = kept
            } else {
                // Stored only after the same checks: a row that no longer parses is a damaged store.
                do throws(GateKitError) { catalog = try ProductCatalog(json: Array((s.text(3) ?? "").utf8)) } catch {
                    throw GateKitError(.ECORRUPT, "a stored product catalog does not parse: \(error.message)")
                }
                parsed.withLock { $0[id] = catalog }
            }
            entries.append(.init(effectiveMs: s.int64(0), declaredMs: s.int64(1), catalog: catalog))
        }
        return ProductCatalogs(entries: entries, lookupKeys: ProductCatalogs.declareLookupKeys(entries) ? try LookupKeyRows.all(db) : [])
    }

    static func append(_ db: any DatabaseConnection, _ catalog: ProductCatalog, effectiveMs: Int64, declaredMs: Int64) throws(GateKitError) {
        try db.statement("INSERT INTO ledger_catalogs(effective_ms, declared_ms, document) VALUES (?1, ?2, ?3)")
            .bind(1, effectiveMs).bind(2, declaredMs).bind(3, text: JSONWriter.serialize(catalog.json)).run()
    }
}
