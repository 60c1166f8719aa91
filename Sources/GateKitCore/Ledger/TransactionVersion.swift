/// One signed version of one purchase, as the ledger keeps it — the store-neutral model its
/// rules decide on (a store's data is mapped to it by that store's adapter: Apple's in
/// `Ledger/Apple/`): what decides entitlement, and which version it is (Apple re-signs a transaction when it is refunded, revoked,
/// reinstated, upgraded away or extended; the newest `signedMs` is the truth).
public struct TransactionVersion: Sendable, Equatable {
    public var transactionID: String
    public var originalTransactionID: String
    /// Lowercased; nil when the transaction carries none, or one that is not a UUID.
    public var appAccountToken: String?
    public var productID: String
    public var groupID: String?
    public var productType: ProductType
    public var familyShared: Bool
    public var purchaseMs: Int64?
    public var originalPurchaseMs: Int64?
    public var expiresMs: Int64?
    public var revocationMs: Int64?
    public var revocationReason: Int64?
    public var isUpgraded: Bool
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int64?
    /// When Apple signed this version (a receipt's purchases: the receipt's creation date).
    public var signedMs: Int64
    /// The replay identity (hex) of the signed data this version came in: breaks ties between
    /// versions signed in the same millisecond, so the winner never depends on arrival order.
    public var identity: String
    /// What the customer paid, as signed (the metrics' revenue): kept beside the version, not
    /// read by entitlement answers.
    public var sale: Sale = .none

    public static let introductoryOffer: Int64 = 1

    /// A transaction's price and the facts the metrics split by. Receipt purchases carry no
    /// price, currency or storefront.
    public struct Sale: Sendable, Equatable {
        /// Milliunits of `currency` (Apple's `price`: 9990 is 9.99).
        public var price: Int64?
        /// ISO 4217.
        public var currency: String?
        /// ISO 3166-1 alpha-3 (Apple's `storefront`).
        public var storefront: String?
        /// A free trial: `offerDiscountType` FREE_TRIAL, an introductory offer at price 0, or a
        /// receipt's `is_trial_period`. Nil when the data cannot say (rows from before
        /// migration 11 whose text is a receipt).
        public var trial: Bool?
        /// "REFUND_FULL", "REFUND_PRORATED" or "FAMILY_REVOKE" (Apple's `revocationType`).
        public var revocationType: String?
        /// The refunded share of a prorated refund, in thousandths of a percent (Apple's
        /// `revocationPercentage`: 50000 is 50 %).
        public var revocationPercentage: Int64?

        public static let none = Sale()

        public init(price: Int64? = nil, currency: String? = nil, storefront: String? = nil, trial: Bool? = nil,
                    revocationType: String? = nil, revocationPercentage: Int64? = nil) {
            self.price = price
            self.currency = currency
            self.storefront = storefront
            self.trial = trial
            self.revocationType = revocationType
            self.revocationPercentage = revocationPercentage
        }
    }

    public init(transactionID: String, originalTransactionID: String, appAccountToken: String?, productID: String,
                groupID: String?, productType: ProductType, familyShared: Bool, purchaseMs: Int64?,
                originalPurchaseMs: Int64?, expiresMs: Int64?, revocationMs: Int64?, revocationReason: Int64?,
                isUpgraded: Bool, offerType: Int64?, signedMs: Int64, identity: String, sale: Sale = .none) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.appAccountToken = appAccountToken
        self.productID = productID
        self.groupID = groupID
        self.productType = productType
        self.familyShared = familyShared
        self.purchaseMs = purchaseMs
        self.originalPurchaseMs = originalPurchaseMs
        self.expiresMs = expiresMs
        self.revocationMs = revocationMs
        self.revocationReason = revocationReason
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.signedMs = signedMs
        self.identity = identity
        self.sale = sale
    }

    /// Newest signed wins; in the same millisecond the larger identity, so any arrival order
    /// picks the same version.
    public func isNewer(than other: TransactionVersion) -> Bool {
        signedMs != other.signedMs ? signedMs > other.signedMs : identity > other.identity
    }
}
