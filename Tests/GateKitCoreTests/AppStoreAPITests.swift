import COpenSSL
import Testing
@testable import GateKitAppStoreAPI
import GateKitHTTPS
@testable import GateKitAppStoreSigning
@testable import GateKitSupport

/// The request each App Store Server API endpoint makes, and how answers are read. (The
/// client against a live HTTPS server: Tests/c/test_appstore_api.c and python/tests/test_api_client.py.)
@Suite struct AppStoreAPITests {
    func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func percentEncodingKeepsAnArgumentInOneSegment() {
        #expect(PercentEncoding.encode("2000000123-abc_~.") == "2000000123-abc_~.")
        #expect(PercentEncoding.encode("a/b?c#d%e f") == "a%2Fb%3Fc%23d%25e%20f")
        #expect(PercentEncoding.encode("..") == "%2E%2E")
        #expect(PercentEncoding.encode(".") == "%2E")
        #expect(PercentEncoding.encode("é") == "%C3%A9")
    }

    @Test func pathsAreApples() throws {
        #expect(try APIEndpoint.getTransactionInfo(transactionID: "12").path == "/inApps/v1/transactions/12")
        #expect(try APIEndpoint.getAppTransactionInfo(transactionID: "12").path == "/inApps/v1/transactions/appTransactions/12")
        #expect(try APIEndpoint.finishTransaction(transactionID: "12").method == "POST")
        #expect(try APIEndpoint.getRefundHistory(transactionID: "12", revision: nil).path == "/inApps/v2/refund/lookup/12")
        #expect(try APIEndpoint.getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: "r", productID: "p").path
                == "/inApps/v1/subscriptions/extend/mass/p/r")
        #expect(try APIEndpoint.sendConsumptionData(transactionID: "1", request: body("{}")).path == "/inApps/v1/transactions/consumption/1")
        #expect(try APIEndpoint.sendConsumptionInformation(transactionID: "1", request: body("{}")).path == "/inApps/v2/transactions/consumption/1")
        #expect(APIEndpoint.deleteRealtimeURL().method == "DELETE")
        #expect(try APIEndpoint.uploadImage(identifier: "A1B2C3D4-E5F6-7890-A1B2-C3D4E5F67890", image: [1], imageSize: nil).path
                == "/inApps/v1/messaging/image/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
    }

    @Test func historyRequestBecomesApplesQuery() throws {
        let e = try APIEndpoint.getTransactionHistory(
            transactionID: "7", revision: "r1",
            request: body(#"{"startDate":1,"endDate":2,"productIds":["a","b"],"productTypes":["CONSUMABLE"],"sort":"ASCENDING","subscriptionGroupIdentifiers":["g"],"inAppOwnershipType":"PURCHASED","revoked":true}"#),
            version: 2)
        #expect(e.path == "/inApps/v2/history/7")
        #expect(e.query.map { "\($0.0)=\($0.1)" } == ["revision=r1", "startDate=1", "endDate=2", "productId=a", "productId=b", "productType=CONSUMABLE",
                                                      "sort=ASCENDING", "subscriptionGroupIdentifier=g", "inAppOwnershipType=PURCHASED", "revoked=true"])
        #expect(e.body == nil)
        // Null members are left out, as Apple's clients leave out what is not set.
        let nulls = try APIEndpoint.getTransactionHistory(transactionID: "7", revision: nil, request: body(#"{"startDate":null,"productIds":null}"#), version: 1)
        #expect(nulls.query.isEmpty && nulls.path == "/inApps/v1/history/7")
        // revoked as Apple's Python client writes it passes through; any other string is refused.
        let python = try APIEndpoint.getTransactionHistory(transactionID: "7", revision: nil, request: body(#"{"revoked":"False"}"#), version: 2)
        #expect(python.query.map { "\($0.0)=\($0.1)" } == ["revoked=False"])
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionHistory(transactionID: "7", revision: nil, request: self.body(#"{"revoked":"no"}"#), version: 2) }
    }

    @Test func aMissingAccountTokenRequestIsSentWithoutABody() throws {
        let bare = try APIEndpoint.setAppAccountToken(originalTransactionID: "49571273", request: nil)
        #expect(bare.method == "PUT" && bare.body == nil && bare.contentType == nil)
        let given = try APIEndpoint.setAppAccountToken(originalTransactionID: "49571273", request: body(#"{"appAccountToken":"x"}"#))
        #expect(given.body != nil && given.contentType == "application/json")
    }

    @Test func badArgumentsAreRefusedBeforeAnyRequest() {
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionInfo(transactionID: "") }
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionHistory(transactionID: "1", revision: nil, request: nil, version: 3) }
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionHistory(transactionID: "1", revision: nil, request: self.body(#"{"startDate":"x"}"#), version: 2) }
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionHistory(transactionID: "1", revision: nil, request: self.body(#"{"startDate":1.5}"#), version: 2) }
        #expect(throws: GateKitError.self) { try APIEndpoint.getTransactionHistory(transactionID: "1", revision: nil, request: self.body(#"{"sort":"ASCENDING","sort":"DESCENDING"}"#), version: 2) }
        #expect(throws: GateKitError.self) { try APIEndpoint.getAllSubscriptionStatuses(transactionID: "1", statuses: [0]) }
        #expect(throws: GateKitError.self) { try APIEndpoint.deleteImage(identifier: "a1b2c3d4e5f67890a1b2c3d4e5f678901234") }
        #expect(throws: GateKitError.self) { try APIEndpoint.uploadImage(identifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", image: [], imageSize: nil) }
        #expect(throws: GateKitError.self) { try APIEndpoint.configureRealtimeURL(request: self.body("[]")) }
        #expect(throws: GateKitError.self) { try APIEndpoint.configureRealtimeURL(request: self.body("{")) }
        let long = String(repeating: "1", count: APIEndpoint.maximumArgumentLength + 1)
        #expect(throws: GateKitError(.ETOOLARGE, "transaction_id is longer than 4096 bytes")) { try APIEndpoint.getTransactionInfo(transactionID: long) }
    }

    /// What a server sends is kept only if it can be sent back as an argument (Hardening IV, 1).
    @Test func onlyWhatCanBeSentBackIsSendable() throws {
        let limit = String(repeating: "x", count: APIEndpoint.maximumArgumentLength)
        #expect(APIEndpoint.isSendable(limit) && !APIEndpoint.isSendable(limit + "x") && !APIEndpoint.isSendable(""))
        #expect(!APIEndpoint.isSendable("a\u{0}b"))
        #expect(throws: GateKitError.self) { try APIEndpoint.getNotificationHistory(paginationToken: limit + "x", request: Array("{}".utf8)) }
        _ = try APIEndpoint.getNotificationHistory(paginationToken: limit, request: Array("{}".utf8))
    }

    @Test func theServersDateAndRetryAfterAreReadWhateverTheirSize() {
        #expect(HTTPHeaderValues.date("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777_000)
        #expect(HTTPHeaderValues.date("Sat, 28 Nov 2026 11:18:12 GMT") == 1_795_864_692_000)
        for bad in ["", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT "] {
            #expect(HTTPHeaderValues.date(bad) == nil, "\(bad)")
        }
        #expect(HTTPHeaderValues.retryAfterSeconds("120", serverDate: nil) == 120)
        #expect(HTTPHeaderValues.retryAfterSeconds("9000000000000000000", serverDate: nil) == 9_000_000_000_000_000_000)
        // More than 64 bits hold: the longest wait, never "absent" (then it would be retried at once).
        #expect(HTTPHeaderValues.retryAfterSeconds("1" + String(repeating: "0", count: 24), serverDate: nil) == .max)
        #expect(HTTPHeaderValues.retryAfterSeconds("Sun, 06 Nov 1994 08:51:37 GMT", serverDate: 784_111_777_000) == 120)
        #expect(HTTPHeaderValues.retryAfterSeconds("Sun, 06 Nov 1994 08:48:37 GMT", serverDate: 784_111_777_000) == 0)
        for bad in ["", "-5", "1.5", " 5", "soon"] { #expect(HTTPHeaderValues.retryAfterSeconds(bad, serverDate: nil) == nil, "\(bad)") }
    }

    @Test func errorAnswersAreReadAsApplesLibrariesDo() {
        let json = HTTPResponse(status: 404, contentType: "application/json; charset=utf-8", retryAfter: nil,
                                body: Array(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8))
        let failure = APIFailure(json)
        #expect(failure.errorCode == 4040010 && failure.errorMessage == "Transaction id not found." && !failure.isRetryable)
        #expect(failure.json == #"{"httpStatus":404,"errorCode":4040010,"errorMessage":"Transaction id not found.","retryable":false,"retryAfter":null}"#)
        // Not JSON by its content type: the status alone, as Apple's libraries do.
        let text = APIFailure(HTTPResponse(status: 500, contentType: "text/plain", retryAfter: nil, body: Array(#"{"errorCode":1}"#.utf8)))
        #expect(text.errorCode == nil && text.errorMessage == nil)
        #expect(APIFailure(HTTPResponse(status: 429, contentType: nil, retryAfter: 7, body: [])).isRetryable)
        for code: Int64 in [4040002, 4040004, 4040006, 5000001] {
            let body = Array(#"{"errorCode":\#(code),"errorMessage":"x"}"#.utf8)
            #expect(APIFailure(HTTPResponse(status: 500, contentType: "application/json", retryAfter: nil, body: body)).isRetryable)
        }
    }

    @Test func clientOptionsThatCannotBeUsedAreErrors() throws {
        let key = try testSigningKey()
        var options = AppStoreServerClient.Options(environment: .xcode)
        #expect(throws: GateKitError.self) { try AppStoreServerClient(key: key, options: options) }
        options.environment = .sandbox
        options.baseURL = "http://example.com"
        #expect(throws: GateKitError.self) { try AppStoreServerClient(key: key, options: options) }
        options.baseURL = "https://example.com/"
        #expect(try AppStoreServerClient(key: key, options: options).baseURL == "https://example.com")
        options.baseURL = nil
        #expect(try AppStoreServerClient(key: key, options: options).baseURL == "https://api.storekit-sandbox.apple.com")
        options.environment = .production
        #expect(try AppStoreServerClient(key: key, options: options).baseURL == "https://api.storekit.apple.com")
    }

    /// A P-256 key made by OpenSSL for this run, as a .p8 PEM.
    func testSigningKey() throws -> SigningKey {
        let context = try #require(EVP_PKEY_CTX_new_from_name(nil, "EC", nil))
        defer { EVP_PKEY_CTX_free(context) }
        #expect(EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_group_name(context, "P-256") == 1)
        var key: OpaquePointer?
        #expect(EVP_PKEY_generate(context, &key) == 1)
        let generated = try #require(key)
        defer { EVP_PKEY_free(generated) }
        let bio = try #require(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        #expect(PEM_write_bio_PKCS8PrivateKey(bio, generated, nil, nil, 0, nil, nil) == 1)
        var pem = [UInt8](repeating: 0, count: 1024)
        let n = Int(BIO_read(bio, &pem, Int32(pem.count)))
        return try pem[..<max(0, n)].withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: "I", bundleID: "com.example") }
    }
}
