/// Apple's product types (a StoreKit 2 transaction's `type`, a receipt purchase's 1707) as the
/// ledger's `ProductType`.
extension ProductType {
    /// From a JWS transaction's `type` ("Auto-Renewable Subscription", …).
    public init(jwsType: String?) {
        switch jwsType {
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Consumable": self = .nonConsumable
        case "Consumable": self = .consumable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: self = .unknown
        }
    }

    /// From a receipt purchase: its product type (1707: 0 non-consumable, 1 consumable,
    /// 2 non-renewing, 3 auto-renewable) when present, else an auto-renewable subscription
    /// when it has an expiry and a web order line item id (only subscriptions carry both).
    public init(receiptType: Int64?, hasExpiry: Bool, hasWebOrderLineItem: Bool) {
        switch receiptType {
        case 0: self = .nonConsumable
        case 1: self = .consumable
        case 2: self = .nonRenewing
        case 3: self = .autoRenewable
        default: self = hasExpiry && hasWebOrderLineItem ? .autoRenewable : .unknown
        }
    }

    /// Apple's name for it (the JWS `type`), "Unknown" when it was not said.
    public var name: String {
        switch self {
        case .unknown: "Unknown"
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonConsumable: "Non-Consumable"
        case .consumable: "Consumable"
        case .nonRenewing: "Non-Renewing Subscription"
        }
    }
}
