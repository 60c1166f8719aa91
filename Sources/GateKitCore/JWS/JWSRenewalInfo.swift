import GateKitSupport
import GateKitTrust

/// A decoded, verified `JWSRenewalInfoDecodedPayload`: the renewal state of one
/// auto-renewable subscription. Dates are Unix milliseconds; `json` keeps every member.
public struct JWSRenewalInfo: SignedPayload {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?
    /// The members GateKit reads, declared once (unknown members stay in `json`).
    public let fields: Fields

    public struct Fields: Decodable, Sendable {
        /// 1: cancelled, 2: billing error, 3: declined a price increase, 4: unavailable, 5: other.
        public let expirationIntent: Int64?
        public let originalTransactionId: String?
        public let autoRenewProductId: String?
        public let productId: String?
        /// 0: off, 1: on.
        public let autoRenewStatus: Int64?
        public let isInBillingRetryPeriod: Bool?
        /// 0: not responded, 1: consented.
        public let priceIncreaseStatus: Int64?
        public let gracePeriodExpiresDate: Int64?
        public let offerType: Int64?
        public let offerIdentifier: String?
        public let offerDiscountType: String?
        public let offerPeriod: String?
        public let signedDate: Int64?
        public let environment: String?
        public let recentSubscriptionStartDate: Int64?
        public let renewalDate: Int64?
        public let renewalPrice: Int64?
        public let currency: String?
        public let eligibleWinBackOfferIds: [String]?
        public let appAccountToken: String?
        public let appTransactionId: String?
        public let renewalBillingPlanType: String?
        public let advancedCommerceInfo: JSONValue?
        public let commitmentInfo: JSONValue?
    }

    public init(json: JSONValue, path: String = "renewalInfo") throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: path)
    }
}
