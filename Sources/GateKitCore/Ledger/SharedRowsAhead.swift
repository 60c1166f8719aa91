import GateKitStore
import GateKitSupport

/// The rows writers share — the app's bundle binding, certificate headers, product → group
/// rows — each committed ahead of the items' own transaction, so no writer waits on another's.
extension Ledger {
    /// On PostgreSQL, the rows every writer shares — the items' certificate headers (one per
    /// signing key) and product → group rows — are committed before the item's own transaction,
    /// each in its own: an uncommitted row in a unique index makes every other writer that
    /// inserts the same key wait for this transaction, however long its batch, whatever its
    /// subscription. Both tables are append-only facts of verified data, so a row committed
    /// ahead of an item that then fails is harmless.
    func storeSharedRowsAhead(_ items: [PendingItem]) throws(GateKitError) {
        guard store.backend == .postgresql else { return }
        var headers = Set<String>()
        var products = Set<SharedProduct>()
        for item in items {
            if let h = item.header { headers.insert(h) }
            for (v, signed) in item.transactions {
                if let h = signed?.header { headers.insert(h) }
                if let g = v.groupID { products.insert(SharedProduct(scope: item.scope, product: v.productID, group: g)) }
            }
            for (_, signed) in item.renewals { if let h = signed?.header { headers.insert(h) } }
        }
        let (knownHeaders, knownProducts) = committedShared.withLock { ($0.headers, $0.products) }
        headers = headers.filter { knownHeaders[$0] == nil }
        products.subtract(knownProducts)
        var headerIDs: [String: Int64] = [:]
        for header in headers.sorted() {
            headerIDs[header] = try store.write(.singleInsert) { (db) throws(GateKitError) -> Int64 in
                try db.statement("INSERT INTO ledger_jws_headers(header) VALUES (?1) ON CONFLICT DO NOTHING").bind(1, text: header).run()
                return try LedgerRows.headerID(db, header)
            }
        }
        for p in products.sorted(by: { ($0.product, $0.group) < ($1.product, $1.group) }) {
            try store.write(.singleInsert) { (db) throws(GateKitError) in
                try db.statement("INSERT INTO ledger_products(environment, test_signed, product_id, group_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
                    .bind(1, text: p.scope.environment).bind(2, p.scope.testFlag).bind(3, text: p.product).bind(4, text: p.group).run()
            }
        }
        committedShared.withLock {
            $0.headers.merge(headerIDs) { old, _ in old }
            $0.products.formUnion(products)
        }
    }

    /// A header's row: known once committed ahead (PostgreSQL), otherwise looked up or added.
    func headerID(_ db: any DatabaseConnection, _ header: String) throws(GateKitError) -> Int64 {
        if let known = committedShared.withLock({ $0.headers[header] }) { return known }
        return try LedgerRows.headerID(db, header)
    }

    struct SharedProduct: Hashable {
        let scope: LedgerScope
        let product: String
        let group: String
    }

    /// What `storeSharedRowsAhead` knows is committed (append-only: it stays so), with each
    /// header's row id.
    struct CommittedShared {
        var headers: [String: Int64] = [:]
        var products = Set<SharedProduct>()
    }

    /// One ledger per app: the first ingestion binds the store's ledger to its bundle id, and
    /// data verified for another app is refused (answers never mix two apps' customers). The
    /// binding is its own commit, ahead of the item's transaction (insert if absent, then read:
    /// atomic without a transaction), so no writer waits on another's uncommitted binding; it
    /// stays even if the item then fails (its data was verified for that bundle id).
    /// Google Play's package is bound the same way, under its own key: an app's App Store
    /// bundle id and Play package name often differ.
    func bindApp(_ appID: String, store: PurchaseStore) throws(GateKitError) {
        guard let key = store.appBinding else { return }
        if boundApp.withLock({ $0[store] }) == appID { return }
        let bound = try self.store.write(.singleInsert) { (db) throws(GateKitError) -> String? in
            try db.statement("INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO NOTHING")
                .bind(1, text: key).bind(2, text: appID).run()
            let read = try db.statement("SELECT value FROM gatekit_meta WHERE key = ?1")
            defer { read.reset() }
            read.bind(1, text: key)
            return try read.step() ? read.text(0) : nil
        }
        guard bound == appID else {
            throw .invalid("this store's ledger holds the data of the \(store.appNoun) \(Quoted.text(bound ?? "")); data for \(Quoted.text(appID)) is refused (one ledger per app: open a store with another app id)")
        }
        boundApp.withLock { $0[store] = appID }
    }
}
