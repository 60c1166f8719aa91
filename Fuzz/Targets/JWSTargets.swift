/// The compact JWS splitter, base64url and header/payload JSON decoding: any bytes parse or
/// fail with a GateKitError, never trap.
@Sendable func fuzzJWSParse(_ bytes: UnsafeRawBufferPointer) {
    defer { JWSHeaderMemo.shared.removeAll() }
    guard let jws = try? CompactJWS.parse(bytes) else { return }
    _ = JSONWriter.serialize(jws.payload)
    _ = jws.header["alg"]?.stringValue
}

/// jws_verify_* end to end: all four kinds on the same text, Sandbox, bundle id
/// "com.example" (Apple's test vectors), with Apple's test root as the anchor when
/// $GATEKIT_FUZZ_JWS_ANCHOR names it (so mutated payloads of validly signed vectors reach the
/// field checks), and a Production pass without it.
@Sendable func fuzzJWSVerify(_ bytes: UnsafeRawBufferPointer) {
    defer { JWSHeaderMemo.shared.removeAll() }
    let text = Array(bytes)
    for kind in [JWSVerifier.Kind.transaction, .renewalInfo, .notification, .appTransaction] {
        if let options = JWSFuzzOptions.sandbox { _ = try? JWSVerifier.verifiedJSON(text, kind: kind, options: options) }
    }
    if let options = JWSFuzzOptions.production {
        _ = try? JWSVerifier.verifyTransaction(text, options: options)
        _ = try? JWSVerifier.verifyNotification(text, options: options)
    }
}

enum JWSFuzzOptions {
    static let sandbox: JWSOptions? = try? JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .sandbox,
                                                      testAnchorDER: FuzzFixtures.jwsAnchor)
    static let production: JWSOptions? = try? JWSOptions(bundleID: "com.example", appAppleID: 1234, environment: .production)
}
