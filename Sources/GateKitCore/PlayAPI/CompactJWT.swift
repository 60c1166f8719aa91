import GateKitCrypto
import GateKitSupport

/// A JWT in compact serialization (RFC 7519 §3): header and claims as parsed JSON objects, the
/// bytes the signature covers, and the signature. Parsing checks shape only; what the header
/// and claims must say is the verifier's business.
package struct CompactJWT {
    let header: JSONValue
    let claims: JSONValue
    /// `base64url(header) "." base64url(claims)`, as sent: what the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Google's tokens are about 1 KB; 16 KiB leaves room and bounds the work.
    package static let maximumLength = 16 * 1024

    /// Nil-free: every malformation is `EPUSH_TOKEN` with what is wrong.
    init(_ text: [UInt8]) throws(GateKitError) {
        guard text.count <= CompactJWT.maximumLength else {
            throw GateKitError(.EPUSH_TOKEN, "the token is \(text.count) bytes; at most \(CompactJWT.maximumLength) are read")
        }
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw GateKitError(.EPUSH_TOKEN, "the token has \(parts.count) dot-separated parts, not 3 (header.claims.signature)") }
        func object(_ part: ArraySlice<UInt8>, _ name: String) throws(GateKitError) -> JSONValue {
            guard let bytes = Base64.decode(part, alphabet: .url) else { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not base64url") }
            let value: JSONValue
            do { value = try JSONParser.parse(bytes) } catch { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not JSON (\(error.message))") }
            guard case .object = value else { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not a JSON object") }
            return value
        }
        header = try object(parts[0], "header")
        claims = try object(parts[1], "claims")
        // An empty signature parses: "alg":"none" is then refused for its algorithm, the precise reason.
        guard let signature = Base64.decode(parts[2], alphabet: .url) else {
            throw GateKitError(.EPUSH_TOKEN, "the token's signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(text[..<(parts[0].count + 1 + parts[1].count)])
    }

    /// `base64url(header).base64url(claims).base64url(signature)` signed by `key` (RS256).
    package static func signed(header: JSONValue, claims: JSONValue, key: RSAKey) throws(GateKitError) -> String {
        let input = Base64.encode(Array(JSONWriter.serialize(header).utf8), alphabet: .url) + "."
            + Base64.encode(Array(JSONWriter.serialize(claims).utf8), alphabet: .url)
        let signature = try key.sign(Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .url)
    }
}
