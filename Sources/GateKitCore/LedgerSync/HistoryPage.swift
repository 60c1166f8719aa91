import GateKitAppStoreAPI
import GateKitSupport

/// One page of an App Store Server API history answer, as the sync reads it: the signed
/// strings (verified later, one by one, by ingestion) and how to ask for the next page.
struct HistoryPage {
    var signed: [String]
    var hasMore: Bool
    /// Notification history: the next page's token. Transaction history: the revision. Nil
    /// when the server sent none, or one that could not be sent back (`unsendableNext`).
    var next: String?
    /// The server sent a token or revision too long (or otherwise impossible) to send back:
    /// it is never kept, and the caller starts over as after Apple's expired-token errors.
    var unsendableNext = false
    /// When the server answered (its `Date` header), when it said.
    var serverDate: Int64?

    /// Most signed items one page may hold. Apple sends at most 20; a page of more is a
    /// server's error, refused before anything in it is verified or a write lock is taken.
    static let maximumItems = 100

    /// Apple's NotificationHistoryResponse: {"notificationHistory":[{"signedPayload":…}],
    /// "hasMore":…,"paginationToken":…}.
    static func notifications(_ answer: AppStoreServerClient.Answer) throws(GateKitError) -> HistoryPage {
        let document = try body(answer)
        let records = try list(document, "notificationHistory")
        try checkCount(records.count, "notificationHistory")
        var signed: [String] = []
        for record in records {
            guard let payload = record["signedPayload"]?.stringValue else {
                throw GateKitError(.EAPPSTORE_RESPONSE, "a notificationHistory record has no signedPayload string")
            }
            signed.append(payload)
        }
        return try page(document, signed: signed, next: "paginationToken", serverDate: answer.serverDate)
    }

    /// Apple's HistoryResponse: {"signedTransactions":[…],"hasMore":…,"revision":…}.
    static func transactions(_ answer: AppStoreServerClient.Answer) throws(GateKitError) -> HistoryPage {
        let document = try body(answer)
        var signed: [String] = []
        let items = try list(document, "signedTransactions")
        try checkCount(items.count, "signedTransactions")
        for item in items {
            guard let s = item.stringValue else { throw GateKitError(.EAPPSTORE_RESPONSE, "signedTransactions holds a non-string") }
            signed.append(s)
        }
        return try page(document, signed: signed, next: "revision", serverDate: answer.serverDate)
    }

    /// Apple's StatusResponse: every group's last transactions, each a signed transaction and
    /// a signed renewal info.
    static func statuses(_ answer: AppStoreServerClient.Answer) throws(GateKitError) -> [(transaction: String?, renewal: String?)] {
        let document = try body(answer)
        var out: [(transaction: String?, renewal: String?)] = []
        for group in try list(document, "data") {
            for last in try list(group, "lastTransactions") {
                out.append((last["signedTransactionInfo"]?.stringValue, last["signedRenewalInfo"]?.stringValue))
                try checkCount(out.count, "data[].lastTransactions")
            }
        }
        return out
    }

    private static func body(_ answer: AppStoreServerClient.Answer) throws(GateKitError) -> JSONValue {
        guard let body = answer.body else { throw GateKitError(.EAPPSTORE_RESPONSE, "HTTP \(answer.httpStatus) without a body") }
        let document = try JSONParser.parse(Array(body.utf8))
        guard case .object = document else { throw GateKitError(.EAPPSTORE_RESPONSE, "the answer is not a JSON object") }
        return document
    }

    /// A list member; absent or null is an empty list (Apple omits empty lists).
    private static func list(_ document: JSONValue, _ name: String) throws(GateKitError) -> [JSONValue] {
        switch document[name] {
        case nil, .null?: return []
        case let .array(items)?: return items
        default: throw GateKitError(.EAPPSTORE_RESPONSE, "\(name) is not a list")
        }
    }

    private static func checkCount(_ count: Int, _ name: String) throws(GateKitError) {
        guard count <= maximumItems else {
            throw GateKitError(.EAPPSTORE_RESPONSE, "\(name) holds more than \(maximumItems) items (Apple sends at most 20 a page): nothing of this answer was recorded")
        }
    }

    private static func page(_ document: JSONValue, signed: [String], next name: String, serverDate: Int64?) throws(GateKitError) -> HistoryPage {
        let hasMore = document["hasMore"]?.boolValue ?? false
        let next = document[name]?.stringValue
        if hasMore, next?.isEmpty ?? true { throw GateKitError(.EAPPSTORE_RESPONSE, "hasMore without a \(name) to continue with") }
        guard let next, !next.isEmpty, !APIEndpoint.isSendable(next) else {
            return HistoryPage(signed: signed, hasMore: hasMore, next: next, serverDate: serverDate)
        }
        return HistoryPage(signed: signed, hasMore: hasMore, next: nil, unsendableNext: true, serverDate: serverDate)
    }
}
