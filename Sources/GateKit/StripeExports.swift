import CGateKitHeader
import Glibc
import GateKitStripeAPI
import GateKitSupport

// include/gatekit/stripe.h: Stripe's webhooks verified.

@c(stripe_verify_webhook)
public func stripeVerifyWebhook(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ signatureHeader: UnsafePointer<CChar>?,
                                _ body: UnsafeRawPointer?, _ bodyLength: Int, _ secrets: UnsafePointer<UnsafePointer<CChar>?>?,
                                _ secretCount: Int, _ toleranceSeconds: Int32, _ nowSeconds: Int64) -> Int32 {
    out?.pointee = nil
    return exportBoundary("stripe_verify_webhook") { () throws(GateKitError) in
        // The header read in place, as bytes: no String on every delivery's path.
        guard let signatureHeader else { throw .invalid("signature_header is NULL") }
        let header = UnsafeRawBufferPointer(start: signatureHeader, count: strnlen(signatureHeader, StripeSignatureHeader.maximumLength + 1))
        let bytes = try stripeWebhookBody(body, bodyLength)
        let verifier = try webhookVerifier(secrets, secretCount, toleranceSeconds)
        guard nowSeconds >= 0 else { throw .invalid("now_s is negative (0: this host's clock)") }
        let event = try verifier.verify(body: bytes, signatureHeaderBytes: header, nowSeconds: nowSeconds == 0 ? nil : nowSeconds)
        if let out { out.pointee = try Owned.cString(event.json) }
        return GATEKIT_OK
    }
}

/// A delivery's Stripe-Signature header and body, checked as include/gatekit/stripe.h says.
func webhookDelivery(_ signatureHeader: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?,
                     _ bodyLength: Int) throws(GateKitError) -> (String, UnsafeRawBufferPointer) {
    (try Arguments.string(signatureHeader, "signature_header"), try stripeWebhookBody(body, bodyLength))
}

/// A delivery's body, within the bound include/gatekit/stripe.h states.
private func stripeWebhookBody(_ body: UnsafeRawPointer?, _ bodyLength: Int) throws(GateKitError) -> UnsafeRawBufferPointer {
    try Arguments.body(body, bodyLength, limit: StripeWebhookVerifier.maximumBodyLength, " (a Stripe event is a few KB)")
}

/// The verifier of an endpoint's secrets and tolerance (0: 300 s), kept for the next delivery.
func webhookVerifier(_ secrets: UnsafePointer<UnsafePointer<CChar>?>?, _ secretCount: Int,
                     _ toleranceSeconds: Int32) throws(GateKitError) -> StripeWebhookVerifier {
    guard let secrets else { throw .invalid("secrets is NULL") }
    guard (1...StripeWebhookVerifier.maximumSecrets).contains(secretCount) else {
        throw .invalid("secret_count must be 1 to \(StripeWebhookVerifier.maximumSecrets), not \(UInt(bitPattern: secretCount))")
    }
    guard toleranceSeconds >= 0 else { throw .invalid("tolerance_s is negative (0: 300 s)") }
    let tolerance = toleranceSeconds == 0 ? StripeWebhookVerifier.defaultToleranceSeconds : Int(toleranceSeconds)
    // Every delivery of an endpoint passes the same secrets: found by their bytes as given,
    // with no String made per call; read and checked only the first time.
    if let kept = StripeVerifiers.shared.kept(secrets, secretCount, toleranceSeconds: tolerance) { return kept }
    var given: [String] = []
    for i in 0..<secretCount { given.append(try Arguments.string(secrets[i], "secrets[\(i)]")) }
    return try StripeVerifiers.shared.verifier(secrets: given, toleranceSeconds: tolerance)
}

/// The verifiers of the secrets hosts passed lately: an endpoint verifies every delivery with
/// the same one or two secrets, so each is keyed once, not per call. A few endpoints' worth;
/// the oldest goes first. Per process (`ProcessLocal`): a forked child never waits on a lock a
/// parent thread held at the fork.
private final class StripeVerifiers: @unchecked Sendable {
    static let shared = StripeVerifiers()
    private static let capacity = 16
    /// Keyed by the secrets' bytes: Swift's String equality is canonical equivalence, and a key
    /// is its bytes.
    private typealias Kept = (secrets: [[UInt8]], tolerance: Int, verifier: StripeWebhookVerifier)
    private let recent = ProcessLocal<[Kept]> { [] }

    /// The verifier kept for exactly these C strings' bytes and tolerance, if any.
    func kept(_ secrets: UnsafePointer<UnsafePointer<CChar>?>, _ count: Int, toleranceSeconds: Int) -> StripeWebhookVerifier? {
        var given: [UnsafeRawBufferPointer] = []
        given.reserveCapacity(count)
        for i in 0..<count {
            guard let p = secrets[i] else { return nil }  // refused with its reason by the caller
            given.append(UnsafeRawBufferPointer(start: p, count: strlen(p)))
        }
        return recent.withLock { recent in
            recent.first { kept in
                kept.tolerance == toleranceSeconds && kept.secrets.count == count
                    && zip(kept.secrets, given).allSatisfy { $0.elementsEqual($1) }
            }?.verifier
        }
    }

    func verifier(secrets: [String], toleranceSeconds: Int) throws(GateKitError) -> StripeWebhookVerifier {
        let key = secrets.map { Array($0.utf8) }
        if let kept = recent.withLock({ $0.first { $0.secrets == key && $0.tolerance == toleranceSeconds }?.verifier }) { return kept }
        let made = try StripeWebhookVerifier(secrets: secrets, toleranceSeconds: toleranceSeconds)
        recent.withLock { recent in
            if recent.count == StripeVerifiers.capacity { recent.removeFirst() }
            recent.append((key, toleranceSeconds, made))
        }
        return made
    }
}
