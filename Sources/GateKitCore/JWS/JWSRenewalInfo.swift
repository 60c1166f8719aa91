/// A decoded, verified `JWSRenewalInfoDecodedPayload`: the renewal state of one
/// auto-renewable subscription. Dates are Unix milliseconds; `json` keeps every member.
public struct JWSRenewalInfo: Sendable {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?

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

    public init(json: JSONValue, path: String = "renewalInfo") throws(GateKitError) {
        let f = try PayloadFields(json, path: path)
        self.json = json
        expirationIntent = try f.int("expirationIntent")
        originalTransactionId = try f.string("originalTransactionId")
        autoRenewProductId = try f.string("autoRenewProductId")
        productId = try f.string("productId")
        autoRenewStatus = try f.int("autoRenewStatus")
        isInBillingRetryPeriod = try f.bool("isInBillingRetryPeriod")
        priceIncreaseStatus = try f.int("priceIncreaseStatus")
        gracePeriodExpiresDate = try f.int("gracePeriodExpiresDate")
        offerType = try f.int("offerType")
        offerIdentifier = try f.string("offerIdentifier")
        offerDiscountType = try f.string("offerDiscountType")
        offerPeriod = try f.string("offerPeriod")
        signedDate = try f.int("signedDate")
        environment = try f.string("environment")
        recentSubscriptionStartDate = try f.int("recentSubscriptionStartDate")
        renewalDate = try f.int("renewalDate")
        renewalPrice = try f.int("renewalPrice")
        currency = try f.string("currency")
        eligibleWinBackOfferIds = try f.strings("eligibleWinBackOfferIds")
        appAccountToken = try f.string("appAccountToken")
        appTransactionId = try f.string("appTransactionId")
        renewalBillingPlanType = try f.string("renewalBillingPlanType")
        advancedCommerceInfo = try f.object("advancedCommerceInfo")
        commitmentInfo = try f.object("commitmentInfo")
    }
}
