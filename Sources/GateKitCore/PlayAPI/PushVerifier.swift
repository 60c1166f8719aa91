import GateKitCrypto
import GateKitHTTPS
import GateKitSupport

/// Verifies Pub/Sub pushes of real-time developer notifications: the OIDC token Pub/Sub signs
/// (cloud.google.com/pubsub/docs/authenticate-push-subscriptions) against the issuer's keys,
/// its claims against what the host configured, then the envelope and the notification, which
/// must be for the host's package. Safe to share between threads.
public final class PushVerifier: @unchecked Sendable {
    public struct Options: Sendable {
        public var packageName: String
        public var audience: String
        public var serviceAccountEmail: String
        /// nil: Google's issuer (either spelling); else only this one (a test issuer).
        public var issuer: String?
        /// nil: Google's JWKS.
        public var keysURL: String?
        /// A fixed JWKS used instead of fetching.
        public var keysJSON: [UInt8]?
        public var caFile: String?
        public var timeoutMilliseconds = 10_000
        public var maximumTokenAgeSeconds = 3600
        public var clockSkewSeconds = 60
        public var keyRefreshIntervalMilliseconds = 30_000
        public var duplicateWindow = 10_000

        public init(packageName: String, audience: String, serviceAccountEmail: String) {
            self.packageName = packageName
            self.audience = audience
            self.serviceAccountEmail = serviceAccountEmail
        }
    }

    public static let googleKeysURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// Google's ID tokens carry either spelling (developers.google.com/identity/openid-connect).
    public static let googleIssuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]

    public let options: Options
    private let issuers: Set<String>
    private let keys: KeySetCache
    private let recent: RecentMessageIDs
    private let verifiedTokens = VerifiedTokens()
    /// Google's issuer by default, with keys from anywhere but Google's key URL: whoever holds
    /// those keys signs, so what they sign is test data unless the host named the issuer itself.
    private let keysAreNotGoogles: Bool

    public init(options: Options) throws(GateKitError) {
        for (name, value) in [("package_name", options.packageName), ("audience", options.audience),
                              ("service_account_email", options.serviceAccountEmail)]
            where value.isEmpty || value.utf8.count > 1024 {
            throw .invalid("\(name) must be 1 to 1024 bytes")
        }
        if let issuer = options.issuer, issuer.isEmpty || issuer.utf8.count > 1024 { throw .invalid("issuer must be 1 to 1024 bytes, or NULL") }
        guard (1...600_000).contains(options.timeoutMilliseconds) else { throw .invalid("timeout_ms must be 1 to 600000") }
        guard (1...86_400).contains(options.maximumTokenAgeSeconds) else { throw .invalid("max_token_age_s must be 1 to 86400") }
        guard (0...3600).contains(options.clockSkewSeconds) else { throw .invalid("clock_skew_s must be 0 to 3600") }
        guard (0...3_600_000).contains(options.keyRefreshIntervalMilliseconds) else { throw .invalid("key_refresh_interval_ms must be 0 to 3600000") }
        guard (0...1_000_000).contains(options.duplicateWindow) else { throw .invalid("duplicate_window must be 0 to 1000000") }
        if let fixed = options.keysJSON {
            guard options.keysURL == nil else { throw .invalid("keys_json and keys_url are both set: give one") }
            // The host's own key set: a mistake in it is a bad argument, not a refused push.
            let set: JSONWebKeySet
            do { set = try JSONWebKeySet(json: fixed) } catch { throw .invalid("keys_json is not a usable JWKS: \(error.message)") }
            keys = KeySetCache(.fixed(set), refreshIntervalMilliseconds: 0)
        } else {
            let url = try options.keysURL.map { (url) throws(GateKitError) in try HTTPSURL.checked(url, what: "keys_url") } ?? PushVerifier.googleKeysURL
            let authorities = try options.caFile.map { (path) throws(GateKitError) in
                try TrustedFile.read(path, limit: PlayDeveloperClient.maximumCAFileLength, what: "ca_file")
            }
            let transport = try HTTPSTransport(.init(certificateAuthorities: authorities, connectTimeoutMilliseconds: options.timeoutMilliseconds,
                                                     userAgent: "gatekit/\(GateKitVersion.text)", errors: .play))
            keys = KeySetCache(.fetched(url: url, transport: transport, timeoutMilliseconds: options.timeoutMilliseconds),
                               refreshIntervalMilliseconds: options.keyRefreshIntervalMilliseconds)
        }
        self.options = options
        issuers = options.issuer.map { [$0] } ?? PushVerifier.googleIssuers
        keysAreNotGoogles = options.issuer == nil && (options.keysJSON != nil || (options.keysURL.map { $0 != PushVerifier.googleKeysURL } ?? false))
        recent = RecentMessageIDs(capacity: options.duplicateWindow)
    }

    /// A verified push: the notification, whether its message id was seen before, and who
    /// signed it (`testSigned`: an issuer the host configured, never Google).
    package struct Verified: Sendable {
        package let notification: DeveloperNotification
        package let duplicate: Bool
        package let issuer: String
        package let testSigned: Bool

        /// include/gatekit/play.h's answer of play_verify_push, as UTF-8 JSON.
        package var json: [UInt8] { notification.json(duplicate: duplicate, issuer: issuer, testSigned: testSigned) }
    }

    /// The notification when `authorization` proves Google (or the configured issuer) pushed
    /// `body` for this app; throws EPUSH_* otherwise.
    package func verify(authorization: String, body: [UInt8]) throws(GateKitError) -> Verified {
        try verify(authorization: Array(authorization.utf8), body: body)
    }

    /// The same for the header's bytes as received: a token is never made a `String` (a 1 KB
    /// UTF-8 check and copy per push) since it is compared and decoded only as bytes.
    package func verify(authorization: [UInt8], body: [UInt8]) throws(GateKitError) -> Verified {
        let issuer = try verifyToken(authorization: authorization)
        let notification = try DeveloperNotification(body: body)
        guard notification.packageName == options.packageName else {
            throw GateKitError(.EPUSH_PACKAGE, "the notification is for \(Quoted.text(notification.packageName)), not \(Quoted.text(options.packageName))")
        }
        // A redelivery repeats the id and the notification; a push under a replayed token that
        // takes a future id with another body cannot make Google's own push a "duplicate".
        var message = Array(notification.messageID.utf8)  // the id, a 0 byte, the notification: one buffer
        message.reserveCapacity(message.count + 1 + notification.document.count)
        message.append(0)
        message.append(contentsOf: notification.document)
        guard let seen = RecentMessageIDs.Fingerprint(sha256: try Digest.hash(.sha256, message)) else { throw .internalError("a SHA-256 that is not 32 bytes") }
        return Verified(notification: notification, duplicate: recent.checkAndRecord(seen), issuer: issuer,
                        testSigned: !PushVerifier.googleIssuers.contains(issuer) || keysAreNotGoogles)
    }

    /// The token's issuer, once everything about it checks out.
    private func verifyToken(authorization: [UInt8]) throws(GateKitError) -> String {
        // The scheme is case-insensitive (RFC 9110 §11.1); one space, then the token.
        guard authorization.count > 7, zip(authorization, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }), authorization[6] == 0x20 else {
            throw GateKitError(.EPUSH_TOKEN, "the Authorization header is not \"Bearer <token>\" (is authentication enabled on the push subscription?)")
        }
        let text = Array(authorization[(authorization[7...].firstIndex { $0 != 0x20 } ?? authorization.count)...])
        let now = Clock.nowMilliseconds() / 1000
        if let known = verifiedTokens.lookup(text, now: now, skew: Int64(options.clockSkewSeconds)), keys.publishes(known.kid) {
            return known.issuer
        }
        let token = try CompactJWT(text)
        // The algorithm is fixed before any key is looked at: none, HS256 with the public key as
        // secret, and every other trick that bends verification to the token's word are refused.
        let header = token.header
        guard let alg = header.member("alg"), header.string(alg, is: "RS256") else {
            throw GateKitError(.EPUSH_ALGORITHM, "the token's alg is \(Quoted.text(header.string(member: "alg"))), not RS256")
        }
        guard let kid = header.string(member: "kid"), !kid.isEmpty else { throw GateKitError(.EPUSH_KEY, "the token's header has no kid") }
        let publicKey = try keys.key(for: kid)
        let verified = token.signingInput.withUnsafeBytes { publicKey.verify(signature: token.signature, message: $0) }
        guard verified else { throw GateKitError(.EPUSH_SIGNATURE, "the token's RS256 signature does not verify with the issuer's key \(Quoted.text(kid))") }
        let (issuer, expiresAt) = try checkClaims(token.claims, now: now)
        verifiedTokens.record(text, .init(issuer: issuer, expiresAt: expiresAt, kid: kid), now: now)
        return issuer
    }

    /// The issuer and expiry of claims that are what the options require at `now`.
    private func checkClaims(_ claims: JSONTape, now: Int64) throws(GateKitError) -> (String, Int64) {
        func fail(_ why: String) -> GateKitError { GateKitError(.EPUSH_CLAIMS, why) }
        guard let issuer = claims.string(member: "iss"), issuers.contains(issuer) else {
            let wanted = options.issuer.map { Quoted.text($0) } ?? "Google's (https://accounts.google.com)"
            throw fail("the token's issuer is \(Quoted.text(claims.string(member: "iss"))), not \(wanted)")
        }
        // Pub/Sub sets one audience string; an array is not what it sends.
        guard let audience = claims.member("aud"), claims.string(audience, is: options.audience) else {
            throw fail("the token's audience is \(Quoted.text(claims.string(member: "aud"))), not the push subscription's \(Quoted.text(options.audience))")
        }
        guard let email = claims.member("email"), claims.string(email, is: options.serviceAccountEmail) else {
            throw fail("the token's email is \(Quoted.text(claims.string(member: "email"))), not the push service account \(Quoted.text(options.serviceAccountEmail))")
        }
        guard claims.member("email_verified").flatMap({ claims.bool($0) }) == true else { throw fail("the token's email_verified is not true") }
        guard let exp = claims.member("exp").flatMap({ claims.int64($0) }), let iat = claims.member("iat").flatMap({ claims.int64($0) }) else {
            throw GateKitError(.EPUSH_EXPIRED, "the token has no numeric exp and iat")
        }
        let skew = Int64(options.clockSkewSeconds)
        // Compared on this host's side of the clock: a claim near Int64's ends cannot wrap.
        guard exp >= now - skew else { throw GateKitError(.EPUSH_EXPIRED, "the token expired at \(exp) (now \(now), skew \(skew) s)") }
        guard iat <= now + skew else { throw GateKitError(.EPUSH_EXPIRED, "the token was issued at \(iat), in the future (now \(now), skew \(skew) s)") }
        let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
        guard exp > iat, !overflow, lifetime <= Int64(options.maximumTokenAgeSeconds) else {
            throw GateKitError(.EPUSH_EXPIRED, "the token lives from \(iat) to \(exp); at most \(options.maximumTokenAgeSeconds) s are accepted")
        }
        return (issuer, exp)
    }
}
