/// One signed version of a subscription's renewal intent (per subscription: its original
/// transaction id), in the ledger's model: whether and to what it renews, and the billing
/// state after its period ends. Apple's renewal info maps to it in `Ledger/Adapters/Apple/`.
public struct RenewalVersion: Sendable, Equatable {
    public var purchaseID: String
    public var productID: String?
    /// The product the next period will be (a downgrade waits for the renewal).
    public var autoRenewProductID: String?
    /// Whether the subscription renews at the end of its period; nil when the store did not say.
    public var willAutoRenew: Bool?
    /// The store is retrying a failed payment (Apple's billing retry, Play's account hold and
    /// grace period): the period is over, access only within `gracePeriodExpiresMs`.
    public var isInBillingRetryPeriod: Bool
    public var gracePeriodExpiresMs: Int64?
    /// Why it stops (or stopped) renewing.
    public var expirationCause: ExpirationCause?
    public var renewalMs: Int64?
    /// The customer paused the subscription from the end of its period until this instant,
    /// when the store resumes billing; no access meanwhile.
    public var pausedUntilMs: Int64?
    public var vouchedMs: Int64
    public var identity: String

    public init(purchaseID: String, productID: String?, autoRenewProductID: String?, willAutoRenew: Bool?,
                isInBillingRetryPeriod: Bool, gracePeriodExpiresMs: Int64?, expirationCause: ExpirationCause?, renewalMs: Int64?,
                pausedUntilMs: Int64? = nil, vouchedMs: Int64, identity: String) {
        self.purchaseID = purchaseID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.willAutoRenew = willAutoRenew
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresMs = gracePeriodExpiresMs
        self.expirationCause = expirationCause
        self.renewalMs = renewalMs
        self.pausedUntilMs = pausedUntilMs
        self.vouchedMs = vouchedMs
        self.identity = identity
    }

    public func isNewer(than other: RenewalVersion) -> Bool {
        vouchedMs != other.vouchedMs ? vouchedMs > other.vouchedMs : identity > other.identity
    }
}
