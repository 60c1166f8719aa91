import GateKitCrypto
import GateKitSupport

/// Standard Webhooks 1.0.0, the symmetric scheme: a delivery carries `webhook-id` (the event's
/// id, the same on every retry), `webhook-timestamp` (the attempt's Unix seconds) and
/// `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>` over
/// `id.timestamp.body` — one per secret while an endpoint's secret is rolled. Other versions in
/// the list (`v1a`, the asymmetric scheme) are skipped, as the reference library skips them.
public enum StandardWebhook {
    public static let defaultToleranceSeconds = 300
    public static let maximumSecrets = 8
    public static let maximumBodyLength = 4 * 1024 * 1024
    /// Most entries a signature header may list (a few secrets' signatures, each scheme's).
    static let maximumSignatures = 32

    /// The `webhook-signature` value for `body` sent as `id` at `timestamp`: one `v1,…` per
    /// secret, in the order given.
    public static func sign(id: String, timestamp: Int64, body: UnsafeRawBufferPointer, secrets: [WebhookSecret]) throws(GateKitError) -> String {
        try checkID(id)
        guard timestamp >= 0 else { throw .invalid("a webhook timestamp is Unix seconds, not \(timestamp)") }
        guard (1...maximumSecrets).contains(secrets.count) else {
            throw .invalid("sign with 1 to \(maximumSecrets) secrets (two while one is rolled), not \(secrets.count)")
        }
        guard body.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "the body is over \(maximumBodyLength) bytes") }
        let signed = signedPrefix(id: Array(id.utf8), timestamp: Array(String(timestamp).utf8))
        var out: [String] = []
        for secret in secrets {
            out.append("v1," + Base64.encode(try HMACKey(sha256: secret.key).authenticate(signed, body)))
        }
        return out.joined(separator: " ")
    }

    /// What a verified delivery says: when it was signed and which secret signed it.
    public struct Verified: Sendable, Equatable {
        public let timestamp: Int64
        public let secretIndex: Int
    }

    /// Verifies a delivery as received: its three headers' values and the body's bytes, under
    /// the endpoint's secrets (any may have signed it), its timestamp within `toleranceSeconds`
    /// of `nowSeconds` (nil: this host's clock) in either direction.
    public static func verify(id: String, timestamp: String, signatureHeader: String, body: UnsafeRawBufferPointer,
                              secrets: [WebhookSecret], toleranceSeconds: Int = defaultToleranceSeconds,
                              nowSeconds: Int64? = nil) throws(GateKitError) -> Verified {
        guard (1...maximumSecrets).contains(secrets.count) else {
            throw .invalid("give 1 to \(maximumSecrets) secrets (two while one is rolled), not \(secrets.count)")
        }
        guard (1...86_400).contains(toleranceSeconds) else { throw .invalid("the tolerance is 1 to 86400 s (Standard Webhooks suggests 300)") }
        guard body.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "the body is over \(maximumBodyLength) bytes") }
        do throws(GateKitError) { try checkID(id) } catch { throw GateKitError(.EWEBHOOK_HEADER, "webhook-id: \(error.message)") }
        let stamp = Array(timestamp.utf8)
        guard (1...12).contains(stamp.count), stamp.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(timestamp) else {
            throw GateKitError(.EWEBHOOK_HEADER, "webhook-timestamp is Unix seconds (1 to 12 digits), not \(Quoted.text(String(timestamp.prefix(40))))")
        }
        let candidates = try signatures(signatureHeader)
        let signed = signedPrefix(id: Array(id.utf8), timestamp: stamp)
        var matched: Int?
        for (index, secret) in secrets.enumerated() where matched == nil {
            let expected = try HMACKey(sha256: secret.key).authenticate(signed, body)
            if candidates.contains(where: { ConstantTime.equal($0, expected) }) { matched = index }
        }
        guard let matched else {
            throw GateKitError(.EWEBHOOK_SIGNATURE, "no v1 signature is the body's under \(secrets.count == 1 ? "the secret" : "any of the \(secrets.count) secrets") (another endpoint's secret, or the body changed on the way: verify the bytes as received)")
        }
        let age = (nowSeconds ?? Clock.nowMilliseconds() / 1000) &- seconds
        if age > Int64(toleranceSeconds) {
            throw GateKitError(.EWEBHOOK_TIMESTAMP, "the delivery was signed \(age) s ago, more than the tolerance of \(toleranceSeconds) s: a replay, or a clock far off")
        }
        if -age > Int64(toleranceSeconds) {
            throw GateKitError(.EWEBHOOK_TIMESTAMP, "the delivery is signed \(-age) s ahead of this host's clock, more than the tolerance of \(toleranceSeconds) s")
        }
        return Verified(timestamp: seconds, secretIndex: matched)
    }

    /// The `v1` signatures a `webhook-signature` value lists (each 32 bytes).
    static func signatures(_ header: String) throws(GateKitError) -> [[UInt8]] {
        var found: [[UInt8]] = []
        var entries = 0
        for entry in header.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true) {
            entries += 1
            guard entries <= maximumSignatures else { throw GateKitError(.EWEBHOOK_HEADER, "webhook-signature lists more than \(maximumSignatures) signatures") }
            guard let comma = entry.firstIndex(of: UInt8(ascii: ",")) else {
                throw GateKitError(.EWEBHOOK_HEADER, "webhook-signature's entries are \"<version>,<base64>\" separated by spaces")
            }
            guard entry[..<comma].elementsEqual("v1".utf8) else { continue }
            guard let mac = Base64.decode(entry[entry.index(after: comma)...], alphabet: .standard), mac.count == 32 else {
                throw GateKitError(.EWEBHOOK_HEADER, "a v1 entry of webhook-signature is not the base64 of 32 bytes")
            }
            found.append(mac)
        }
        guard !found.isEmpty else { throw GateKitError(.EWEBHOOK_HEADER, "webhook-signature has no v1 signature") }
        return found
    }

    /// A message id: 1 to 255 printable ASCII bytes without "." (it is followed by one in
    /// what is signed) — the spec's rule for ids a sender must not let users choose.
    static func checkID(_ id: String) throws(GateKitError) {
        guard (1...255).contains(id.utf8.count), id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ".") }) else {
            throw .invalid("a webhook id is 1 to 255 printable ASCII bytes without \".\" or spaces")
        }
    }

    private static func signedPrefix(id: [UInt8], timestamp: [UInt8]) -> [UInt8] {
        id + [UInt8(ascii: ".")] + timestamp + [UInt8(ascii: ".")]
    }
}
