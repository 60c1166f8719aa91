import GateKitCrypto
import Glibc
import GateKitSupport

/// A JWT in compact serialization (RFC 7519 §3): header and claims as checked JSON objects, the
/// bytes the signature covers, and the signature. Parsing checks shape only; what the header
/// and claims must say is the verifier's business.
package struct CompactJWT {
    let header: JSONTape
    let claims: JSONTape
    let signature: [UInt8]
    private let text: [UInt8]
    private let signedLength: Int

    /// `base64url(header) "." base64url(claims)`, as sent: what the signature covers.
    var signingInput: ArraySlice<UInt8> { text[..<signedLength] }

    /// Google's tokens are about 1 KB; 16 KiB leaves room and bounds the work.
    package static let maximumLength = 16 * 1024

    /// Nil-free: every malformation is `EPUSH_TOKEN` with what is wrong.
    init(_ text: [UInt8]) throws(GateKitError) {
        guard text.count <= CompactJWT.maximumLength else {
            throw GateKitError(.EPUSH_TOKEN, "the token is \(text.count) bytes; at most \(CompactJWT.maximumLength) are read")
        }
        // The dots found by memchr: a generic split tested each of a token's ~1,000 bytes in a closure.
        let dot = Int32(UInt8(ascii: "."))
        let (first, second, third) = text.withUnsafeBytes { bytes -> (Int?, Int?, Int?) in
            guard let base = bytes.baseAddress else { return (nil, nil, nil) }
            func find(from: Int?) -> Int? {
                guard let from, from < bytes.count, let found = memchr(base + from, dot, bytes.count - from) else { return nil }
                return base.distance(to: UnsafeRawPointer(found))
            }
            let first = find(from: 0), second = find(from: first.map { $0 + 1 })
            return (first, second, find(from: second.map { $0 + 1 }))
        }
        guard let first, let second, third == nil else {
            let count = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).count
            throw GateKitError(.EPUSH_TOKEN, "the token has \(count) dot-separated parts, not 3 (header.claims.signature)")
        }
        let parts = (text[..<first], text[(first + 1)..<second], text[(second + 1)...])
        func object(_ part: ArraySlice<UInt8>, _ name: String) throws(GateKitError) -> JSONTape {
            guard let bytes = Base64.decode(part, alphabet: .url) else { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not base64url") }
            let value: JSONTape
            do { value = try JSONTape(bytes) } catch { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not JSON (\(error.message))") }
            guard value.isObject() else { throw GateKitError(.EPUSH_TOKEN, "the token's \(name) is not a JSON object") }
            return value
        }
        header = try object(parts.0, "header")
        claims = try object(parts.1, "claims")
        // An empty signature parses: "alg":"none" is then refused for its algorithm, the precise reason.
        guard let signature = Base64.decode(parts.2, alphabet: .url) else {
            throw GateKitError(.EPUSH_TOKEN, "the token's signature is not base64url")
        }
        self.signature = signature
        self.text = text
        signedLength = second
    }

    /// `base64url(header).base64url(claims).base64url(signature)` signed by `key` (RS256).
    package static func signed(header: JSONValue, claims: JSONValue, key: RSAKey) throws(GateKitError) -> String {
        let input = Base64.encode(Array(JSONWriter.serialize(header).utf8), alphabet: .url) + "."
            + Base64.encode(Array(JSONWriter.serialize(claims).utf8), alphabet: .url)
        let signature = try key.sign(Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .url)
    }
}
