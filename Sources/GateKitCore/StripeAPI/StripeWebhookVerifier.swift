import GateKitCrypto
import GateKitSupport

/// Verifies Stripe's webhook deliveries exactly as Stripe signs them: HMAC-SHA256 under the
/// endpoint's signing secret (the whole `whsec_…` string as UTF-8) over `t`, ".", and the body's
/// bytes as received, compared in constant time with every `v1`; then the signing instant within
/// the tolerance of this host's clock, in both directions (Stripe's libraries check only the
/// past). Several secrets are accepted while one is rolled. A verified delivery says only what
/// happened and whom to ask: the ledger asks Stripe for the object. Safe to share between threads.
public final class StripeWebhookVerifier: @unchecked Sendable {
    public static let defaultToleranceSeconds = 300
    public static let maximumSecrets = 8
    public static let maximumBodyLength = 4 * 1024 * 1024

    private let keys: [HMACKey]
    public let toleranceSeconds: Int

    public init(secrets: [String], toleranceSeconds: Int = StripeWebhookVerifier.defaultToleranceSeconds) throws(GateKitError) {
        guard (1...StripeWebhookVerifier.maximumSecrets).contains(secrets.count) else {
            throw .invalid("give 1 to \(StripeWebhookVerifier.maximumSecrets) signing secrets (two while one is rolled), not \(secrets.count)")
        }
        for secret in secrets {
            guard secret.hasPrefix("whsec_"), (7...256).contains(secret.utf8.count),
                  secret.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                // Never the secret itself in a message.
                throw .invalid("a webhook signing secret is the endpoint's \"whsec_…\" (7 to 256 printable bytes); an API key (sk_…, rk_…) is not one")
            }
        }
        guard (1...86_400).contains(toleranceSeconds) else { throw .invalid("tolerance_s must be 1 to 86400 (Stripe's libraries use 300)") }
        var keys: [HMACKey] = []
        for secret in secrets { keys.append(try HMACKey(sha256: Array(secret.utf8))) }
        self.keys = keys
        self.toleranceSeconds = toleranceSeconds
    }

    /// The event the delivery carries, when the header's signature is one of the secrets' over
    /// exactly these bytes and was made within the tolerance of `nowSeconds` (nil: this host's
    /// clock).
    public func verify(body: [UInt8], signatureHeader: String, nowSeconds: Int64? = nil) throws(GateKitError) -> StripeEvent {
        try body.withUnsafeBytes { bytes in
            Result { () throws(GateKitError) in try verify(body: bytes, signatureHeader: signatureHeader, nowSeconds: nowSeconds) }
        }.get()
    }

    /// The same, reading the body in place (a C caller's buffer).
    public func verify(body: UnsafeRawBufferPointer, signatureHeader: String, nowSeconds: Int64? = nil) throws(GateKitError) -> StripeEvent {
        try verify(body: body, header: try StripeSignatureHeader(signatureHeader), nowSeconds: nowSeconds)
    }

    /// The same with the header's bytes as received (a C caller's string, read in place).
    public func verify(body: UnsafeRawBufferPointer, signatureHeaderBytes: UnsafeRawBufferPointer, nowSeconds: Int64? = nil) throws(GateKitError) -> StripeEvent {
        try verify(body: body, header: try StripeSignatureHeader(bytes: signatureHeaderBytes), nowSeconds: nowSeconds)
    }

    private func verify(body: UnsafeRawBufferPointer, header: StripeSignatureHeader, nowSeconds: Int64?) throws(GateKitError) -> StripeEvent {
        guard body.count <= StripeWebhookVerifier.maximumBodyLength else {
            throw GateKitError(.ETOOLARGE, "the body is over \(StripeWebhookVerifier.maximumBodyLength) bytes (a Stripe event is a few KB)")
        }
        // What is signed before the body, "t.", and each secret's HMAC: on the stack.
        let matched = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24 + 32) { (buffer) throws(GateKitError) -> Int? in
            var n = 1, rest = header.timestamp / 10  // its digits (at most 12), then "."
            while rest > 0 { n += 1; rest /= 10 }
            var value = header.timestamp
            for i in stride(from: n - 1, through: 0, by: -1) {
                buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            }
            buffer[n] = UInt8(ascii: ".")
            n += 1
            let signed = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<n])
            let mac = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[24..<56])
            for (index, key) in keys.enumerated() {
                try key.authenticate(signed, body, into: mac)
                if header.lists(UnsafeRawBufferPointer(mac)) { return index }
            }
            return nil
        }
        guard let matched else {
            throw GateKitError(.ESTRIPE_SIGNATURE, "no v1 signature of the delivery is its body's under \(keys.count == 1 ? "the signing secret" : "any of the \(keys.count) signing secrets") (another endpoint's secret, or a body changed on the way: verify the bytes as received)")
        }
        let now = nowSeconds ?? Clock.nowMilliseconds() / 1000
        let age = now &- header.timestamp
        if age > Int64(toleranceSeconds) {
            throw GateKitError(.ESTRIPE_TIMESTAMP, "the delivery was signed \(age) s ago, more than the tolerance of \(toleranceSeconds) s: a replay, or a clock far off")
        }
        if -age > Int64(toleranceSeconds) {
            throw GateKitError(.ESTRIPE_TIMESTAMP, "the delivery is signed \(-age) s ahead of this host's clock, more than the tolerance of \(toleranceSeconds) s")
        }
        var event = try StripeEvent(json: body)
        event.signedAt = header.timestamp
        event.secretIndex = matched
        return event
    }
}
