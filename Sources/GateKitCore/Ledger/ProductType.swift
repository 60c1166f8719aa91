/// What kind of product a purchase is for — one-time (non-consumable), consumable,
/// non-renewing or auto-renewable: it decides how the purchase entitles. Stores map their own
/// names to it (Apple's: `Ledger/Adapters/Apple/AppleProductType.swift`).
public enum ProductType: Int64, Sendable {
    case unknown = 0
    case autoRenewable = 1
    case nonConsumable = 2
    case consumable = 3
    case nonRenewing = 4
}
