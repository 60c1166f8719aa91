/// Every catalog the host declared, each with the instant it took effect: an answer at an
/// instant uses the catalog in effect then (the last to take effect by it; of two taking
/// effect at once, the one declared last), so as-of answers keep the catalog of their time.
public struct ProductCatalogs: Sendable {
    public struct Entry: Sendable {
        public let effectiveMs: Int64
        /// When it was declared (the store's row order breaks ties).
        public let declaredMs: Int64
        public let catalog: ProductCatalog
    }

    /// In the order they take effect.
    public let entries: [Entry]

    public static let none = ProductCatalogs(entries: [])

    public func effective(at ms: Int64) -> Entry? {
        entries.last { $0.effectiveMs <= ms }
    }

    public func catalog(at ms: Int64) -> ProductCatalog {
        effective(at: ms)?.catalog ?? .empty
    }
}
