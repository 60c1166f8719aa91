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
        package let expirationIntent: Int64?
        package let originalTransactionId: String?
        package let autoRenewProductId: String?
        package let productId: String?
        /// 0: off, 1: on.
        package let autoRenewStatus: Int64?
        package let isInBillingRetryPeriod: Bool?
        /// 0: not responded, 1: consented.
        package let priceIncreaseStatus: Int64?
        package let gracePeriodExpiresDate: Int64?
        package let offerType: Int64?
        public let offerIdentifier: String?
        package let offerDiscountType: String?
        package let offerPeriod: String?
        package let signedDate: Int64?
        public let environment: String?
        package let recentSubscriptionStartDate: Int64?
        package let renewalDate: Int64?
        package let renewalPrice: Int64?
        public let currency: String?
        package let eligibleWinBackOfferIds: [String]?
        package let appAccountToken: String?
        package let appTransactionId: String?
        package let renewalBillingPlanType: String?
        package let advancedCommerceInfo: JSONValue?
        package let commitmentInfo: JSONValue?
    }

    public init(json: JSONValue, path: String = "renewalInfo") throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: path)
    }
}
