/// One signed version of one purchase, as the ledger keeps it — the store-neutral model its
/// rules decide on (a store's data is mapped to it by that store's adapter: Apple's in
/// `Ledger/Adapters/Apple/`): what decides entitlement, and which version it is. A store signs (or
/// answers) a purchase again when it is refunded, revoked, reinstated, upgraded away or
/// extended; the newest `vouchedMs` is the truth.
public struct TransactionVersion: Sendable, Equatable {
    /// This purchase (one period of a subscription).
    public var transactionID: String
    /// The store's identity of the subscription (or of the purchase, for other types): what
    /// ties its periods and its renewal intent together.
    public var purchaseID: String
    /// The app's own account identifier the store carried. Lowercased; nil when the transaction carries none, or one that is not a UUID.
    public var appAccountToken: String?
    public var productID: String
    public var groupID: String?
    public var productType: ProductType
    public var familyShared: Bool
    public var purchaseMs: Int64?
    public var originalPurchaseMs: Int64?
    public var expiresMs: Int64?
    public var revocationMs: Int64?
    public var revocationReason: RevocationReason?
    /// Superseded by another product of its group (an upgrade or crossgrade): entitles to nothing.
    public var isUpgraded: Bool
    /// The offer it was bought under (an introductory one includes free trials).
    public var offer: Offer?
    /// When the store signed or answered this version (a receipt's purchases: the receipt's
    /// creation date).
    public var vouchedMs: Int64
    /// The replay identity (hex) of the signed data this version came in: breaks ties between
    /// versions signed in the same millisecond, so the winner never depends on arrival order.
    public var identity: String
    /// What the customer paid, as signed (the metrics' revenue): kept beside the version, not
    /// read by entitlement answers.
    public var sale: Sale = .none
    /// The store that sold it.
    /// The store that sold it (the first store's when the adapter does not say: its rows carry no code).
    public var store = PurchaseStore(stored: nil)
    /// The subscription (original transaction id) this one replaced, when the store makes a
    /// new one for a plan change, re-signup or top-up (Play's `linkedPurchaseToken`): the old
    /// one is superseded while this version is the newest known (`CustomerRecord.current`).
    /// Set only when the purchase took effect: a pending replacement supersedes nothing.
    public var replaces: String?
    /// The store awaits payment (Play's pending purchase): never entitles.
    public var isPending = false
    /// Whether the purchase was acknowledged to the store (Play refunds one not acknowledged
    /// within three days); nil where the store has no such step.
    public var acknowledged: Bool?
    /// The store's own name for the purchase's state, kept as it said it
    /// ("SUBSCRIPTION_STATE_IN_GRACE_PERIOD"); nil when the store names none (Apple).
    public var storeState: String?

    /// A transaction's price and the facts the metrics split by. Receipt purchases carry no
    /// price, currency or storefront.
    public struct Sale: Sendable, Equatable {
        /// Milliunits of `currency` (9990 is 9.99).
        public var price: Int64?
        /// ISO 4217.
        public var currency: String?
        /// The customer's country, ISO 3166-1 alpha-3.
        public var storefront: String?
        /// A free trial period. Nil when the data cannot say (rows from before migration 11
        /// whose text is a receipt).
        public var trial: Bool?
        /// How much a revocation took back.
        public var refund: RefundKind?
        /// The refunded share of a prorated refund, in thousandths of a percent (50000 is 50 %).
        public var revocationPercentage: Int64?

        public static let none = Sale()

        public init(price: Int64? = nil, currency: String? = nil, storefront: String? = nil, trial: Bool? = nil,
                    refund: RefundKind? = nil, revocationPercentage: Int64? = nil) {
            self.price = price
            self.currency = currency
            self.storefront = storefront
            self.trial = trial
            self.refund = refund
            self.revocationPercentage = revocationPercentage
        }
    }

    public init(transactionID: String, purchaseID: String, appAccountToken: String?, productID: String,
                groupID: String?, productType: ProductType, familyShared: Bool, purchaseMs: Int64?,
                originalPurchaseMs: Int64?, expiresMs: Int64?, revocationMs: Int64?, revocationReason: RevocationReason?,
                isUpgraded: Bool, offer: Offer?, vouchedMs: Int64, identity: String, sale: Sale = .none) {
        self.transactionID = transactionID
        self.purchaseID = purchaseID
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
        self.offer = offer
        self.vouchedMs = vouchedMs
        self.identity = identity
        self.sale = sale
    }

    /// What versions of one purchase share: Apple's transaction ids are unique in their
    /// environment; Play's order ids are not per token (a deferred replacement's new token
    /// carries the old order on its old item), so a Play purchase is its token's order.
    var versionKey: String {
        store.rules.keysTransactionsByPurchase ? purchaseID + "\u{0}" + transactionID : transactionID
    }

    /// Newest signed wins; in the same millisecond the larger identity, so any arrival order
    /// picks the same version.
    public func isNewer(than other: TransactionVersion) -> Bool {
        vouchedMs != other.vouchedMs ? vouchedMs > other.vouchedMs : identity > other.identity
    }
}
