import GateKitSupport

/// Every catalog the host declared, each with the instant it took effect: an answer at an
/// instant uses the catalog in effect then (the last to take effect by it; of two taking
/// effect at once, the one declared last), so as-of answers keep the catalog of their time —
/// and the plans' lookup keys known then (`LookupKey`).
public struct ProductCatalogs: Sendable {
    public struct Entry: Sendable {
        public let effectiveMs: Int64
        /// When it was declared (the store's row order breaks ties).
        public let declaredMs: Int64
        public let catalog: ProductCatalog
    }

    /// In the order they take effect.
    public let entries: [Entry]
    /// Every plan's lookup keys, oldest first; read only when a catalog declares entries by key.
    public let lookupKeys: [LookupKey]
    /// A catalog as purchases read it with the keys known by an instant, made once per catalog
    /// and number of keys known (a question asks the same few again and again).
    private let named = Locked<[NamedKey: ProductCatalog]>([:])

    private struct NamedKey: Hashable {
        let entry: Int
        let keysKnown: Int
    }

    public init(entries: [Entry], lookupKeys: [LookupKey] = []) {
        self.entries = entries
        self.lookupKeys = lookupKeys
    }

    public static let none = ProductCatalogs(entries: [])

    /// Whether a catalog declares entries by lookup key (then the keys are read with them).
    static func declareLookupKeys(_ entries: [Entry]) -> Bool {
        entries.contains { !$0.catalog.lookupKeys.isEmpty }
    }

    public func effective(at ms: Int64) -> Entry? {
        entries.last { $0.effectiveMs <= ms }
    }

    public func catalog(at ms: Int64) -> ProductCatalog {
        guard let index = entries.lastIndex(where: { $0.effectiveMs <= ms }) else { return .empty }
        let declared = entries[index].catalog
        guard !declared.lookupKeys.isEmpty, !lookupKeys.isEmpty else { return declared }
        let key = NamedKey(entry: index, keysKnown: LookupKey.count(lookupKeys, seenBy: ms))
        if let kept = named.withLock({ $0[key] }) { return kept }
        let catalog = declared.naming(lookupKeys.prefix(key.keysKnown))
        named.withLock { $0[key] = catalog }
        return catalog
    }
}
