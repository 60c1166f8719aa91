import GateKitCrypto
import GateKitSupport

/// A JSON Web Key Set (RFC 7517 §5) of RSA signing keys by `kid`, as Google publishes at
/// https://www.googleapis.com/oauth2/v3/certs. Keys that are not RSA, not for signatures or
/// not RS256 are skipped (a set may hold others); a set with no usable key is refused.
package struct JSONWebKeySet: Sendable {
    package let keys: [String: RSAKey]

    /// A key set is a few KB; 1 MiB bounds the work of a hostile one.
    package static let maximumLength = 1 << 20
    /// Google publishes two or three keys; a set of more is not a key set we should trust.
    package static let maximumKeys = 64

    package init(json: [UInt8]) throws(GateKitError) {
        guard json.count <= JSONWebKeySet.maximumLength else {
            throw GateKitError(.EPUSH_KEYSET, "the key set is \(json.count) bytes; at most \(JSONWebKeySet.maximumLength) are read")
        }
        let document: JSONValue
        do { document = try JSONParser.parse(json) } catch { throw GateKitError(.EPUSH_KEYSET, "the key set is not JSON: \(error.message)") }
        guard case let .array(entries)? = document["keys"] else { throw GateKitError(.EPUSH_KEYSET, "the key set has no \"keys\" array") }
        guard entries.count <= JSONWebKeySet.maximumKeys else {
            throw GateKitError(.EPUSH_KEYSET, "the key set has \(entries.count) keys; at most \(JSONWebKeySet.maximumKeys) are read")
        }
        var keys: [String: RSAKey] = [:]
        for (index, entry) in entries.enumerated() {
            guard case .object = entry else { throw GateKitError(.EPUSH_KEYSET, "keys[\(index)] is not an object") }
            guard entry["kty"]?.stringValue == "RSA", entry["use"].map({ $0.stringValue == "sig" }) ?? true,
                  entry["alg"].map({ $0.stringValue == "RS256" }) ?? true else { continue }
            guard let kid = entry["kid"]?.stringValue, !kid.isEmpty else { throw GateKitError(.EPUSH_KEYSET, "keys[\(index)] has no kid") }
            guard keys[kid] == nil else { throw GateKitError(.EPUSH_KEYSET, "two keys have the kid \(Quoted.text(kid))") }
            guard let n = entry["n"]?.stringValue.flatMap({ Base64.decode($0.utf8, alphabet: .url) }),
                  let e = entry["e"]?.stringValue.flatMap({ Base64.decode($0.utf8, alphabet: .url) }),
                  let key = RSAKey.publicKey(modulus: n, exponent: e) else {
                throw GateKitError(.EPUSH_KEYSET, "key \(Quoted.text(kid)) is not an RSA public key of 2048 to 8192 bits (n, e base64url)")
            }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw GateKitError(.EPUSH_KEYSET, "the key set holds no RSA signing key") }
        self.keys = keys
    }

    /// One key as a JWK (test data: the test issuer publishes its key).
    package static func jwk(kid: String, key: RSAKey) throws(GateKitError) -> JSONValue {
        guard let (n, e) = key.publicComponents().map({ ($0.modulus, $0.exponent) }) else { throw .internalError("the key has no public components") }
        return .object([("kty", .string("RSA")), ("alg", .string("RS256")), ("use", .string("sig")), ("kid", .string(kid)),
                        ("n", .string(Base64.encode(n, alphabet: .url))), ("e", .string(Base64.encode(e, alphabet: .url)))])
    }
}
