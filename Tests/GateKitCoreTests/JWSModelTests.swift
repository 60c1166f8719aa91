import Testing
@testable import GateKitJWS
@testable import GateKitSupport

/// Every decoded field of Apple's model payloads (app-store-server-library's models/*.json),
/// signed at test time with the test PKI. The models date from 2023, after the throw-away
/// certificates' validity starts, so the caller's time (now) is passed.
@Suite struct JWSModelTests {
    static let chain = ["leaf", "int", "root"]

    static func model(_ name: String) -> String? {
        JWSTestFiles.fixture("jws/apple-test/models/\(name).json").map { String(decoding: $0, as: UTF8.self) }
    }

    static func options(_ pki: JWSTestPKI, environment: AppStoreEnvironment = .localTesting, appAppleID: Int64? = nil) -> JWSOptions? {
        JWSOptions.test(pki.der("root"), environment: environment, appAppleID: appAppleID, at: nowSeconds())
    }

    /// A notification model with its placeholder nested strings replaced by real signed data.
    static func notification(_ name: String, _ pki: JWSTestPKI) -> String? {
        guard var text = model(name), let t = model("signedTransaction"), let r = model("signedRenewalInfo"),
              let a = model("appTransaction") else { return nil }
        text = text.replacingOccurrences("\"signed_transaction_info_value\"", "\"" + pki.sign(t, chain: chain) + "\"")
        text = text.replacingOccurrences("\"signed_renewal_info_value\"", "\"" + pki.sign(r, chain: chain) + "\"")
        text = text.replacingOccurrences("\"signed_app_transaction_info_value\"", "\"" + pki.sign(a, chain: chain) + "\"")
        return pki.sign(text, chain: chain)
    }

    static func checkTransaction(_ t: JWSTransaction) {
        #expect(t.transactionId == "23456")
        #expect(t.originalTransactionId == "12345")
        #expect(t.webOrderLineItemId == "34343")
        #expect(t.bundleId == "com.example")
        #expect(t.productId == "com.example.product")
        #expect(t.subscriptionGroupIdentifier == "55555")
        #expect(t.purchaseDate == 1698148900000)
        #expect(t.originalPurchaseDate == 1698148800000)
        #expect(t.expiresDate == 1698149000000)
        #expect(t.quantity == 1)
        #expect(t.type == "Auto-Renewable Subscription")
        #expect(t.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(t.inAppOwnershipType == "PURCHASED")
        #expect(t.signedDate == 1698148900000)
        #expect(t.revocationReason == 1)
        #expect(t.revocationDate == 1698148950000)
        #expect(t.isUpgraded == true)
        #expect(t.offerType == 1)
        #expect(t.offerIdentifier == "abc.123")
        #expect(t.environment == "LocalTesting")
        #expect(t.transactionReason == "PURCHASE")
        #expect(t.storefront == "USA")
        #expect(t.storefrontId == "143441")
        #expect(t.price == 10990)
        #expect(t.currency == "USD")
        #expect(t.offerDiscountType == "PAY_AS_YOU_GO")
        #expect(t.appTransactionId == "71134")
        #expect(t.offerPeriod == "P1Y")
        #expect(t.billingPlanType == "MONTHLY")
        #expect(t.revocationType == nil)
        #expect(t.revocationPercentage == nil)
        #expect(t.advancedCommerceInfo?["taxRate"] == .string("0.15"))
        #expect(t.advancedCommerceInfo?["estimatedTax"] == .number("1500"))
        #expect(t.advancedCommerceInfo?["items"].flatMap { if case let .array(a) = $0 { a.first?["refunds"] } else { nil } } != nil)
        #expect(t.commitmentInfo?["totalBillingPeriods"] == .number("12"))
        #expect(t.commitmentInfo?["commitmentPrice"] == .number("119880"))
        #expect(!t.isEntitled(at: 1698148920000))   // revoked
    }

    static func checkRenewal(_ r: JWSRenewalInfo) {
        #expect(r.expirationIntent == 1)
        #expect(r.originalTransactionId == "12345")
        #expect(r.autoRenewProductId == "com.example.product.2")
        #expect(r.productId == "com.example.product")
        #expect(r.autoRenewStatus == 1)
        #expect(r.isInBillingRetryPeriod == true)
        #expect(r.priceIncreaseStatus == 0)
        #expect(r.gracePeriodExpiresDate == 1698148900000)
        #expect(r.offerType == 2)
        #expect(r.offerIdentifier == "abc.123")
        #expect(r.signedDate == 1698148800000)
        #expect(r.environment == "LocalTesting")
        #expect(r.recentSubscriptionStartDate == 1698148800000)
        #expect(r.renewalDate == 1698148850000)
        #expect(r.renewalPrice == 9990)
        #expect(r.currency == "USD")
        #expect(r.offerDiscountType == "PAY_AS_YOU_GO")
        #expect(r.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(r.appTransactionId == "71134")
        #expect(r.offerPeriod == "P1Y")
        #expect(r.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(r.renewalBillingPlanType == "MONTHLY")
        #expect(r.advancedCommerceInfo?["consistencyToken"] == .string("token-abc-123"))
        #expect(r.commitmentInfo?["commitmentRenewalDate"] == .number("1698149500000"))
    }

    static func checkAppTransaction(_ a: AppTransaction) {
        #expect(a.receiptType == "LocalTesting")
        #expect(a.appAppleId == 531412)
        #expect(a.bundleId == "com.example")
        #expect(a.applicationVersion == "1.2.3")
        #expect(a.versionExternalIdentifier == 512)
        #expect(a.receiptCreationDate == 1698148900000)
        #expect(a.originalPurchaseDate == 1698148800000)
        #expect(a.originalApplicationVersion == "1.1.2")
        #expect(a.deviceVerification == "device_verification_value")
        #expect(a.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
        #expect(a.preorderDate == 1698148700000)
        #expect(a.appTransactionId == "71134")
        #expect(a.originalPlatform == "iOS")
    }

    @Test func transactionModel() throws {
        guard let pki = JWSTestPKI.shared, let text = Self.model("signedTransaction"), let options = Self.options(pki) else { return }
        Self.checkTransaction(try JWSVerifier.verifyTransaction(Array(pki.sign(text, chain: Self.chain).utf8), options: options))
    }

    @Test func renewalInfoModel() throws {
        guard let pki = JWSTestPKI.shared, let text = Self.model("signedRenewalInfo"), let options = Self.options(pki) else { return }
        Self.checkRenewal(try JWSVerifier.verifyRenewalInfo(Array(pki.sign(text, chain: Self.chain).utf8), options: options))
    }

    @Test func appTransactionModel() throws {
        guard let pki = JWSTestPKI.shared, let text = Self.model("appTransaction"), let options = Self.options(pki) else { return }
        Self.checkAppTransaction(try JWSVerifier.verifyAppTransaction(Array(pki.sign(text, chain: Self.chain).utf8), options: options))
        // In Production the app Apple id must match (and receiptType must be Production).
        guard let production = Self.options(pki, environment: .production, appAppleID: 999) else { return }
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyAppTransaction(Array(pki.sign(text, chain: Self.chain).utf8), options: production) } == .EJWS_APP_APPLE_ID)
    }

    @Test func notificationModelWithNestedSignedData() throws {
        guard let pki = JWSTestPKI.shared, let jws = Self.notification("signedNotification", pki), let options = Self.options(pki) else { return }
        let v = try JWSVerifier.verifyNotification(Array(jws.utf8), options: options)
        let n = v.notification
        #expect(n.notificationType == "SUBSCRIBED")
        #expect(n.subtype == "INITIAL_BUY")
        #expect(n.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(n.version == "2.0")
        #expect(n.signedDate == 1698148900000)
        #expect(n.data?.environment == "LocalTesting")
        #expect(n.data?.appAppleId == 41234)
        #expect(n.data?.bundleId == "com.example")
        #expect(n.data?.bundleVersion == "1.2.3")
        #expect(n.data?.status == 1)
        #expect(n.summary == nil && n.externalPurchaseToken == nil && n.appData == nil)
        if let t = v.transaction { Self.checkTransaction(t) } else { Issue.record("nested transaction missing") }
        if let r = v.renewalInfo { Self.checkRenewal(r) } else { Issue.record("nested renewal info missing") }
        // The JSON output carries the nested payloads decoded, after their signed strings.
        guard case let .object(members) = v.json["data"] ?? .null else { Issue.record("no data"); return }
        let keys = members.map(\.0)
        #expect(keys == ["environment", "appAppleId", "bundleId", "bundleVersion", "signedTransactionInfo", "transactionInfo",
                         "signedRenewalInfo", "renewalInfo", "status"])
        #expect(v.json["data"]?["transactionInfo"]?["transactionId"] == .string("23456"))
    }

    @Test func consumptionRequestModel() throws {
        guard let pki = JWSTestPKI.shared, let jws = Self.notification("signedConsumptionRequestNotification", pki),
              let options = Self.options(pki) else { return }
        let v = try JWSVerifier.verifyNotification(Array(jws.utf8), options: options)
        #expect(v.notification.notificationType == "CONSUMPTION_REQUEST")
        #expect(v.notification.subtype == nil)
        #expect(v.notification.data?.consumptionRequestReason == "UNINTENDED_PURCHASE")
        #expect(v.notification.data?.status == 1)
    }

    @Test func summaryModel() throws {
        guard let pki = JWSTestPKI.shared, let jws = Self.notification("signedSummaryNotification", pki),
              let options = Self.options(pki) else { return }
        let n = try JWSVerifier.verifyNotification(Array(jws.utf8), options: options).notification
        #expect(n.notificationType == "RENEWAL_EXTENSION")
        #expect(n.subtype == "SUMMARY")
        #expect(n.data == nil)
        let s = n.summary
        #expect(s?.environment == "LocalTesting")
        #expect(s?.appAppleId == 41234)
        #expect(s?.bundleId == "com.example")
        #expect(s?.productId == "com.example.product")
        #expect(s?.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(s?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(s?.succeededCount == 5)
        #expect(s?.failedCount == 2)
    }

    @Test func externalPurchaseTokenModels() throws {
        guard let pki = JWSTestPKI.shared,
              let production = Self.notification("signedExternalPurchaseTokenNotification", pki),
              let sandbox = Self.notification("signedExternalPurchaseTokenSandboxNotification", pki),
              let productionOptions = Self.options(pki, environment: .production, appAppleID: 55555),
              let sandboxOptions = Self.options(pki, environment: .sandbox),
              let wrongApp = Self.options(pki, environment: .production, appAppleID: 55556) else { return }
        // No "SANDBOX" prefix: the environment is Production.
        let p = try JWSVerifier.verifyNotification(Array(production.utf8), options: productionOptions).notification
        #expect(p.notificationType == "EXTERNAL_PURCHASE_TOKEN")
        #expect(p.subtype == "UNREPORTED")
        #expect(p.externalPurchaseToken?.externalPurchaseId == "b2158121-7af9-49d4-9561-1f588205523e")
        #expect(p.externalPurchaseToken?.tokenCreationDate == 1698148950000)
        #expect(p.externalPurchaseToken?.appAppleId == 55555)
        #expect(p.externalPurchaseToken?.bundleId == "com.example")
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(Array(production.utf8), options: sandboxOptions) } == .EJWS_ENVIRONMENT)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(Array(production.utf8), options: wrongApp) } == .EJWS_APP_APPLE_ID)
        let s = try JWSVerifier.verifyNotification(Array(sandbox.utf8), options: sandboxOptions).notification
        #expect(s.externalPurchaseToken?.externalPurchaseId == "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e")
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(Array(sandbox.utf8), options: productionOptions) } == .EJWS_ENVIRONMENT)
    }

    @Test func appDataModel() throws {
        guard let pki = JWSTestPKI.shared, let jws = Self.notification("signedRescindConsentNotification", pki),
              let options = Self.options(pki) else { return }
        let v = try JWSVerifier.verifyNotification(Array(jws.utf8), options: options)
        #expect(v.notification.notificationType == "RESCIND_CONSENT")
        #expect(v.notification.appData?.appAppleId == 41234)
        #expect(v.notification.appData?.bundleId == "com.example")
        #expect(v.notification.appData?.environment == "LocalTesting")
        if let a = v.appTransaction { Self.checkAppTransaction(a) } else { Issue.record("nested app transaction missing") }
        #expect(v.json["appData"]?["appTransactionInfo"]?["appTransactionId"] == .string("71134"))
        // appData.json (the bare model, Sandbox) as an appData notification of its own.
        guard let appData = Self.model("appData") else { return }
        let wrapped = "{\"notificationType\":\"RESCIND_CONSENT\",\"appData\":" + appData.replacingOccurrences("\"signed-app-transaction-info\"", "null") + "}"
        guard let sandbox = Self.options(pki, environment: .sandbox) else { return }
        let w = try JWSVerifier.verifyNotification(Array(pki.sign(wrapped, chain: Self.chain).utf8), options: sandbox)
        #expect(w.notification.appData?.appAppleId == 987654321)
        #expect(w.notification.appData?.environment == "Sandbox")
    }

    @Test func nestedFailuresFailTheNotification() throws {
        guard let pki = JWSTestPKI.shared, let text = Self.model("signedNotification"), let options = Self.options(pki) else { return }
        // The placeholder strings Apple's models carry are not signed data.
        let jws = pki.sign(text, chain: Self.chain)
        do {
            _ = try JWSVerifier.verifyNotification(Array(jws.utf8), options: options)
            Issue.record("accepted an unsigned nested transaction")
        } catch {
            #expect(error.code == .EJWS_MALFORMED)
            #expect(error.message.hasPrefix("data.signedTransactionInfo: "))
        }
        // A nested transaction for another bundle id.
        guard let t = Self.model("signedTransaction"), let r = Self.model("signedRenewalInfo") else { return }
        let other = pki.sign(t.replacingOccurrences("\"bundleId\":\"com.example\"", "\"bundleId\":\"com.other\""), chain: Self.chain)
        let n = text.replacingOccurrences("\"signed_transaction_info_value\"", "\"\(other)\"")
            .replacingOccurrences("\"signed_renewal_info_value\"", "\"" + pki.sign(r, chain: Self.chain) + "\"")
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(Array(pki.sign(n, chain: Self.chain).utf8), options: options) } == .EJWS_BUNDLE_ID)
    }
}
