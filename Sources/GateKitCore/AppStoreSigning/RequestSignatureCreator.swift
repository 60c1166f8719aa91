import GateKitSupport

/// What Apple's JWS signature creators make: an ES256 JWS whose claims are the feature's own
/// plus `bid`, `iss`, `aud`, `iat` (seconds) and a fresh `nonce` — promotional offers V2,
/// introductory-offer eligibility, Advanced Commerce in-app requests
/// (developer.apple.com/documentation/storekit/generating-jws-to-sign-app-store-requests).
public enum RequestSignatureCreator {
    public enum Audience: String, Sendable {
        case promotionalOffer = "promotional-offer"
        case introductoryOfferEligibility = "introductory-offer-eligibility"
        case advancedCommerce = "advanced-commerce-api"
    }

    static func sign(_ claims: [(String, JSONValue)], audience: Audience, key: SigningKey, now: Int64) throws(GateKitError) -> String {
        guard let issuer = key.issuerID else { throw .invalid("issuer_id is required for signed requests (App Store Connect's Keys page)") }
        let all = claims + [("bid", .string(key.bundleID)), ("iss", .string(issuer)), ("aud", .string(audience.rawValue)),
                            ("iat", .number(now)), ("nonce", .string(try SignedRequest.randomUUID()))]
        return try SignedRequest.sign(claims: .object(all), key: key)
    }

    static func validate(_ value: String, _ name: String) throws(GateKitError) {
        guard !value.isEmpty, value.utf8.count <= 1024 else { throw .invalid("\(name) must be 1 to 1024 bytes") }
    }

    /// Promotional offer V2: `productId`, `offerIdentifier`, and `transactionId` when given.
    public static func promotionalOfferV2(productID: String, offerIdentifier: String, transactionID: String?, key: SigningKey,
                                          now: Int64 = Clock.nowMilliseconds() / 1000) throws(GateKitError) -> String {
        try validate(productID, "product_id")
        try validate(offerIdentifier, "offer_identifier")
        if let transactionID { try validate(transactionID, "transaction_id") }
        var claims: [(String, JSONValue)] = [("productId", .string(productID)), ("offerIdentifier", .string(offerIdentifier))]
        if let transactionID { claims.append(("transactionId", .string(transactionID))) }
        return try sign(claims, audience: .promotionalOffer, key: key, now: now)
    }

    /// Introductory-offer eligibility: `productId`, `allowIntroductoryOffer`, `transactionId`.
    public static func introductoryOfferEligibility(productID: String, allowIntroductoryOffer: Bool, transactionID: String, key: SigningKey,
                                                    now: Int64 = Clock.nowMilliseconds() / 1000) throws(GateKitError) -> String {
        try validate(productID, "product_id")
        try validate(transactionID, "transaction_id")
        return try sign([("productId", .string(productID)), ("allowIntroductoryOffer", .bool(allowIntroductoryOffer)),
                         ("transactionId", .string(transactionID))], audience: .introductoryOfferEligibility, key: key, now: now)
    }

    /// Advanced Commerce in-app request: `request` is the base64 of the request's JSON text,
    /// exactly as given (Apple's library sends `json.dumps` of its model; GateKit only checks
    /// that the text is one JSON object).
    public static func advancedCommerceInApp(requestJSON: [UInt8], key: SigningKey,
                                             now: Int64 = Clock.nowMilliseconds() / 1000) throws(GateKitError) -> String {
        let request: JSONValue
        do {
            request = try JSONParser.parse(requestJSON)
        } catch {
            throw .invalid("the Advanced Commerce request is not JSON: \(error.message)")
        }
        guard case .object = request else { throw .invalid("the Advanced Commerce request must be a JSON object") }
        let encoded = Base64.encode(requestJSON)
        return try sign([("request", .string(encoded))], audience: .advancedCommerce, key: key, now: now)
    }
}
