/// One signed version of a subscription's renewal intent (per subscription: its original
/// transaction id), in the ledger's model; Apple's renewal info maps to it in `Ledger/Apple/`.
public struct RenewalVersion: Sendable, Equatable {
    public var originalTransactionID: String
    public var productID: String?
    public var autoRenewProductID: String?
    /// 0 off, 1 on.
    public var autoRenewStatus: Int64?
    public var isInBillingRetryPeriod: Bool
    public var gracePeriodExpiresMs: Int64?
    public var expirationIntent: Int64?
    public var renewalMs: Int64?
    public var signedMs: Int64
    public var identity: String

    public init(originalTransactionID: String, productID: String?, autoRenewProductID: String?, autoRenewStatus: Int64?,
                isInBillingRetryPeriod: Bool, gracePeriodExpiresMs: Int64?, expirationIntent: Int64?, renewalMs: Int64?,
                signedMs: Int64, identity: String) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresMs = gracePeriodExpiresMs
        self.expirationIntent = expirationIntent
        self.renewalMs = renewalMs
        self.signedMs = signedMs
        self.identity = identity
    }

    public func isNewer(than other: RenewalVersion) -> Bool {
        signedMs != other.signedMs ? signedMs > other.signedMs : identity > other.identity
    }
}
