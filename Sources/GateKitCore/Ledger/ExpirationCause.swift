/// Why a subscription stops renewing, as a store signed it in the renewal intent. The raw
/// values are the ledger's stored codes (`ledger_renewals.expiration_intent`), equal to Apple's
/// `expirationIntent` numbers for the rows already held.
public enum ExpirationCause: Int64, Sendable, CaseIterable, StoredCode {
    /// The customer turned renewal off (their choice).
    case customerCancelled = 1
    /// Billing failed (not their choice).
    case billingError = 2
    /// The customer declined a price increase (their choice).
    case declinedPriceIncrease = 3
    /// The product was not available to renew.
    case productUnavailable = 4
    /// Any other cause, or one the ledger has no name for.
    case other = 5


    /// The customer chose to leave (metrics' voluntary churn).
    public var isCustomersChoice: Bool { self == .customerCancelled || self == .declinedPriceIncrease }
}
