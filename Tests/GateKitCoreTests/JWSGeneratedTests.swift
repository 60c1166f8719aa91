import Testing
@testable import GateKitJWS
@testable import GateKitSupport

/// Forged, tampered and edge-case signed data made at test time with a throw-away PKI.
@Suite struct JWSGeneratedTests {
    static let chain = ["leaf", "int", "root"]

    static func transactionPayload(signedDate: Int64 = Clock.nowMilliseconds(), extra: String = "") -> String {
        "{\"transactionId\":\"2000000123\",\"originalTransactionId\":\"2000000100\",\"bundleId\":\"com.example\","
            + "\"productId\":\"pro.monthly\",\"purchaseDate\":\(signedDate - 1000),\"expiresDate\":\(signedDate + 86_400_000),"
            + "\"type\":\"Auto-Renewable Subscription\",\"environment\":\"Sandbox\",\"signedDate\":\(signedDate)\(extra)}"
    }

    static func code(_ jws: String, _ options: JWSOptions) -> GateKitError.Code? {
        jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(Array(jws.utf8), options: options) }
    }

    @Test func validSignatureVerifiesAndKeepsUnknownFields() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let jws = pki.sign(Self.transactionPayload(extra: ",\"futureField\":{\"nested\":[1,2.50,\"x\"]},\"bigId\":123456789012345678901234"), chain: Self.chain)
        let t = try JWSVerifier.verifyTransaction(Array(jws.utf8), options: options)
        #expect(t.productId == "pro.monthly")
        let json = try JWSVerifier.verifiedJSON(Array(jws.utf8), kind: .transaction, options: options)
        #expect(json.contains("\"futureField\":{\"nested\":[1,2.50,\"x\"]}"))
        #expect(json.contains("\"bigId\":123456789012345678901234"))
        // Production-shaped P-384 chain (root and intermediate P-384, P-256 signer) verifies too.
        guard let options384 = JWSOptions.test(pki.der("root384")) else { return }
        let jws384 = pki.sign(Self.transactionPayload(), chain: ["leaf384", "int384", "root384"])
        #expect(Self.code(jws384, options384) == nil)
        // Without the test anchor the same data is untrusted.
        guard let production = JWSOptions.test(nil) else { return }
        #expect(Self.code(jws, production) == .EJWS_UNTRUSTED)
    }

    @Test func testSignedDataIsRefusedAsProductionAfterItsIdentity() throws {
        guard let pki = JWSTestPKI.shared,
              let production = JWSOptions.test(pki.der("root"), environment: .production, appAppleID: 1234, testProduction: false),
              let allowed = JWSOptions.test(pki.der("root"), environment: .production, appAppleID: 1234, testProduction: true) else { return }
        let claimsProduction = pki.sign(Self.transactionPayload().replacingOccurrences("\"Sandbox\"", "\"Production\""), chain: Self.chain)
        #expect(Self.code(claimsProduction, production) == .EJWS_TEST_SIGNED)
        #expect(Self.code(claimsProduction, allowed) == nil)
        // Data for another environment or app gets Apple's verdict for it first.
        #expect(Self.code(pki.sign(Self.transactionPayload(), chain: Self.chain), production) == .EJWS_ENVIRONMENT)
        let otherApp = pki.sign(Self.transactionPayload().replacingOccurrences("\"Sandbox\"", "\"Production\"")
                                    .replacingOccurrences("com.example", "com.other"), chain: Self.chain)
        #expect(Self.code(otherApp, production) == .EJWS_BUNDLE_ID)
    }

    @Test func tamperedPayloadAndSignature() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let jws = pki.sign(Self.transactionPayload(), chain: Self.chain)
        let parts = jws.split(separator: ".").map(String.init)
        let otherPayload = Base64.encode(Array(Self.transactionPayload().replacingOccurrences("pro.monthly", "pro.lifetime").utf8), alphabet: .url)
        #expect(Self.code(parts[0] + "." + otherPayload + "." + parts[2], options) == .EJWS_SIGNATURE)
        var signature = Base64.decode(parts[2].utf8, alphabet: .url) ?? []
        signature[10] ^= 0x01
        #expect(Self.code(parts[0] + "." + parts[1] + "." + Base64.encode(signature, alphabet: .url), options) == .EJWS_SIGNATURE)
        // 63 and 65 bytes, and an all-zero signature.
        #expect(Self.code(parts[0] + "." + parts[1] + "." + Base64.encode(Array(signature.prefix(63)), alphabet: .url), options) == .EJWS_SIGNATURE)
        #expect(Self.code(parts[0] + "." + parts[1] + "." + Base64.encode(signature + [0], alphabet: .url), options) == .EJWS_SIGNATURE)
        #expect(Self.code(parts[0] + "." + parts[1] + "." + Base64.encode([UInt8](repeating: 0, count: 64), alphabet: .url), options) == .EJWS_SIGNATURE)
        // A DER signature where raw r‖s belongs is refused.
        let der = pki.rawSignature(parts[0] + "." + parts[1], key: pki.key("leaf"), keepDER: true)
        #expect(der.first == 0x30 && der.count > 64)
        #expect(Self.code(parts[0] + "." + parts[1] + "." + Base64.encode(der, alphabet: .url), options) == .EJWS_SIGNATURE)
        #expect(Self.code(jws, options) == nil)
    }

    @Test func otherAlgorithmsAreRefused() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let payload = Self.transactionPayload()
        #expect(Self.code(pki.sign(payload, chain: Self.chain, algorithm: "none"), options) == .EJWS_ALGORITHM)
        // alg none with an empty signature part (an "unsecured JWS"): refused for its algorithm.
        let none = pki.sign(payload, chain: Self.chain, algorithm: "none").split(separator: ".").prefix(2).joined(separator: ".") + "."
        #expect(Self.code(none, options) == .EJWS_ALGORITHM)
        #expect(Self.code(pki.sign(payload, chain: Self.chain, algorithm: "HS256"), options) == .EJWS_ALGORITHM)
        #expect(Self.code(pki.sign(payload, chain: Self.chain, algorithm: "es256"), options) == .EJWS_ALGORITHM)
        #expect(Self.code(pki.sign(payload, chain: Self.chain, algorithm: "ES384"), options) == .EJWS_ALGORITHM)
        #expect(Self.code(pki.sign(payload, chain: Self.chain, algorithm: nil), options) == .EJWS_MALFORMED)
        // RS256 by an RSA signer with Apple's OIDs: refused by algorithm…
        #expect(Self.code(pki.sign(payload, chain: ["leaf_rsa", "int", "root"], algorithm: "RS256"), options) == .EJWS_ALGORITHM)
        // …and an RSA signature labelled ES256 fails on the key type.
        #expect(Self.code(pki.sign(payload, chain: ["leaf_rsa", "int", "root"]), options) == .EJWS_SIGNATURE)
        // crit headers are refused.
        #expect(Self.code(pki.sign(payload, chain: Self.chain, extraHeader: ",\"crit\":[\"exp\"]"), options) == .EJWS_MALFORMED)
    }

    @Test func chainShapes() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let payload = Self.transactionPayload()
        #expect(Self.code(pki.sign(payload, chain: ["leaf", "int", "root", "other_root"]), options) == .EJWS_CHAIN_LENGTH)
        #expect(Self.code(pki.sign(payload, chain: ["leaf", "int"]), options) == .EJWS_CHAIN_LENGTH)
        #expect(Self.code(pki.sign(payload, chain: ["leaf", "int", "other_root"]), options) == nil) // x5c[2] ignored
        #expect(Self.code(pki.sign(payload, chain: ["leaf_bad_oid", "int", "root"]), options) == .EJWS_LEAF_OID)
        #expect(Self.code(pki.sign(payload, chain: ["leaf_under_bad_int", "int_bad_oid", "root"]), options) == .EJWS_INTERMEDIATE_OID)
        // Leaf signed by a stranger's chain.
        guard let strangerOptions = JWSOptions.test(pki.der("other_root")) else { return }
        #expect(Self.code(pki.sign(payload, chain: Self.chain), strangerOptions) == .EJWS_UNTRUSTED)
        // The leaf swapped for another signer whose key made the signature: chain fine, signature wrong.
        #expect(Self.code(pki.sign(payload, chain: Self.chain, signer: "leaf384"), options) == .EJWS_SIGNATURE)
        // A certificate that is not DER.
        let garbage = "{\"alg\":\"ES256\",\"x5c\":[\"AAAA\",\"AAAA\",\"AAAA\"]}"
        let forged = Base64.encode(Array(garbage.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url) + "." + Base64.encode([UInt8](repeating: 1, count: 64), alphabet: .url)
        #expect(Self.code(forged, options) == .EJWS_CERTIFICATE)
        let notBase64 = "{\"alg\":\"ES256\",\"x5c\":[\"!!\",\"AAAA\",\"AAAA\"]}"
        #expect(Self.code(Base64.encode(Array(notBase64.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url) + ".AAAA", options) == .EJWS_MALFORMED)
        let notArray = "{\"alg\":\"ES256\",\"x5c\":\"AAAA\"}"
        #expect(Self.code(Base64.encode(Array(notArray.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url) + ".AAAA", options) == .EJWS_MALFORMED)
    }

    @Test func verificationTimeIsTheSigningDate() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        // Signed "10 days ago": the certificates (valid from generation on) did not exist then.
        let old = Clock.nowMilliseconds() - 10 * 86_400_000
        let jws = pki.sign(Self.transactionPayload(signedDate: old), chain: Self.chain)
        #expect(Self.code(jws, options) == .EJWS_CERT_TIME)
        // The caller's time overrides it: valid now.
        guard let now = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return }
        #expect(Self.code(jws, now) == nil)
        // After the chain was cached at "now", a time outside the validity still fails.
        guard let future = JWSOptions.test(pki.der("root"), at: nowSeconds() + 60 * 86_400) else { return }
        #expect(Self.code(jws, future) == .EJWS_CERT_TIME)
        #expect(Self.code(jws, now) == nil)
    }

    @Test func payloadFieldTypesAreChecked() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let bad = "{\"bundleId\":42,\"environment\":\"Sandbox\",\"signedDate\":\(Clock.nowMilliseconds())}"
        #expect(Self.code(pki.sign(bad, chain: Self.chain), options) == .EJWS_PAYLOAD_FIELD)
        let badDate = "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":\"yesterday\"}"
        #expect(Self.code(pki.sign(badDate, chain: Self.chain), options) == .EJWS_PAYLOAD_FIELD)
        let huge = "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":1e300}"
        #expect(Self.code(pki.sign(huge, chain: Self.chain), options) == .EJWS_PAYLOAD_FIELD)
        let repeated = "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"bundleId\":\"com.evil\",\"signedDate\":\(Clock.nowMilliseconds())}"
        #expect(Self.code(pki.sign(repeated, chain: Self.chain), options) == .EJWS_PAYLOAD_FIELD)
        let notObject = "[1,2,3]"
        #expect(Self.code(pki.sign(notObject, chain: Self.chain), options) == .EJWS_MALFORMED)
        // null reads as absent: the bundle id is then missing, so it does not match.
        let nullBundle = "{\"bundleId\":null,\"environment\":\"Sandbox\",\"signedDate\":\(Clock.nowMilliseconds())}"
        #expect(Self.code(pki.sign(nullBundle, chain: Self.chain), options) == .EJWS_BUNDLE_ID)
    }

    @Test func entitlement() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let now = Clock.nowMilliseconds()
        let t = try JWSVerifier.verifyTransaction(Array(pki.sign(Self.transactionPayload(signedDate: now), chain: Self.chain).utf8), options: options)
        #expect(t.isEntitled(at: now))
        #expect(!t.isEntitled(at: now - 5000))                 // before the purchase
        #expect(!t.isEntitled(at: now + 86_400_000))           // at expiry
        let revoked = Self.transactionPayload(signedDate: now, extra: ",\"revocationDate\":\(now),\"revocationReason\":1")
        let r = try JWSVerifier.verifyTransaction(Array(pki.sign(revoked, chain: Self.chain).utf8), options: options)
        #expect(!r.isEntitled(at: now))
        let lifetime = "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"productId\":\"lifetime\",\"type\":\"Non-Consumable\",\"purchaseDate\":\(now - 1000),\"signedDate\":\(now)}"
        let l = try JWSVerifier.verifyTransaction(Array(pki.sign(lifetime, chain: Self.chain).utf8), options: options)
        #expect(l.isEntitled(at: now + 10 * 365 * 86_400_000))
        let upgraded = Self.transactionPayload(signedDate: now, extra: ",\"isUpgraded\":true")
        let u = try JWSVerifier.verifyTransaction(Array(pki.sign(upgraded, chain: Self.chain).utf8), options: options)
        #expect(!u.isEntitled(at: now))
        // Without a product id or a purchase date a transaction proves no purchase; a
        // consumable never entitles.
        for payload in ["{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":\(now)}",
                        "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"productId\":\"p\",\"signedDate\":\(now)}",
                        "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"purchaseDate\":\(now - 1000),\"signedDate\":\(now)}",
                        "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"productId\":\"coins\",\"type\":\"Consumable\",\"purchaseDate\":\(now - 1000),\"signedDate\":\(now)}"] {
            let bare = try JWSVerifier.verifyTransaction(Array(pki.sign(payload, chain: Self.chain).utf8), options: options)
            #expect(!bare.isEntitled(at: now))
            #expect(!bare.isEntitled(to: nil, at: now))
        }
    }

    @Test func optionsRules() {
        #expect(throws: GateKitError.self) { try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .production) }
        #expect(throws: GateKitError.self) { try JWSOptions(bundleID: "", appAppleID: nil, environment: .sandbox) }
        #expect(throws: GateKitError.self) { try AppStoreEnvironment.named("production") }
        #expect((try? JWSOptions(bundleID: "com.example", appAppleID: 1, environment: .production)) != nil)
    }
}

extension String {
    func replacingOccurrences(_ a: String, _ b: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

/// Hostile input never traps: random byte edits, truncations and splices of valid signed
/// data (Apple's and generated) always end in a GateKitError or a verified result.
@Suite struct JWSMutationTests {
    @Test func randomMutationsNeverTrap() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root")) else { return }
        let nested = pki.sign(JWSGeneratedTests.transactionPayload(), chain: JWSGeneratedTests.chain)
        let notification = "{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedTransactionInfo\":\"\(nested)\"},\"signedDate\":\(Clock.nowMilliseconds())}"
        let seeds = [nested, pki.sign(notification, chain: JWSGeneratedTests.chain)]
        var generator = SystemRandomNumberGenerator()
        var verified = 0
        var refused = 0
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \"{}[]:,\\\u{0}\u{ff}".utf8)
        for round in 0..<1500 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                guard !bytes.isEmpty else { break }
                let i = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[i] = alphabet.randomElement(using: &generator) ?? 0
                case 1: bytes.removeSubrange(i...)
                case 2: bytes.insert(alphabet.randomElement(using: &generator) ?? 0, at: i)
                default: bytes.remove(at: i)
                }
            }
            let kind: JWSVerifier.Kind = round % 2 == 0 ? .transaction : .notification
            do {
                _ = try JWSVerifier.verifiedJSON(bytes, kind: kind, options: options)
                verified += 1
            } catch {
                #expect(error.code.rawValue <= -1 && !error.message.isEmpty)
                refused += 1
            }
        }
        #expect(refused > 1000)   // nearly every edit breaks the signature or the shape
        #expect(verified + refused == 1500)
    }
}
