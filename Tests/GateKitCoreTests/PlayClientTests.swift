import Testing
@testable import GateKitCrypto
@testable import GateKitHTTPS
@testable import GateKitPlayAPI
@testable import GateKitPlayData
import GateKitSupport
import GateKitTestData

/// The Play Developer API client's parts that need no server: each endpoint's request, Google's
/// error answers, the service account key file. The client against a server (tokens, retries,
/// deadlines, a wrong clock) is python/tests/test_play.py's, on the stand-in.
@Suite struct PlayClientTests {
    @Test func endpointsPercentEncodeTheirArgumentsIntoOneSegment() throws {
        let get = try PlayEndpoint.subscriptionGet(token: "a/b?c")
        #expect(get.method == "GET" && get.path == "/purchases/subscriptionsv2/tokens/a%2Fb%3Fc" && get.answersWithBody)
        let dots = try PlayEndpoint.productGet(productID: "..", token: ".")
        #expect(dots.path == "/purchases/products/%2E%2E/tokens/%2E", "no path traversal")
        let revoke = try PlayEndpoint.subscriptionRevoke(token: "t", request: Array(#"{"revocationContext":{"fullRefund":{}}}"#.utf8))
        #expect(revoke.method == "POST" && revoke.path.hasSuffix("/t:revoke") && !revoke.answersWithBody)
        #expect(try PlayEndpoint.subscriptionAcknowledge(subscriptionID: "s", token: "t", request: nil).body == Array("{}".utf8))
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.subscriptionRevoke(token: "t", request: nil) }
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.subscriptionCancel(token: "t", request: Array("[1]".utf8)) }
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.subscriptionGet(token: "") }
    }

    @Test func voidedPurchasesTakeOnlyGooglesQuery() throws {
        let list = try PlayEndpoint.voidedPurchases(query: Array(#"{"startTime":1,"type":1,"token":"n","includeQuantityBasedPartialRefund":true}"#.utf8))
        #expect(list.query.map { "\($0.0)=\($0.1)" } == ["startTime=1", "type=1", "token=n", "includeQuantityBasedPartialRefund=true"])
        for bad in [#"{"starttime":1}"#, #"{"startTime":"1"}"#, #"{"type":1.5}"#, #"{"token":""}"#, #"{"includeQuantityBasedPartialRefund":1}"#, "[]"] {
            #expect(throws: GateKitError.self, "\(bad)") { _ = try PlayEndpoint.voidedPurchases(query: Array(bad.utf8)) }
        }
        #expect(try PlayEndpoint.voidedPurchases(query: nil).query.isEmpty)
    }

    @Test func ordersBatchGetTakesOneToAThousandDistinctIDs() throws {
        #expect(try PlayEndpoint.ordersBatchGet(orderIDs: ["a", "b"]).query.map(\.1) == ["a", "b"])
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.ordersBatchGet(orderIDs: []) }
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.ordersBatchGet(orderIDs: ["a", "a"]) }
        #expect(throws: GateKitError.self) { _ = try PlayEndpoint.ordersBatchGet(orderIDs: (0...1000).map(String.init)) }
    }

    @Test func googlesErrorAnswersAreRead() {
        let body = Array(#"{"error":{"code":410,"message":"The subscription purchase is no longer available for query because it has been expired for too long.","status":"NOT_FOUND","errors":[{"domain":"androidpublisher","reason":"subscriptionNoLongerAvailable"}]}}"#.utf8)
        let gone = PlayFailure(HTTPResponse(status: 410, contentType: "application/json; charset=UTF-8", retryAfter: nil, body: body))
        #expect(gone.code == 410 && gone.status == "NOT_FOUND" && gone.reason == "subscriptionNoLongerAvailable" && !gone.isRetryable)
        let json = (try? JSONParser.parse(Array(gone.json.utf8))) ?? .null
        #expect(json["reason"]?.stringValue == "subscriptionNoLongerAvailable" && json["retryable"]?.boolValue == false)
        for status in [408, 409, 429, 500, 502, 503, 504] {
            #expect(PlayFailure(HTTPResponse(status: status, contentType: nil, retryAfter: nil, body: [])).isRetryable, "\(status)")
        }
        for status in [400, 401, 403, 404, 410, 501] {
            #expect(!PlayFailure(HTTPResponse(status: status, contentType: nil, retryAfter: nil, body: [])).isRetryable, "\(status)")
        }
        let html = PlayFailure(HTTPResponse(status: 502, contentType: "text/html", retryAfter: 3, body: Array("<html>".utf8)))
        #expect(html.code == nil && html.message == nil && html.retryAfter == 3)
    }

    @Test func aServiceAccountKeyIsReadAndItsSecretNeverQuoted() throws {
        let text = try TestServiceAccount.json(clientEmail: "a@b.iam.gserviceaccount.com", tokenURI: "https://127.0.0.1:1/token")
        let account = try ServiceAccountKey(json: Array(text.utf8))
        #expect(account.clientEmail == "a@b.iam.gserviceaccount.com" && account.tokenURI == "https://127.0.0.1:1/token")
        #expect(account.privateKeyID?.count == 40 && account.key.bits == 2048)
        let document = try JSONParser.parse(Array(text.utf8))
        let pem = try #require(document["private_key"]?.stringValue)
        let secretLine = String(pem.split(separator: "\n")[1].prefix(24))
        func message(_ change: (inout [(String, JSONValue)]) -> Void) -> String {
            guard case var .object(members) = document else { return "" }
            change(&members)
            do { _ = try ServiceAccountKey(json: Array(JSONWriter.serialize(.object(members)).utf8)); return "accepted" } catch { return "\(error.code) \(error.message)" }
        }
        let truncated = message { m in m = m.map { $0.0 == "private_key" ? ($0.0, .string(String(pem.dropLast(80)))) : $0 } }
        #expect(truncated.hasPrefix("EPLAY_KEY") && !truncated.contains(secretLine))
        #expect(message { m in m = m.map { $0.0 == "type" ? ($0.0, .string("authorized_user")) : $0 } }.hasPrefix("EPLAY_KEY"))
        #expect(message { m in m = m.map { $0.0 == "token_uri" ? ($0.0, .string("http://oauth2.example.com/token")) : $0 } }.hasPrefix("EPLAY_KEY"))
        #expect(message { m in m.removeAll { $0.0 == "client_email" } }.hasPrefix("EPLAY_KEY"))
        let notJSON = (try? ServiceAccountKey(json: Array(pem.utf8))) == nil
        #expect(notJSON)
    }
}
