import GateKitJWS

/// One signed version of a subscription's renewal info (per original transaction id).
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

    public init?(_ r: JWSRenewalInfo, identity: String) {
        let f = r.fields
        guard let original = f.originalTransactionId, let signed = f.signedDate else { return nil }
        originalTransactionID = original
        productID = f.productId
        autoRenewProductID = f.autoRenewProductId
        autoRenewStatus = f.autoRenewStatus
        isInBillingRetryPeriod = f.isInBillingRetryPeriod ?? false
        gracePeriodExpiresMs = f.gracePeriodExpiresDate
        expirationIntent = f.expirationIntent
        renewalMs = f.renewalDate
        signedMs = signed
        self.identity = identity
    }

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
