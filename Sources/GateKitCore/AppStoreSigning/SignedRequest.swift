import COpenSSL
import GateKitSupport

/// The ES256 JWS/JWT requests GateKit signs for Apple with an App Store Connect key: the
/// header is `{"alg":"ES256","kid":<key id>,"typ":"JWT"}`, as Apple's libraries write it.
enum SignedRequest {
    /// `header.claims.signature`, each part base64url without padding.
    static func sign(claims: JSONValue, key: SigningKey) throws(GateKitError) -> String {
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(key.keyID)), ("typ", .string("JWT"))])
        let input = Base64.encode(Array(JSONWriter.serialize(header).utf8), alphabet: .url) + "."
            + Base64.encode(Array(JSONWriter.serialize(claims).utf8), alphabet: .url)
        let signature = try key.signRaw(Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .url)
    }

    /// A random (version 4) UUID, lowercase: the one-time `nonce` of signed requests.
    static func randomUUID() throws(GateKitError) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard bytes.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress, 16) }) == 1 else {
            throw .internalError("RAND_bytes failed")
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.encode(bytes)
        var out = ""
        for (i, c) in hex.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append("-") }
            out.append(c)
        }
        return out
    }
}
