import GateKitJWS

/// A verified renewal info as the ledger's `RenewalVersion`.
extension RenewalVersion {
    /// Nil when it lacks the subscription it is about or its signing instant.
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
}
