import GateKitSupport

/// The bearer token of the App Store Server API: an ES256 JWT with `iss`, `iat`, `exp`,
/// `aud` "appstoreconnect-v1" and `bid`, `kid` in the header (Apple allows at most 60 minutes;
/// developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests).
/// A minted token is reused until it is near expiry, so a client signs about once per lifetime.
public final class APIToken: @unchecked Sendable {
    public let key: SigningKey
    /// Seconds a token lives (1 … 3600; Apple's own libraries use 300).
    public let lifetime: Int64
    /// The process's own (a forked child never waits on a lock its parent's thread held).
    private let cached = ProcessLocal<(token: String, expires: Int64)?> { nil }

    public static let maximumLifetime: Int64 = 3600
    public static let audience = "appstoreconnect-v1"

    public init(key: SigningKey, lifetime: Int64 = 300) throws(GateKitError) {
        guard key.issuerID != nil else { throw .invalid("issuer_id is required for App Store Server API tokens") }
        guard lifetime > 0, lifetime <= APIToken.maximumLifetime else {
            throw .invalid("the token lifetime must be 1 to \(APIToken.maximumLifetime) seconds (Apple refuses longer), not \(lifetime)")
        }
        self.key = key
        self.lifetime = lifetime
    }

    /// A token valid for at least a quarter of its lifetime (and 10 s) from `now` (Unix seconds).
    public func token(now: Int64 = Clock.nowMilliseconds() / 1000) throws(GateKitError) -> String {
        try cached.withLock { (cached) throws(GateKitError) -> String in
            let margin = max(10, lifetime / 4)
            if let held = cached, held.expires - now > margin, now >= held.expires - lifetime { return held.token }
            let claims = JSONValue.object([("iss", .string(key.issuerID ?? "")), ("iat", .number(now)), ("exp", .number(now + lifetime)),
                                           ("aud", .string(APIToken.audience)), ("bid", .string(key.bundleID))])
            let token = try SignedRequest.sign(claims: claims, key: key)
            cached = (token, now + lifetime)
            return token
        }
    }
}
