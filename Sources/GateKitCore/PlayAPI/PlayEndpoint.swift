import GateKitSupport

/// One request of the Play Developer API (Android Publisher v3,
/// developers.google.com/android-publisher/api-ref/rest): method, path below
/// `/androidpublisher/v3/applications/{packageName}`, query and body. Path arguments are
/// percent-encoded, so a value is always one segment.
public struct PlayEndpoint: Sendable {
    public let method: String
    /// After the package: "/purchases/subscriptionsv2/tokens/<token>".
    public let path: String
    public let query: [(String, String)]
    public let body: [UInt8]?
    /// Whether a success answer carries a JSON object (gets); the others answer empty.
    public let answersWithBody: Bool

    /// Request objects are small; 1 MiB is the limit the App Store client has too.
    public static let maximumBodyLength = 1 << 20

    private static func segment(_ value: String, _ name: String) throws(GateKitError) -> String {
        guard !value.isEmpty, value.utf8.count <= 4096 else { throw .invalid("\(name) must be 1 to 4096 bytes") }
        return PercentEncoding.encode(value)
    }

    /// A request object: JSON text of one object (`nil` sends `{}` where Google accepts an empty body).
    private static func object(_ body: [UInt8]?, _ name: String, required: Bool) throws(GateKitError) -> [UInt8] {
        guard let body else {
            if required { throw .invalid("\(name) is NULL: Google's request object is required") }
            return Array("{}".utf8)
        }
        guard body.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "\(name) is longer than \(maximumBodyLength) bytes") }
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(body) } catch { throw .invalid("\(name) is not JSON: \(error.message)") }
        guard case .object = parsed else { throw .invalid("\(name) is not a JSON object") }
        return body
    }

    private init(_ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil, answersWithBody: Bool) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.answersWithBody = answersWithBody
    }

    private static func subscriptionV2(_ token: String) throws(GateKitError) -> String {
        "/purchases/subscriptionsv2/tokens/" + (try segment(token, "purchase_token"))
    }

    public static func subscriptionGet(token: String) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("GET", try subscriptionV2(token), answersWithBody: true)
    }

    public static func subscriptionRevoke(token: String, request: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", try subscriptionV2(token) + ":revoke", body: try object(request, "request_json", required: true), answersWithBody: false)
    }

    public static func subscriptionCancel(token: String, request: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", try subscriptionV2(token) + ":cancel", body: try object(request, "request_json", required: true), answersWithBody: false)
    }

    /// subscriptionsv2.defer: its request body is not in the stored docs, so it is sent as
    /// given, and the answer (the new expiry times) returned as sent.
    public static func subscriptionDefer(token: String, request: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", try subscriptionV2(token) + ":defer", body: try object(request, "request_json", required: true), answersWithBody: false)
    }

    public static func subscriptionAcknowledge(subscriptionID: String, token: String, request: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", "/purchases/subscriptions/\(try segment(subscriptionID, "subscription_id"))/tokens/\(try segment(token, "purchase_token")):acknowledge",
                     body: try object(request, "request_json", required: false), answersWithBody: false)
    }

    private static func product(_ productID: String, _ token: String) throws(GateKitError) -> String {
        "/purchases/products/\(try segment(productID, "product_id"))/tokens/\(try segment(token, "purchase_token"))"
    }

    public static func productGet(productID: String, token: String) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("GET", try product(productID, token), answersWithBody: true)
    }

    public static func productGetV2(token: String) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("GET", "/purchases/productsv2/tokens/" + (try segment(token, "purchase_token")), answersWithBody: true)
    }

    public static func productAcknowledge(productID: String, token: String, request: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", try product(productID, token) + ":acknowledge", body: try object(request, "request_json", required: false), answersWithBody: false)
    }

    public static func productConsume(productID: String, token: String) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("POST", try product(productID, token) + ":consume", body: nil, answersWithBody: false)
    }

    /// The query members voidedpurchases.list takes, and their JSON types.
    static let voidedQueryMembers: [String: String] = ["startTime": "integer", "endTime": "integer", "type": "integer", "maxResults": "integer",
                                                        "token": "string", "startIndex": "integer", "includeQuantityBasedPartialRefund": "boolean"]

    public static func voidedPurchases(query: [UInt8]?) throws(GateKitError) -> PlayEndpoint {
        var parameters: [(String, String)] = []
        if let query {
            guard query.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "query_json is longer than \(maximumBodyLength) bytes") }
            let parsed: JSONValue
            do { parsed = try JSONParser.parse(query) } catch { throw .invalid("query_json is not JSON: \(error.message)") }
            guard case let .object(members) = parsed else { throw .invalid("query_json is not a JSON object") }
            for (name, value) in members {
                switch (voidedQueryMembers[name], value) {
                case let ("integer"?, .number(text)) where Int64(text) != nil: parameters.append((name, text))
                case let ("string"?, .string(text)) where !text.isEmpty: parameters.append((name, text))
                case let ("boolean"?, .bool(flag)): parameters.append((name, flag ? "true" : "false"))
                case (nil, _):
                    let names = voidedQueryMembers.keys.sorted().joined(separator: ", ")
                    throw .invalid("query_json has \(Quoted.text(name)); voidedpurchases.list takes \(names)")
                case let (type?, _): throw .invalid("query_json's \(name) must be a\(type == "integer" ? "n" : "") \(type)")
                }
            }
        }
        return PlayEndpoint("GET", "/purchases/voidedpurchases", query: parameters, answersWithBody: true)
    }

    public static func orderGet(orderID: String) throws(GateKitError) -> PlayEndpoint {
        PlayEndpoint("GET", "/orders/" + (try segment(orderID, "order_id")), answersWithBody: true)
    }

    public static func ordersBatchGet(orderIDs: [String]) throws(GateKitError) -> PlayEndpoint {
        guard (1...1000).contains(orderIDs.count) else { throw .invalid("orders.batchget takes 1 to 1000 order ids, not \(orderIDs.count)") }
        guard Set(orderIDs).count == orderIDs.count else { throw .invalid("order_ids repeat an id: orders.batchget takes distinct ids") }
        for id in orderIDs { _ = try segment(id, "order_ids[]") }
        return PlayEndpoint("GET", "/orders:batchGet", query: orderIDs.map { ("orderIds", $0) }, answersWithBody: true)
    }
}
