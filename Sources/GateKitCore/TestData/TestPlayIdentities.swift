import GateKitCrypto
import GateKitHTTPS
import GateKitPlayAPI
import GateKitSupport

/// A service account key file of GateKit's own (fresh RSA-2048), for tests against a stand-in
/// of Google's token endpoint: Google has never seen its key, so it opens nothing real.
public enum TestServiceAccount {
    public static func json(clientEmail: String, tokenURI: String) throws(GateKitError) -> String {
        guard !clientEmail.isEmpty, clientEmail.utf8.count <= 1024 else { throw .invalid("client_email must be 1 to 1024 bytes") }
        let uri = try HTTPSURL.checked(tokenURI, what: "token_uri")
        let key = try RSAKey.generate()
        let keyID = Hex.encode(try RandomBytes.make(20))
        return JSONWriter.serialize(.object([
            ("type", .string("service_account")), ("project_id", .string("gatekit-test")), ("private_key_id", .string(keyID)),
            ("private_key", .string(try key.privateKeyPEM())), ("client_email", .string(clientEmail)), ("client_id", .string("0")),
            ("auth_uri", .string("https://accounts.google.com/o/oauth2/auth")), ("token_uri", .string(uri)),
            ("universe_domain", .string("googleapis.com")),
        ]))
    }
}

/// An OIDC issuer of GateKit's own that signs pushes as Pub/Sub does (RS256, one fresh key),
/// for a host's tests of its RTDN endpoint. Its issuer is never Google's, so a verifier takes
/// its pushes only when told to trust this issuer and its key set.
public final class TestPushIssuer: Sendable {
    public static let defaultIssuer = "https://oidc.test.gatekit.invalid"

    public let issuer: String
    public let keyID: String
    private let key: RSAKey

    public init(issuer: String?) throws(GateKitError) {
        let name = issuer ?? TestPushIssuer.defaultIssuer
        guard !name.isEmpty, name.utf8.count <= 1024 else { throw .invalid("issuer must be 1 to 1024 bytes") }
        guard !PushVerifier.googleIssuers.contains(name) else { throw .invalid("a test issuer cannot call itself Google (\(Quoted.text(name)))") }
        self.issuer = name
        keyID = Hex.encode(try RandomBytes.make(16))
        key = try RSAKey.generate()
    }

    /// The JWKS a verifier is given (keys_json) or fetches (keys_url).
    public func keySetJSON() throws(GateKitError) -> String {
        JSONWriter.serialize(.object([("keys", .array([try JSONWebKeySet.jwk(kid: keyID, key: key)]))]))
    }

    /// "Bearer <JWT>" with Pub/Sub's claims, issued now.
    public func signPush(audience: String, email: String, lifetimeSeconds: Int) throws(GateKitError) -> String {
        guard (1...86_400).contains(lifetimeSeconds) else { throw .invalid("lifetime_s must be 1 to 86400") }
        let now = Clock.nowMilliseconds() / 1000
        let claims: JSONValue = .object([
            ("aud", .string(audience)), ("azp", .string("100000000000000000000")), ("email", .string(email)), ("email_verified", .bool(true)),
            ("exp", .number(now + Int64(lifetimeSeconds))), ("iat", .number(now)), ("iss", .string(issuer)), ("sub", .string("100000000000000000000")),
        ])
        let header: JSONValue = .object([("alg", .string("RS256")), ("kid", .string(keyID)), ("typ", .string("JWT"))])
        return "Bearer " + (try CompactJWT.signed(header: header, claims: claims, key: key))
    }
}
