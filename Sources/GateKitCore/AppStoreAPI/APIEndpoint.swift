import GateKitSupport

/// One request to the App Store Server API: method, path, query and body, built from the
/// arguments of one of Apple's endpoints (the names and paths of Apple's own client libraries;
/// developer.apple.com/documentation/appstoreserverapi). Path arguments are percent-encoded,
/// so an id can never change which resource is asked for.
public struct APIEndpoint: Sendable, Equatable {
    public let method: String
    public let path: String
    public let query: [(String, String)]
    public let body: [UInt8]?
    public let contentType: String?

    public static func == (a: APIEndpoint, b: APIEndpoint) -> Bool {
        a.method == b.method && a.path == b.path && a.body == b.body && a.contentType == b.contentType
            && a.query.count == b.query.count && zip(a.query, b.query).allSatisfy { $0 == $1 }
    }

    /// Longest path argument accepted (Apple's ids, tokens and UUIDs are under 200 bytes).
    public static let maximumArgumentLength = 4096
    /// Longest JSON request body accepted (Apple's largest, a notification history request, is small).
    public static let maximumBodyLength = 1 << 20
    /// Largest retention-messaging image accepted.
    public static let maximumImageLength = 16 << 20

    init(_ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil, contentType: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.contentType = contentType ?? (body == nil ? nil : "application/json")
    }

    // MARK: transactions and subscriptions

    public static func getTransactionInfo(transactionID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/transactions/\(try segment(transactionID, "transaction_id"))")
    }

    /// `version` 1 (deprecated by Apple) or 2; `request` is Apple's TransactionHistoryRequest as
    /// JSON (startDate, endDate, productIds, productTypes, sort, subscriptionGroupIdentifiers,
    /// inAppOwnershipType, revoked), sent as query parameters.
    public static func getTransactionHistory(transactionID: String, revision: String?, request: [UInt8]?, version: Int) throws(GateKitError) -> APIEndpoint {
        guard version == 1 || version == 2 else { throw .invalid("version must be 1 or 2, not \(version)") }
        var query: [(String, String)] = []
        if let revision { query.append(("revision", try text(revision, "revision"))) }
        query += try historyQuery(request)
        return APIEndpoint("GET", "/inApps/v\(version)/history/\(try segment(transactionID, "transaction_id"))", query: query)
    }

    /// `statuses`: Apple's subscription status numbers (1 active … 5 revoked); empty: all.
    public static func getAllSubscriptionStatuses(transactionID: String, statuses: [Int]) throws(GateKitError) -> APIEndpoint {
        for s in statuses where !(1...5).contains(s) { throw .invalid("a subscription status is 1 to 5 (Apple's Status), not \(s)") }
        return APIEndpoint("GET", "/inApps/v1/subscriptions/\(try segment(transactionID, "transaction_id"))",
                           query: statuses.map { ("status", String($0)) })
    }

    public static func getRefundHistory(transactionID: String, revision: String?) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v2/refund/lookup/\(try segment(transactionID, "transaction_id"))",
                    query: try revision.map { r throws(GateKitError) in [("revision", try text(r, "revision"))] } ?? [])
    }

    public static func lookUpOrderID(_ orderID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/lookup/\(try segment(orderID, "order_id"))")
    }

    public static func getAppTransactionInfo(transactionID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/transactions/appTransactions/\(try segment(transactionID, "transaction_id"))")
    }

    public static func finishTransaction(transactionID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("POST", "/inApps/v1/transactions/\(try segment(transactionID, "transaction_id"))/finish")
    }

    /// Consumption information, version 2 (Apple's ConsumptionRequest).
    public static func sendConsumptionInformation(transactionID: String, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v2/transactions/consumption/\(try segment(transactionID, "transaction_id"))", body: try object(request))
    }

    /// Consumption information, version 1 (Apple's ConsumptionRequestV1; deprecated by Apple).
    public static func sendConsumptionData(transactionID: String, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v1/transactions/consumption/\(try segment(transactionID, "transaction_id"))", body: try object(request))
    }

    /// `request` nil sends the PUT without a body, as Apple's clients do for a missing request:
    /// Apple's server answers with its error, which the caller sees as Apple's.
    public static func setAppAccountToken(originalTransactionID: String, request: [UInt8]?) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v1/transactions/\(try segment(originalTransactionID, "original_transaction_id"))/appAccountToken",
                    body: try request.map { b throws(GateKitError) in try object(b) })
    }

    public static func extendSubscriptionRenewalDate(originalTransactionID: String, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v1/subscriptions/extend/\(try segment(originalTransactionID, "original_transaction_id"))",
                    body: try object(request))
    }

    public static func extendRenewalDateForAllActiveSubscribers(request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("POST", "/inApps/v1/subscriptions/extend/mass", body: try object(request))
    }

    public static func getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: String, productID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/subscriptions/extend/mass/\(try segment(productID, "product_id"))/\(try segment(requestIdentifier, "request_identifier"))")
    }

    // MARK: notifications

    public static func getNotificationHistory(paginationToken: String?, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("POST", "/inApps/v1/notifications/history",
                    query: try paginationToken.map { t throws(GateKitError) in [("paginationToken", try text(t, "pagination_token"))] } ?? [],
                    body: try object(request))
    }

    public static func requestTestNotification() -> APIEndpoint { APIEndpoint("POST", "/inApps/v1/notifications/test") }

    public static func getTestNotificationStatus(token: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/notifications/test/\(try segment(token, "test_notification_token"))")
    }

    // MARK: retention messaging

    /// `imageSize`: Apple's ImageSize ("FULL_SIZE", "BULLET_POINT"), or nil.
    public static func uploadImage(identifier: String, image: [UInt8], imageSize: String?) throws(GateKitError) -> APIEndpoint {
        guard !image.isEmpty, image.count <= maximumImageLength else {
            throw GateKitError(image.isEmpty ? .EINVAL : .ETOOLARGE, "the image must be 1 to \(maximumImageLength) bytes, not \(image.count)")
        }
        if let imageSize, imageSize != "FULL_SIZE", imageSize != "BULLET_POINT" {
            throw .invalid("image_size must be \"FULL_SIZE\" or \"BULLET_POINT\" (Apple's ImageSize), not \(Quoted.text(imageSize))")
        }
        return APIEndpoint("PUT", "/inApps/v1/messaging/image/\(try uuid(identifier, "image_identifier"))",
                           query: imageSize.map { [("imageSize", $0)] } ?? [], body: image, contentType: "image/png")
    }

    public static func deleteImage(identifier: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("DELETE", "/inApps/v1/messaging/image/\(try uuid(identifier, "image_identifier"))")
    }

    public static func getImageList() -> APIEndpoint { APIEndpoint("GET", "/inApps/v1/messaging/image/list") }

    public static func uploadMessage(identifier: String, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v1/messaging/message/\(try uuid(identifier, "message_identifier"))", body: try object(request))
    }

    public static func deleteMessage(identifier: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("DELETE", "/inApps/v1/messaging/message/\(try uuid(identifier, "message_identifier"))")
    }

    public static func getMessageList() -> APIEndpoint { APIEndpoint("GET", "/inApps/v1/messaging/message/list") }

    public static func configureDefaultMessage(productID: String, locale: String, request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", try defaultMessagePath(productID, locale), body: try object(request))
    }

    public static func deleteDefaultMessage(productID: String, locale: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("DELETE", try defaultMessagePath(productID, locale))
    }

    public static func getDefaultMessage(productID: String, locale: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", try defaultMessagePath(productID, locale))
    }

    public static func configureRealtimeURL(request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("PUT", "/inApps/v1/messaging/realtime/url", body: try object(request))
    }

    public static func deleteRealtimeURL() -> APIEndpoint { APIEndpoint("DELETE", "/inApps/v1/messaging/realtime/url") }

    public static func getRealtimeURL() -> APIEndpoint { APIEndpoint("GET", "/inApps/v1/messaging/realtime/url") }

    public static func initiatePerformanceTest(request: [UInt8]) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("POST", "/inApps/v1/messaging/performanceTest", body: try object(request))
    }

    public static func getPerformanceTestResults(requestID: String) throws(GateKitError) -> APIEndpoint {
        APIEndpoint("GET", "/inApps/v1/messaging/performanceTest/result/\(try segment(requestID, "request_id"))")
    }

    // MARK: building blocks

    private static func defaultMessagePath(_ productID: String, _ locale: String) throws(GateKitError) -> String {
        "/inApps/v1/messaging/default/\(try segment(productID, "product_id"))/\(try segment(locale, "locale"))"
    }

    /// A non-empty argument of bounded length.
    /// Whether a value a server sent (a page token, a revision) can be sent back as an argument:
    /// a caller keeps nothing it could not send, or one answer would wedge it for good.
    public static func isSendable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= maximumArgumentLength && !value.utf8.contains(0)
    }

    private static func text(_ value: String, _ name: String) throws(GateKitError) -> String {
        guard !value.isEmpty else { throw .invalid("\(name) is empty") }
        guard value.utf8.count <= maximumArgumentLength else { throw GateKitError(.ETOOLARGE, "\(name) is longer than \(maximumArgumentLength) bytes") }
        return value
    }

    /// One path segment, percent-encoded: "/", "?", "#", "%" and ".." cannot escape it.
    private static func segment(_ value: String, _ name: String) throws(GateKitError) -> String {
        PercentEncoding.encode(try text(value, name))
    }

    /// Apple's retention-messaging identifiers are UUIDs.
    private static func uuid(_ value: String, _ name: String) throws(GateKitError) -> String {
        guard UUIDText.isValid(value) else {
            throw .invalid("\(name) must be a UUID (8-4-4-4-12 hex digits), not \(Quoted.text(value))")
        }
        return value.lowercased()
    }

    /// A JSON request body: one object, at most `maximumBodyLength` bytes, sent as given.
    private static func object(_ body: [UInt8]) throws(GateKitError) -> [UInt8] {
        guard body.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "the request JSON is longer than \(maximumBodyLength) bytes") }
        guard case .object = try requestJSON(body) else { throw .invalid("the request JSON must be an object") }
        return body
    }

    private static func requestJSON(_ body: [UInt8]) throws(GateKitError) -> JSONValue {
        do { return try JSONParser.parse(body) } catch { throw .invalid("the request is not JSON: \(error.message)") }
    }

    /// Apple's TransactionHistoryRequest members as query parameters (repeated for lists).
    private static func historyQuery(_ request: [UInt8]?) throws(GateKitError) -> [(String, String)] {
        guard let request else { return [] }
        guard request.count <= maximumBodyLength else { throw GateKitError(.ETOOLARGE, "the request JSON is longer than \(maximumBodyLength) bytes") }
        guard case let .object(members) = try requestJSON(request) else { throw .invalid("the transaction history request must be a JSON object") }
        var query: [(String, String)] = []
        var seen: Set<String> = []
        for (name, value) in members {
            guard seen.insert(name).inserted else { throw .invalid("the transaction history request names \(Quoted.text(name)) twice") }
            switch (name, value) {
            case (_, .null): continue
            case ("startDate", .number(let n)), ("endDate", .number(let n)):
                guard let ms = Int64(n) else { throw .invalid("\(name) must be whole milliseconds, not \(Quoted.text(n))") }
                query.append((name, String(ms)))
            case ("productIds", .array(let items)), ("productTypes", .array(let items)), ("subscriptionGroupIdentifiers", .array(let items)):
                let single = String(name.dropLast())  // Apple's query names are singular
                for item in items {
                    guard let s = item.stringValue else { throw .invalid("\(name) must hold strings") }
                    query.append((single, try text(s, name)))
                }
            case ("sort", .string(let s)), ("inAppOwnershipType", .string(let s)):
                query.append((name, try text(s, name)))
            case ("revoked", .bool(let b)):
                query.append((name, b ? "true" : "false"))
            case ("revoked", .string(let s)) where ["true", "false", "True", "False"].contains(s):
                query.append((name, s))  // as a client wrote it: Apple's Python client sends True / False
            default:
                throw .invalid("the transaction history request has \(Quoted.text(name)) of the wrong type or unknown to Apple's TransactionHistoryRequest")
            }
        }
        return query
    }
}
