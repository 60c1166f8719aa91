/// An auto-renewable subscription's status: 1-5 are Apple's numbers (the App Store Server
/// API's `status` in "Get All Subscription Statuses"); `paused` and `pending` are Google Play's.
/// The C header's GATEKIT_SUBSCRIPTION_*.
public enum SubscriptionStatus: Int64, Sendable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
    case paused = 6
    /// The store awaits the first payment (Play's pending purchase): no access yet.
    case pending = 7

    public var name: String {
        switch self {
        case .active: "active"
        case .expired: "expired"
        case .billingRetry: "billing-retry"
        case .billingGracePeriod: "billing-grace-period"
        case .revoked: "revoked"
        case .paused: "paused"
        case .pending: "pending"
        }
    }
}
