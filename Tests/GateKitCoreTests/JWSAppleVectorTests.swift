import Testing
@testable import GateKitCrypto
@testable import GateKitJWS
@testable import GateKitSupport

/// Apple's own test vectors (app-store-server-library test data) and certificate-chain vectors.
@Suite struct JWSAppleVectorTests {
    static let testCA = "jws/apple-test/certs/testCA.der"
    static let mock = "jws/apple-test/mock_signed_data/"

    @Test func testNotificationDecodesInSandbox() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA), let jws = JWSTestFiles.fixtureJWS(Self.mock + "testNotification"),
              let options = JWSOptions.test(anchor) else { return }
        let verified = try JWSVerifier.verifyNotification(jws, options: options)
        #expect(verified.notification.notificationType == "TEST")
        #expect(verified.notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(verified.notification.signedDate == 1681314324000)
        #expect(verified.notification.data?.appAppleId == 1234)
        #expect(verified.notification.data?.bundleId == "com.example")
        #expect(verified.notification.data?.environment == "Sandbox")
        #expect(verified.transaction == nil)
    }

    @Test func testNotificationWrongEnvironmentAndAppID() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA), let jws = JWSTestFiles.fixtureJWS(Self.mock + "testNotification"),
              let production = JWSOptions.test(anchor, environment: .production, appAppleID: 1234),
              let wrongApp = JWSOptions.test(anchor, environment: .production, appAppleID: 1235),
              let sandboxOtherApp = JWSOptions.test(anchor, environment: .sandbox, appAppleID: 1235) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(jws, options: production) } == .EJWS_ENVIRONMENT)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(jws, options: wrongApp) } == .EJWS_APP_APPLE_ID)
        // Apple checks the app Apple id only in Production.
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(jws, options: sandboxOtherApp) } == nil)
    }

    @Test func oneCallClearsEveryCache() {
        // A key no other (concurrently running) test can insert.
        let key = SampledBytesKey(bytes: Array("clear-caches-\(UInt64.random(in: 1...UInt64.max))".utf8))
        JWSHeaderMemo.shared.insert(key, JWSHeaderMemo.Entry(header: .object([]), certificates: []))
        #expect(JWSHeaderMemo.shared.lookup(key) != nil)
        ProcessCaches.clearAll()
        #expect(JWSHeaderMemo.shared.lookup(key) == nil)
    }

    @Test func testSignedDataIsMarkedAndNeverProduction() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA), let jws = JWSTestFiles.fixtureJWS(Self.mock + "testNotification"),
              let strict = JWSOptions.test(anchor, environment: .production, appAppleID: 1234, testProduction: false),
              let sandbox = JWSOptions.test(anchor, environment: .sandbox) else { return }
        // Sandbox data for a Production verifier: Apple's verdict (another environment) comes
        // first (JWSGeneratedTests: test-signed data that claims Production is refused as such).
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(jws, options: strict) } == .EJWS_ENVIRONMENT)
        let verified = try JWSVerifier.verify(jws, kind: .notification, options: sandbox)
        #expect(verified.isTestSigned)
        let payload = jws.split(separator: UInt8(ascii: "."))[1]
        #expect(verified.identity.sha256 == (try Digest.hash(.sha256, Base64.decode(payload, alphabet: .url) ?? [])))
        #expect(verified.json.hasSuffix(",\"gatekit\":{\"version\":1,\"identity\":\"\(verified.identity.hex)\",\"testSigned\":true}}"))
    }

    @Test func transactionAndRenewalInfoDecode() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA),
              let transaction = JWSTestFiles.fixtureJWS(Self.mock + "transactionInfo"),
              let renewal = JWSTestFiles.fixtureJWS(Self.mock + "renewalInfo"),
              let options = JWSOptions.test(anchor) else { return }
        let t = try JWSVerifier.verifyTransaction(transaction, options: options)
        #expect(t.environment == "Sandbox")
        #expect(t.bundleId == "com.example")
        #expect(t.signedDate == 1672956154000)
        let r = try JWSVerifier.verifyRenewalInfo(renewal, options: options)
        #expect(r.environment == "Sandbox")
        #expect(r.signedDate == 1672956154000)
        // The transaction is for com.example: another bundle id is refused.
        guard let other = JWSOptions.test(anchor, bundle: "com.example.other") else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(transaction, options: other) } == .EJWS_BUNDLE_ID)
    }

    @Test func wrongBundleIdAndMissingX5C() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA),
              let wrong = JWSTestFiles.fixtureJWS(Self.mock + "wrongBundleId"),
              let missing = JWSTestFiles.fixtureJWS(Self.mock + "missingX5CHeaderClaim"),
              let legacy = JWSTestFiles.fixtureJWS(Self.mock + "legacyTransaction"),
              let options = JWSOptions.test(anchor, bundle: "com.examplex") else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(wrong, options: options) } == .EJWS_BUNDLE_ID)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(missing, options: options) } == .EJWS_MALFORMED)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(legacy, options: options) } == .EJWS_MALFORMED)
    }

    @Test func malformedPartsOfARealJWS() throws {
        guard let anchor = JWSTestFiles.fixture(Self.testCA), let jws = JWSTestFiles.fixtureJWS(Self.mock + "transactionInfo"),
              let options = JWSOptions.test(anchor) else { return }
        let text = String(decoding: jws, as: UTF8.self)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let cases: [(String, GateKitError.Code)] = [
            (parts[0] + "." + parts[1], .EJWS_MALFORMED),                              // two parts
            (text + ".AAAA", .EJWS_MALFORMED),                                          // four parts
            (parts[0] + "=." + parts[1] + "." + parts[2], .EJWS_MALFORMED),             // padding
            (parts[0] + "." + parts[1] + "." + parts[2] + "=", .EJWS_MALFORMED),
            (parts[0] + "." + parts[1].replacingFirst("e", "+") + "." + parts[2], .EJWS_MALFORMED), // not url alphabet
            (parts[0] + " ." + parts[1] + "." + parts[2], .EJWS_MALFORMED),             // white space
            ("." + parts[1] + "." + parts[2], .EJWS_MALFORMED),                         // empty header
            (parts[0] + ".." + parts[2], .EJWS_MALFORMED),                              // empty payload
            (parts[0] + "." + parts[1] + ".", .EJWS_MALFORMED),                         // empty signature
            (Base64.encode(Array("[1]".utf8), alphabet: .url) + "." + parts[1] + "." + parts[2], .EJWS_MALFORMED),
            (Base64.encode(Array("{\"alg\":".utf8), alphabet: .url) + "." + parts[1] + "." + parts[2], .EJWS_MALFORMED),
            ("", .EJWS_MALFORMED),
        ]
        for (input, expected) in cases {
            let got = jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(Array(input.utf8), options: options) }
            #expect(got == expected, "\(input.prefix(60))")
        }
        // The untouched JWS still verifies (the cases above fail for their own reason).
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(jws, options: options) } == nil)
    }

    @Test func testChainAgainstTheRealG3RootIsRefused() throws {
        guard let jws = JWSTestFiles.fixtureJWS(Self.mock + "transactionInfo"),
              let options = JWSOptions.test(nil) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(jws, options: options) } == .EJWS_UNTRUSTED)
    }

    // MARK: Xcode

    static let xcodeBundle = "com.example.naturelab.backyardbirds.example"

    static func xcodeCertificate(_ jws: [UInt8]) -> [UInt8]? {
        (try? CompactJWS.parse(jws))?.certificates.first
    }

    @Test func xcodeSignedDataOnlyInTestMode() throws {
        guard let transaction = JWSTestFiles.fixtureJWS("jws/apple-test/xcode/xcode-signed-transaction"),
              let renewal = JWSTestFiles.fixtureJWS("jws/apple-test/xcode/xcode-signed-renewal-info"),
              let app = JWSTestFiles.fixtureJWS("jws/apple-test/xcode/xcode-signed-app-transaction"),
              let testCA = JWSTestFiles.fixture(Self.testCA),
              let cert = Self.xcodeCertificate(transaction) else { return }
        // No anchor: refused, never returned unverified — whatever environment is expected.
        for env in AppStoreEnvironment.allCases {
            guard let o = JWSOptions.test(nil, bundle: Self.xcodeBundle, environment: env, appAppleID: 1) else { continue }
            #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(transaction, options: o) } == .EJWS_TEST_SIGNED)
        }
        // The wrong anchor: refused.
        guard let wrongAnchor = JWSOptions.test(testCA, bundle: Self.xcodeBundle, environment: .xcode),
              let options = JWSOptions.test(cert, bundle: Self.xcodeBundle, environment: .xcode) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(transaction, options: wrongAnchor) } == .EJWS_UNTRUSTED)

        let t = try JWSVerifier.verifyTransaction(transaction, options: options)
        #expect(t.transactionId == "0")
        #expect(t.productId == "pass.premium")
        #expect(t.purchaseDate == 1697679936049)     // 1697679936049.7297 truncated
        #expect(t.signedDate == 1697679936056)       // 1697679936056.485
        #expect(t.expiresDate == 1700358336049)
        #expect(t.isUpgraded == false)
        #expect(t.offerType == 1)
        #expect(t.quantity == 1)
        #expect(t.type == "Auto-Renewable Subscription")
        #expect(t.environment == "Xcode")
        #expect(t.storefront == "USA")
        // The JSON keeps the exact fractional text and members no model knows.
        let json = JSONWriter.serialize(t.json)
        #expect(json.contains("\"purchaseDate\":1697679936049.7297"))
        #expect(json.contains("\"deviceVerificationNonce\":\"7edea87d-98f0-42d0-9682-49ca81022f73\""))

        let r = try JWSVerifier.verifyRenewalInfo(renewal, options: options)
        #expect(r.autoRenewStatus == 1)
        #expect(r.renewalDate == 1700358336049)
        #expect(r.recentSubscriptionStartDate == 1697679936049)
        #expect(r.environment == "Xcode")

        let a = try JWSVerifier.verifyAppTransaction(app, options: options)
        #expect(a.receiptType == "Xcode")
        #expect(a.originalPurchaseDate == -62135769600000)
        #expect(a.receiptCreationDate == 1697680122257)
        #expect(a.applicationVersion == "1")

        // The Xcode certificate expired on 2024-10-18: at a caller-given later time it fails.
        guard let later = JWSOptions.test(cert, bundle: Self.xcodeBundle, environment: .xcode, at: 1761962975) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(transaction, options: later) } == .EJWS_CERT_TIME)
        // Right anchor, wrong environment.
        guard let sandbox = JWSOptions.test(cert, bundle: Self.xcodeBundle, environment: .sandbox) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(transaction, options: sandbox) } == .EJWS_ENVIRONMENT)
    }

    // MARK: x509 chain vectors

    static func x509(_ name: String) -> [UInt8]? { JWSTestFiles.fixture("jws/x509/\(name).der") }

    @Test func x509ChainVectors() throws {
        guard let root = Self.x509("ROOT_CA"), let int = Self.x509("INTERMEDIATE_CA"), let leaf = Self.x509("LEAF_CERT"),
              let badLeaf = Self.x509("LEAF_CERT_INVALID_OID"), let badInt = Self.x509("INTERMEDIATE_CA_INVALID_OID"),
              let leafOfBadInt = Self.x509("LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID") else { return }
        func code(_ certs: [[UInt8]], _ time: Int64, _ anchor: [UInt8]?) -> GateKitError.Code? {
            jwsError { () throws(GateKitError) in try X5CChain.verifiedChain(certs, at: time, testAnchor: anchor) }
        }
        #expect(code([leaf, int, root], 1761962975, root) == nil)
        #expect(code([leaf, int, root], 2280946846, root) == .EJWS_CERT_TIME)
        #expect(code([badLeaf, int, root], 1761962975, root) == .EJWS_LEAF_OID)
        #expect(code([leafOfBadInt, badInt, root], 1761962975, root) == .EJWS_INTERMEDIATE_OID)
        #expect(code([leaf, int], 1761962975, root) == .EJWS_CHAIN_LENGTH)
        #expect(code([leaf, int, root], 1761962975, nil) == .EJWS_UNTRUSTED)
        // x5c[2] is never an anchor: a chain whose third certificate is a stranger still
        // verifies against the anchor, and the anchor alone decides.
        #expect(code([leaf, int, leaf], 1761962975, root) == nil)
    }

    @Test func realAppleProductionChain() throws {
        guard let root = Self.x509("REAL_APPLE_ROOT"), let int = Self.x509("REAL_APPLE_INTERMEDIATE"),
              let leaf = Self.x509("REAL_APPLE_SIGNING_CERTIFICATE") else { return }
        // Pinned G3, no test anchor: 2026-01-01 lies inside the leaf's 2025-09-19..2027-10-13.
        let chain = try X5CChain.verifiedChain([leaf, int, root], at: 1767225600, testAnchor: nil)
        #expect(chain.isP256)
        #expect(!chain.isTestAnchored)
        #expect(jwsError { () throws(GateKitError) in try X5CChain.verifiedChain([leaf, int, root], at: 2280946846, testAnchor: nil) } == .EJWS_CERT_TIME)
        #expect(jwsError { () throws(GateKitError) in try X5CChain.verifiedChain([leaf, int, root], at: 1700000000, testAnchor: nil) } == .EJWS_CERT_TIME)
    }
}

extension String {
    func replacingFirst(_ a: Character, _ b: Character) -> String {
        guard let i = firstIndex(of: a) else { return self }
        var s = self
        s.replaceSubrange(i...i, with: String(b))
        return s
    }
}
