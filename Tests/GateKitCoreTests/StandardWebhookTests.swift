import Testing
@testable import GateKitSupport
@testable import GateKitWebhooks

/// Standard Webhooks 1.0.0 in the core: the spec's reference vector both ways, a header's
/// entries read as the reference library reads them, and secrets checked (docs/webhooks.md).
@Suite struct StandardWebhookTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let body = Array(#"{"test": 2432232314}"#.utf8)
    static let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

    func verify(_ header: String, timestamp: String = "1614265330", id: String = "msg_p5jXN8AQM9LWM0D4loKWxJek",
                secrets: [String] = [secret]) throws(GateKitError) -> StandardWebhook.Verified {
        let keys = try secrets.map { (s) throws(GateKitError) in try WebhookSecret(s) }
        return try Self.body.withUnsafeBytes { bytes in
            Result { () throws(GateKitError) in
                try StandardWebhook.verify(id: id, timestamp: timestamp, signatureHeader: header, body: bytes, secrets: keys,
                                           nowSeconds: 1_614_265_330)
            }
        }.get()
    }

    @Test func theSpecsVectorSignsAndVerifies() throws {
        let signed = try Self.body.withUnsafeBytes { bytes in
            try StandardWebhook.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: bytes, secrets: [WebhookSecret(Self.secret)])
        }
        #expect(signed == Self.signature)
        #expect(try verify(Self.signature) == StandardWebhook.Verified(timestamp: 1_614_265_330, secretIndex: 0))
        #expect(try verify("v1a,AAAA " + Self.signature + " v2,whatever").secretIndex == 0)
        let other = try WebhookSecret.generate()
        #expect(try verify(Self.signature, secrets: [other, Self.secret]).secretIndex == 1)
    }

    @Test func eachRefusalHasItsCode() {
        #expect(jwsError { () throws(GateKitError) in try verify(Self.signature, id: "msg_other") } == .EWEBHOOK_SIGNATURE)
        #expect(jwsError { () throws(GateKitError) in try verify(Self.signature, secrets: [try WebhookSecret.generate()]) } == .EWEBHOOK_SIGNATURE)
        #expect(jwsError { () throws(GateKitError) in try verify(Self.signature, timestamp: "1614264000") } == .EWEBHOOK_SIGNATURE)  // the timestamp is signed
        #expect(jwsError { () throws(GateKitError) in try verify("v1a,AAAA") } == .EWEBHOOK_HEADER)
        #expect(jwsError { () throws(GateKitError) in try verify("v1") } == .EWEBHOOK_HEADER)
        #expect(jwsError { () throws(GateKitError) in try verify("v1,AAAA") } == .EWEBHOOK_HEADER)
        #expect(jwsError { () throws(GateKitError) in try verify(Self.signature, timestamp: "+1614265330") } == .EWEBHOOK_HEADER)
        #expect(jwsError { () throws(GateKitError) in try verify(Self.signature, id: "msg.1") } == .EWEBHOOK_HEADER)
        #expect(jwsError { () throws(GateKitError) in try verify(String(repeating: "v2,x ", count: 40)) } == .EWEBHOOK_HEADER)
    }

    @Test func aSecretIsWhsecAndTheBase64OfItsKey() throws {
        for bad in ["", "whsec_", "sk_test_abc", "whsec_!!!!", "whsec_QUFBQUFB", "whsec_ " + String(Self.secret.dropFirst(6))] {
            #expect(throws: GateKitError.self, "\(bad)") { try WebhookSecret(bad) }
        }
        let made = try WebhookSecret.generate()
        #expect(try WebhookSecret(made).key.count == 32 && WebhookSecret(String(made.dropLast())).key == WebhookSecret(made).key)
    }
}
