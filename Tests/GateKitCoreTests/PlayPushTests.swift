import Testing
@testable import GateKitCrypto
@testable import GateKitHTTPS
@testable import GateKitPlayAPI
@testable import GateKitPlayData
import GateKitSupport
import GateKitTestData

/// RTDN push verification without a network: tokens made here with keys made here, against a
/// verifier given their key set (keys_json). What a hostile push may try, and what each check
/// answers. The fetched key set (Cache-Control, rotation) is python/tests/test_play.py's.
@Suite struct PlayPushTests {
    static let package = "com.example.app"
    static let audience = "https://rtdn.example.com/play"
    static let email = "push@example.iam.gserviceaccount.com"
    static let issuer = "https://oidc.test.gatekit.invalid"

    /// One key, its set, and a verifier that trusts it.
    struct Issuer {
        let key: RSAKey
        let kid = "kid-1"
        var keySet: String { JSONWriter.serialize(.object([("keys", .array([(try? JSONWebKeySet.jwk(kid: kid, key: key)) ?? .null]))])) }

        init() throws { key = try RSAKey.generate() }

        func verifier(duplicateWindow: Int = 100, issuer: String? = PlayPushTests.issuer) throws -> PushVerifier {
            var options = PushVerifier.Options(packageName: PlayPushTests.package, audience: PlayPushTests.audience, serviceAccountEmail: PlayPushTests.email)
            options.issuer = issuer
            options.keysJSON = Array(keySet.utf8)
            options.duplicateWindow = duplicateWindow
            return try PushVerifier(options: options)
        }

        func token(header: [(String, JSONValue)]? = nil, _ changes: [(String, JSONValue?)] = [], signer: RSAKey? = nil) throws -> String {
            let now = Clock.nowMilliseconds() / 1000
            var claims: [(String, JSONValue)] = [("aud", .string(PlayPushTests.audience)), ("email", .string(PlayPushTests.email)),
                                                 ("email_verified", .bool(true)), ("exp", .number(now + 3600)), ("iat", .number(now)),
                                                 ("iss", .string(PlayPushTests.issuer))]
            for (name, value) in changes {
                claims.removeAll { $0.0 == name }
                if let value { claims.append((name, value)) }
            }
            let head: JSONValue = .object(header ?? [("alg", .string("RS256")), ("kid", .string(kid)), ("typ", .string("JWT"))])
            return "Bearer " + (try CompactJWT.signed(header: head, claims: .object(claims), key: signer ?? key))
        }
    }

    static func body(_ notification: String, messageID: String = "m1") -> [UInt8] {
        let data = Base64.encode(Array(notification.utf8))
        return Array(#"{"message":{"data":"\#(data)","messageId":"\#(messageID)","publishTime":"2026-01-01T00:00:00Z"},"subscription":"projects/p/subscriptions/s"}"#.utf8)
    }

    static let purchased = #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1767225600000","subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"tok"}}"#

    func code(_ body: () throws(GateKitError) -> Void) -> GateKitError.Code? {
        do throws(GateKitError) { try body(); return nil } catch { return error.code }
    }

    @Test func aPushFromTheTrustedIssuerIsVerified() throws {
        let issuer = try Issuer()
        let verified = try issuer.verifier().verify(authorization: try issuer.token(), body: Self.body(Self.purchased))
        #expect(verified.notification.kind == .subscription && verified.notification.typeName == "SUBSCRIPTION_PURCHASED")
        #expect(verified.notification.eventTimeMillis == 1_767_225_600_000 && !verified.duplicate)
        #expect(verified.testSigned, "an issuer the host named is never Google")
        let json = try JSONParser.parse(verified.json)
        #expect(json["developerNotification"]?["packageName"]?.stringValue == Self.package)
        #expect(json["gatekit"]?["testSigned"]?.boolValue == true && json["version"]?.int64Value == 1)
    }

    @Test func eachHostileTokenFailsTheCheckItBreaks() throws {
        let issuer = try Issuer()
        let verifier = try issuer.verifier()
        let other = try RSAKey.generate()
        let now = Clock.nowMilliseconds() / 1000
        let cases: [(String, String, GateKitError.Code)] = [
            ("no bearer", "Basic abc", .EPUSH_TOKEN),
            ("bearer without its space", "Bearer\t" + (try issuer.token()).dropFirst(7), .EPUSH_TOKEN),
            ("two parts", "Bearer a.b", .EPUSH_TOKEN),
            ("alg none", try issuer.token(header: [("alg", .string("none")), ("kid", .string(issuer.kid))]), .EPUSH_ALGORITHM),
            ("alg HS256", try issuer.token(header: [("alg", .string("HS256")), ("kid", .string(issuer.kid))]), .EPUSH_ALGORITHM),
            ("alg lower case", try issuer.token(header: [("alg", .string("rs256")), ("kid", .string(issuer.kid))]), .EPUSH_ALGORITHM),
            ("no kid", try issuer.token(header: [("alg", .string("RS256"))]), .EPUSH_KEY),
            ("unknown kid", try issuer.token(header: [("alg", .string("RS256")), ("kid", .string("kid-2"))]), .EPUSH_KEY),
            ("another key", try issuer.token(signer: other), .EPUSH_SIGNATURE),
            ("wrong audience", try issuer.token([("aud", .string("https://evil.example.com"))]), .EPUSH_CLAIMS),
            ("audience list", try issuer.token([("aud", .array([.string(Self.audience)]))]), .EPUSH_CLAIMS),
            ("wrong email", try issuer.token([("email", .string("other@example.com"))]), .EPUSH_CLAIMS),
            ("unverified email", try issuer.token([("email_verified", .bool(false))]), .EPUSH_CLAIMS),
            ("no email_verified", try issuer.token([("email_verified", nil)]), .EPUSH_CLAIMS),
            ("wrong issuer", try issuer.token([("iss", .string("https://accounts.google.com"))]), .EPUSH_CLAIMS),
            ("expired", try issuer.token([("iat", .number(now - 7200)), ("exp", .number(now - 3600))]), .EPUSH_EXPIRED),
            ("from the future", try issuer.token([("iat", .number(now + 600)), ("exp", .number(now + 1200))]), .EPUSH_EXPIRED),
            ("a day long", try issuer.token([("exp", .number(now + 86_400))]), .EPUSH_EXPIRED),
            ("no exp", try issuer.token([("exp", nil)]), .EPUSH_EXPIRED),
            ("a lifetime past Int64", try issuer.token([("iat", .number(Int64.min)), ("exp", .number(Int64.max - 100))]), .EPUSH_EXPIRED),
        ]
        for (name, token, wanted) in cases {
            #expect(code { () throws(GateKitError) in _ = try verifier.verify(authorization: token, body: Self.body(Self.purchased)) } == wanted, "\(name)")
        }
        // Within the skew either way is still good.
        let edge = try issuer.token([("iat", .number(now + 30)), ("exp", .number(now + 3630))])
        #expect(code { () throws(GateKitError) in _ = try verifier.verify(authorization: edge, body: Self.body(Self.purchased)) } == nil)
    }

    @Test func googlesIssuerIsTheDefaultAndTestDataIsNotIt() throws {
        let issuer = try Issuer()
        let google = try issuer.verifier(issuer: nil)
        let test = try issuer.token()
        #expect(code { () throws(GateKitError) in _ = try google.verify(authorization: test, body: Self.body(Self.purchased)) } == .EPUSH_CLAIMS)
        let spelled = try issuer.token([("iss", .string("accounts.google.com"))])
        // These keys are the test's, not Google's key URL's: what they verify is test data unless
        // the host vouches for them by naming Google's issuer itself (issue 60, item 15).
        let verified = try google.verify(authorization: spelled, body: Self.body(Self.purchased))
        #expect(verified.testSigned, "keys from anywhere but Google's under the default issuer: test data")
        let vouched = try issuer.verifier(issuer: "accounts.google.com")
        #expect(try !vouched.verify(authorization: spelled, body: Self.body(Self.purchased)).testSigned, "Google's issuer (either spelling), named by the host")
        #expect(throws: GateKitError.self) { _ = try TestPushIssuer(issuer: "https://accounts.google.com") }
    }

    @Test func envelopesAndNotificationsAreReadStrictly() throws {
        let issuer = try Issuer()
        let verifier = try issuer.verifier()
        let token = try issuer.token()
        func verify(_ body: [UInt8]) -> GateKitError.Code? {
            code { () throws(GateKitError) in _ = try verifier.verify(authorization: token, body: body) }
        }
        #expect(verify(Array("[]".utf8)) == .EPUSH_MESSAGE)
        #expect(verify(Array(#"{"message":{"data":"@@","messageId":"1"},"subscription":"s"}"#.utf8)) == .EPUSH_MESSAGE)
        #expect(verify(Array(#"{"message":{"data":"e30=","messageId":"1"}}"#.utf8)) == .EPUSH_MESSAGE, "no subscription")
        #expect(verify(Self.body(#"{"version":"1.0","packageName":"com.other.app","eventTimeMillis":"1","testNotification":{}}"#)) == .EPUSH_PACKAGE)
        #expect(verify(Self.body(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"soon","testNotification":{}}"#)) == .EPUSH_MESSAGE)
        // Two kinds, each well formed on its own: which one counts is not guessed.
        #expect(verify(Self.body(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1","testNotification":{},"subscriptionNotification":{"notificationType":2,"purchaseToken":"t"}}"#)) == .EPUSH_MESSAGE)
        #expect(verify(Self.body(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1","voidedPurchaseNotification":{"purchaseToken":"t","productType":"1","refundType":1}}"#)) == .EPUSH_MESSAGE)
        #expect(verify([UInt8](repeating: 0x20, count: DeveloperNotification.maximumBodyLength + 1)) == .ETOOLARGE)
        let unknown = try verifier.verify(authorization: token, body: Self.body(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":2,"futureNotification":{"a":1}}"#, messageID: "u"))
        #expect(unknown.notification.kind == .unknown && unknown.notification.typeName == nil && unknown.notification.eventTimeMillis == 2)
        #expect(unknown.notification.payload == .object([("futureNotification", .object([("a", .number("1"))]))]))
        let newer = try verifier.verify(authorization: token, body: Self.body(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"3","subscriptionNotification":{"notificationType":21,"purchaseToken":"t"}}"#, messageID: "n"))
        #expect(newer.notification.kind == .subscription && newer.notification.typeName == nil, "21 is not a type Google documents: not named")
    }

    @Test func aRedeliveryIsADuplicateWithinTheWindow() throws {
        let issuer = try Issuer()
        let verifier = try issuer.verifier(duplicateWindow: 2)
        let token = try issuer.token()
        let seen = try ["a", "a", "b", "c", "a", "c"].map { try verifier.verify(authorization: token, body: Self.body(Self.purchased, messageID: $0)).duplicate }
        #expect(seen == [false, true, false, false, false, true])
        let off = try issuer.verifier(duplicateWindow: 0)
        #expect(try (0..<2).map { _ in try off.verify(authorization: token, body: Self.body(Self.purchased)).duplicate } == [false, false])
    }

    @Test func aVerifiedTokenIsKnownByAllItsBytesAndUntilItExpires() throws {
        let cache = VerifiedTokens()
        let token = Array(("eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJhIn0." + String(repeating: "s", count: 342)).utf8)
        cache.record(token, .init(issuer: "i", expiresAt: 1000, kid: "k"), now: 500)
        #expect(cache.lookup(token, now: 900, skew: 0)?.kid == "k")
        #expect(cache.lookup(token, now: 1050, skew: 60) != nil, "within the skew")
        // The same signature under other claims (what a forger can copy) is another token.
        let forged = Array(("eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJiIn0." + String(repeating: "s", count: 342)).utf8)
        #expect(cache.lookup(forged, now: 900, skew: 0) == nil)
        #expect(cache.lookup(token, now: 1061, skew: 60) == nil, "expired: dropped")
        #expect(cache.lookup(token, now: 900, skew: 0) == nil, "and not kept after")
    }

    @Test func keySetsHoldOnlyUsableRSASigningKeys() throws {
        let key = try RSAKey.generate()
        let jwk = try JSONWebKeySet.jwk(kid: "a", key: key)
        let good = JSONWriter.serialize(.object([("keys", .array([jwk, .object([("kty", .string("EC")), ("kid", .string("e"))]),
                                                                 .object([("kty", .string("RSA")), ("use", .string("enc")), ("kid", .string("x"))])]))]))
        #expect(try JSONWebKeySet(json: Array(good.utf8)).keys.keys.sorted() == ["a"])
        func refused(_ text: String) -> Bool {
            do { _ = try JSONWebKeySet(json: Array(text.utf8)); return false } catch { return error.code == .EPUSH_KEYSET }
        }
        #expect(refused(#"{"keys":[]}"#))
        #expect(refused(#"{"keys":{}}"#))
        #expect(refused(JSONWriter.serialize(.object([("keys", .array([jwk, jwk]))]))), "a kid twice")
        #expect(refused(#"{"keys":[{"kty":"RSA","kid":"s","n":"AQAB","e":"AQAB"}]}"#), "a 17-bit modulus")
        let small = try RSAKey.generate(bits: 1024)
        #expect(refused(JSONWriter.serialize(.object([("keys", .array([try JSONWebKeySet.jwk(kid: "s", key: small)]))]))), "1024 bits")
        let (n, _) = try #require(key.publicComponents())
        #expect(RSAKey.publicKey(modulus: n, exponent: [1]) == nil, "e = 1")
        #expect(RSAKey.publicKey(modulus: n, exponent: [1, 0, 0]) == nil, "an even e")
    }

    @Test func rs256SignsAndVerifiesOnlyItsOwn() throws {
        let key = try RSAKey.generate()
        let message = Array("header.claims".utf8)
        var signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(message.withUnsafeBytes { key.verify(signature: signature, message: $0) })
        signature[100] ^= 1
        #expect(!message.withUnsafeBytes { key.verify(signature: signature, message: $0) })
        #expect(!message.withUnsafeBytes { key.verify(signature: Array(signature.dropLast()), message: $0) }, "a short signature")
        let (n, e) = try #require(key.publicComponents())
        let publicOnly = try #require(RSAKey.publicKey(modulus: n, exponent: e))
        #expect(message.withUnsafeBytes { publicOnly.verify(signature: try! key.sign(message), message: $0) })
    }

    @Test func cacheControlMaxAgeIsReadStrictly() {
        #expect(HTTPHeaderValues.maxAge("public, max-age=19856, must-revalidate, no-transform") == 19856)
        #expect(HTTPHeaderValues.maxAge("max-age=\"60\"") == 60)
        #expect(HTTPHeaderValues.maxAge("no-store, max-age=60") == nil)
        #expect(HTTPHeaderValues.maxAge("max-age=60, no-cache") == nil)
        #expect(HTTPHeaderValues.maxAge("max-age=-1") == nil)
        #expect(HTTPHeaderValues.maxAge("max-age=99999999999999999999999") == .max)
        #expect(HTTPHeaderValues.maxAge("public") == nil)
    }
}
