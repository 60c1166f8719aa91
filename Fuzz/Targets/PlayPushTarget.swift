/// What Google's side sends GateKit, as the Play code reads it: any bytes as a push body (the
/// Pub/Sub envelope and its DeveloperNotification), as a push's bearer token, as a key set, as
/// Google's error answer, as a SubscriptionPurchaseV2 and its timestamps, and as a
/// voided-purchases query — fail with a GateKitError, never trap; and a push verified with a
/// fixed key set is never accepted unless its token verifies.
@Sendable func fuzzPlayPush(_ bytes: UnsafeRawBufferPointer) {
    let input = Array(bytes)
    _ = try? DeveloperNotification(body: input).json(duplicate: false, issuer: "i", testSigned: true)
    _ = try? CompactJWT(input)
    _ = try? JSONWebKeySet(json: input)
    let failure = PlayFailure(HTTPResponse(status: 503, contentType: "application/json", retryAfter: nil, body: input))
    _ = failure.json
    _ = failure.description
    _ = try? PlayEndpoint.voidedPurchases(query: input)
    _ = (try? SubscriptionPurchase(json: input))?.lineItems.first?.recurringPrice?.milliunits
    _ = PlayTime.milliseconds(String(decoding: input.prefix(40), as: UTF8.self))
    guard let verifier = PlayFuzzVerifier.shared else { return }
    let text = String(decoding: input, as: UTF8.self)
    if (try? verifier.verify(authorization: "Bearer " + text, body: PlayFuzzVerifier.body)) != nil {
        fuzzFail("a push whose token is \(text.prefix(80)) was accepted")
    }
    _ = try? verifier.verify(authorization: PlayFuzzVerifier.token, body: input)
}

/// One verifier with a fixed key set, and a token it accepts, made once per fuzzing process.
enum PlayFuzzVerifier {
    nonisolated(unsafe) static var token = ""
    static let body = Array(#"{"message":{"data":"eyJ2ZXJzaW9uIjoiMS4wIiwicGFja2FnZU5hbWUiOiJmdXp6IiwiZXZlbnRUaW1lTWlsbGlzIjoiMSIsInRlc3ROb3RpZmljYXRpb24iOnt9fQ==","messageId":"1"},"subscription":"s"}"#.utf8)
    static let shared: PushVerifier? = {
        guard let issuer = try? TestPushIssuer(issuer: nil), let keys = try? issuer.keySetJSON(),
              let signed = try? issuer.signPush(audience: "fuzz", email: "fuzz@example.com", lifetimeSeconds: 86_400) else { return nil }
        token = signed
        var options = PushVerifier.Options(packageName: "fuzz", audience: "fuzz", serviceAccountEmail: "fuzz@example.com")
        options.issuer = TestPushIssuer.defaultIssuer
        options.keysJSON = Array(keys.utf8)
        options.maximumTokenAgeSeconds = 86_400
        options.duplicateWindow = 0
        return try? PushVerifier(options: options)
    }()
}
