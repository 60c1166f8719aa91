import GateKitSupport
import GateKitTrust

/// A decoded, verified `JWSTransactionDecodedPayload`: one purchase, renewal, refund or
/// revocation. Dates are Unix milliseconds; enumerations keep Apple's raw value (a string or
/// an integer, as Apple types it) so a value Apple adds later still decodes. `json` keeps every member, known or not.
public struct JWSTransaction: SignedPayload {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?
    /// The members GateKit reads, declared once (unknown members stay in `json`).
    public let fields: Fields

    public struct Fields: Decodable, Sendable {
        public let originalTransactionId: String?
        public let transactionId: String?
        public let webOrderLineItemId: String?
        public let bundleId: String?
        public let productId: String?
        public let subscriptionGroupIdentifier: String?
        public let purchaseDate: Int64?
        public let originalPurchaseDate: Int64?
        public let expiresDate: Int64?
        public let quantity: Int64?
        /// "Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription".
        public let type: String?
        public let appAccountToken: String?
        /// "FAMILY_SHARED" or "PURCHASED".
        public let inAppOwnershipType: String?
        public let signedDate: Int64?
        /// 0: other, 1: an issue in the app.
        public let revocationReason: Int64?
        public let revocationDate: Int64?
        public let revocationType: String?
        public let revocationPercentage: Int64?
        public let isUpgraded: Bool?
        /// 1: introductory, 2: promotional, 3: offer code, 4: win-back.
        public let offerType: Int64?
        public let offerIdentifier: String?
        public let offerDiscountType: String?
        public let offerPeriod: String?
        public let environment: String?
        public let storefront: String?
        public let storefrontId: String?
        /// "PURCHASE" or "RENEWAL".
        public let transactionReason: String?
        /// Milliunits of the currency.
        public let price: Int64?
        public let currency: String?
        public let appTransactionId: String?
        public let billingPlanType: String?
        public let advancedCommerceInfo: JSONValue?
        public let commitmentInfo: JSONValue?
    }

    public init(json: JSONValue, path: String = "transaction") throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: path)
    }

    /// A transaction verified before and kept as its decoded JSON (`json` written out): the
    /// host's own record, so it is decoded, not verified again; `provenance` stays nil.
    public init(verifiedJSON bytes: [UInt8]) throws(GateKitError) {
        let json = try JSONParser.parse(bytes)
        guard case .object = json else { throw GateKitError(.EJWS_PAYLOAD_FIELD, "the transaction is not a JSON object") }
        try self.init(json: json)
    }

    /// Whether this transaction grants its product at `at` (Unix milliseconds), as a receipt
    /// purchase would: never when revoked (a refund or family-sharing removal voids it from
    /// the start) or upgraded away; not before its purchase date; subscriptions only before
    /// `expiresDate`; non-consumables from then on; consumables never.
    public func isEntitled(at: Int64) -> Bool {
        // Apple's transactions always name the product and the purchase date: one without
        // either proves no purchase. A consumable is used up, as the ledger counts it.
        guard fields.productId != nil, let purchaseDate = fields.purchaseDate, at >= purchaseDate else { return false }
        if fields.type == "Consumable" { return false }
        if fields.revocationDate != nil || fields.revocationReason != nil { return false }
        if fields.isUpgraded == true { return false }
        if let expiresDate = fields.expiresDate { return at < expiresDate }
        return true
    }

    /// `isEntitled(at:)` for one product: nil means any product, else it must be this one.
    public func isEntitled(to productID: String?, at: Int64) -> Bool {
        if let productID, fields.productId != productID { return false }
        return isEntitled(at: at)
    }
}
