import GateKitJWS

/// A verified renewal info as the ledger's `RenewalVersion`.
extension RenewalVersion {
    /// Nil when it lacks the subscription it is about or its signing instant.
    public init?(_ r: JWSRenewalInfo, identity: String) {
        let f = r.fields
        guard let original = f.originalTransactionId, let signed = f.signedDate else { return nil }
        purchaseID = original
        productID = f.productId
        autoRenewProductID = f.autoRenewProductId
        willAutoRenew = f.autoRenewStatus.map { $0 == 1 }
        isInBillingRetryPeriod = f.isInBillingRetryPeriod ?? false
        gracePeriodExpiresMs = f.gracePeriodExpiresDate
        expirationCause = f.expirationIntent.map(AppleCodes.expirationCause)
        renewalMs = f.renewalDate
        pausedUntilMs = nil  // Apple has no pause
        vouchedMs = signed
        self.identity = identity
    }
}
