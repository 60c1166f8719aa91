import GateKitCrypto
import GateKitSupport

/// A Standard Webhooks signing secret (Standard Webhooks 1.0.0): `whsec_` and the base64 of 24
/// to 64 random bytes, the HMAC-SHA256 key being those bytes (not the text, as Stripe keys its
/// own). Unpadded base64 is read as the reference library reads it. The text never appears in
/// an error.
public struct WebhookSecret: Sendable {
    public static let prefix = "whsec_"
    public static let keyLengths = 24...64
    /// The length GateKit makes its own secrets (`generate()`).
    public static let generatedLength = 32

    /// The key bytes.
    let key: [UInt8]

    public init(_ text: String) throws(GateKitError) {
        let bytes = Array(text.utf8)
        let head = Array(WebhookSecret.prefix.utf8)
        guard bytes.count > head.count, bytes.count <= 256, bytes.starts(with: head) else {
            throw .invalid("a webhook secret is \"whsec_\" and the base64 of its key (Standard Webhooks); this one is not")
        }
        var encoded = Array(bytes.dropFirst(head.count))
        while encoded.count % 4 != 0 { encoded.append(UInt8(ascii: "=")) }
        guard !encoded.contains(where: { $0 <= 0x20 }), let key = Base64.decode(encoded, alphabet: .standard) else {
            throw .invalid("a webhook secret's part after \"whsec_\" is not base64")
        }
        guard WebhookSecret.keyLengths.contains(key.count) else {
            throw .invalid("a webhook secret's key is \(WebhookSecret.keyLengths.lowerBound) to \(WebhookSecret.keyLengths.upperBound) bytes (Standard Webhooks), not \(key.count)")
        }
        self.key = key
    }

    /// A new secret of 32 random bytes, as its text.
    public static func generate() throws(GateKitError) -> String {
        prefix + Base64.encode(try RandomBytes.make(generatedLength))
    }
}
