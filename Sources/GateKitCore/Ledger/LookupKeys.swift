import GateKitStore
import GateKitSupport

/// A seller's own key for a plan, which the store lets it move to another plan (Stripe's price
/// `lookup_key`, moved by `transfer_lookup_key` when a new price replaces an old one). A catalog
/// entry under `"lookupKeys"` names every plan the ledger has seen bear its key: a customer who
/// bought the old price keeps what it granted after the key moved on. The ledger keeps, for each
/// plan and key, the first instant an answer showed them together, so an answer as of an earlier
/// instant reads only the keys known then.
public struct LookupKey: Sendable, Equatable {
    /// The purchase's product id, "product:plan" (only a plan can bear a key).
    public let productID: String
    public let key: String
    /// When an answer first showed the plan bearing the key (Unix ms).
    public let seenMs: Int64

    public init(productID: String, key: String, seenMs: Int64) {
        self.productID = productID
        self.key = key
        self.seenMs = seenMs
    }

    /// How many of `keys` (sorted by `seenMs`) were seen by `ms`.
    static func count(_ keys: [LookupKey], seenBy ms: Int64) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            if keys[middle].seenMs <= ms { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The `ledger_lookup_keys` rows: one per plan and key, with the earliest instant an answer
/// showed them (an answer told late, out of order, moves that instant back).
enum LookupKeyRows {
    /// Every plan's keys, oldest first. A store holds as many rows as a seller has priced plans.
    static func all(_ db: any DatabaseConnection) throws(GateKitError) -> [LookupKey] {
        let s = try db.statement("SELECT product_id, lookup_key, seen_ms FROM ledger_lookup_keys ORDER BY seen_ms, product_id, lookup_key")
        defer { s.reset() }
        var keys: [LookupKey] = []
        while try s.step() {
            keys.append(LookupKey(productID: s.text(0) ?? "", key: s.text(1) ?? "", seenMs: s.int64(2)))
        }
        return keys
    }

    static func record(_ db: any DatabaseConnection, _ keys: [LookupKey]) throws(GateKitError) {
        guard !keys.isEmpty else { return }
        let s = try db.statement("""
            INSERT INTO ledger_lookup_keys(product_id, lookup_key, seen_ms) VALUES (?1, ?2, ?3)
            ON CONFLICT(product_id, lookup_key) DO UPDATE SET seen_ms = excluded.seen_ms WHERE excluded.seen_ms < ledger_lookup_keys.seen_ms
            """)
        for k in keys { try s.bind(1, text: k.productID).bind(2, text: k.key).bind(3, k.seenMs).run() }
    }
}
