import GateKitSupport

/// What one ingestion did: whether the item was new, already held, or held nothing newer than
/// the ledger had, and whom it was about.
public struct IngestReport: Sendable {
    /// Stable numbers (the C header's GATEKIT_LEDGER_*), returned by the ingest functions.
    public enum Outcome: Int32, Sendable {
        /// Recorded, and it brought something the ledger did not have.
        case new = 1
        /// Already recorded (the same signed content, or the same notificationUUID): nothing written.
        case duplicate = 2
        /// Recorded in the history, but every version it carries was already held or is older
        /// than one held: the state did not change.
        case superseded = 3

        public var name: String {
            switch self {
            case .new: "new"
            case .duplicate: "duplicate"
            case .superseded: "superseded"
            }
        }
    }

    /// What was ingested (the ledger_items.kind numbers).
    public enum Kind: Int64, Sendable {
        case notification = 1, transaction = 2, renewalInfo = 3, receipt = 4, appTransaction = 5

        public var name: String {
            switch self {
            case .notification: "notification"
            case .transaction: "transaction"
            case .renewalInfo: "renewal-info"
            case .receipt: "receipt"
            case .appTransaction: "app-transaction"
            }
        }
    }

    public struct StatusChange: Sendable, Equatable {
        public let originalTransactionID: String
        public let groupID: String?
        public let from: SubscriptionStatus?
        public let to: SubscriptionStatus
    }

    public let outcome: Outcome
    public let kind: Kind
    public let scope: LedgerScope
    public let identity: String
    public let notificationType: String?
    public let subtype: String?
    public let notificationUUID: String?
    /// The original transaction ids the item is about, sorted.
    public let originalTransactionIDs: [String]
    public let appAccountToken: String?
    public let statusChanges: [StatusChange]

    /// The customer it touched: the app account token when the data carries one, else the
    /// (first) original transaction id.
    public var customer: String? { appAccountToken ?? originalTransactionIDs.first }

    public var json: String {
        var members: [(String, JSONValue)] = [
            ("version", .number(JSONDocument.version)), ("outcome", .string(outcome.name)), ("kind", .string(kind.name)),
            ("environment", .string(scope.environment)), ("testSigned", .bool(scope.testSigned)), ("identity", .string(identity)),
        ]
        if let notificationType { members.append(("notificationType", .string(notificationType))) }
        if let subtype { members.append(("subtype", .string(subtype))) }
        if let notificationUUID { members.append(("notificationUUID", .string(notificationUUID))) }
        if let customer { members.append(("customer", .string(customer))) }
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken))) }
        members.append(("originalTransactionIds", .array(originalTransactionIDs.map { .string($0) })))
        members.append(("statusChanges", .array(statusChanges.map { c in
            var o: [(String, JSONValue)] = [("originalTransactionId", .string(c.originalTransactionID))]
            if let g = c.groupID { o.append(("subscriptionGroupIdentifier", .string(g))) }
            o.append(("from", c.from.map { .number($0.rawValue) } ?? .null))
            o.append(("to", .number(c.to.rawValue)))
            return .object(o)
        })))
        return JSONWriter.serialize(.object(members))
    }
}
