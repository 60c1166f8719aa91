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

    /// What was ingested: each store's adapter declares its kinds (Ledger/Adapters/). Stable
    /// numbers (`rawValue`) and names; the first store's are `ledger_items.kind` (1-5), a later
    /// store's are kept in `ledger_items.store_kind` beside the nearest released number.
    public struct Kind: Sendable, Hashable {
        public let rawValue: Int64
        public let name: String
        /// The store whose data it is.
        public let store: PurchaseStore
        /// `ledger_items.kind`.
        package let storedKind: Int64

        package init(rawValue: Int64, name: String, store: PurchaseStore, storedKind: Int64? = nil) {
            self.rawValue = rawValue
            self.name = name
            self.store = store
            self.storedKind = storedKind ?? rawValue
        }

        public static func == (a: Kind, b: Kind) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// `ledger_items.store_kind`: nil for the kinds `ledger_items.kind` names itself.
        var storeKind: String? { storedKind == rawValue ? nil : name }

        public init?(rawValue: Int64) {
            guard let found = Kind.known.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = found
        }

        init?(stored kind: Int64, storeKind: String?) {
            guard let found = Kind.known.first(where: { storeKind == nil ? $0.rawValue == kind && $0.storeKind == nil : $0.name == storeKind })
            else { return nil }
            self = found
        }
    }

    public struct StatusChange: Sendable, Equatable {
        public let purchaseID: String
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
    public var notificationUUID: String?
    /// The original transaction ids the item is about, sorted.
    public let purchaseIDs: [String]
    public let appAccountToken: String?
    public let statusChanges: [StatusChange]
    /// The subscription (or purchase) the item's own versions are of: a replacing Play
    /// purchase also speaks of the one it replaced (`purchaseIDs`).
    public var subject: String?
    /// False when the store still waits for the purchase to be acknowledged (Play refunds a
    /// purchase not acknowledged within three days); nil where the store has no such step.
    public var acknowledged: Bool?

    /// The customer it touched: the app account token when the data carries one, else the
    /// item's own (or first) original transaction id.
    public var customer: String? { appAccountToken ?? subject ?? purchaseIDs.first }

    public var json: String {
        var members: [(String, JSONValue)] = [
            ("version", .number(JSONDocument.version)), ("outcome", .string(outcome.name)), ("kind", .string(kind.name)),
            ("environment", .string(scope.environment)), ("testSigned", .bool(scope.testData)), ("identity", .string(identity)),
            ("store", .string(kind.store.name)),
        ]
        if let acknowledged { members.append(("acknowledged", .bool(acknowledged))) }
        if let notificationType { members.append(("notificationType", .string(notificationType))) }
        if let subtype { members.append(("subtype", .string(subtype))) }
        if let notificationUUID { members.append(("notificationUUID", .string(notificationUUID))) }
        if let customer { members.append(("customer", .string(customer))) }
        if let appAccountToken { members.append(("appAccountToken", .string(appAccountToken))) }
        members.append(("originalTransactionIds", .array(purchaseIDs.map { .string($0) })))
        members.append(("statusChanges", .array(statusChanges.map { c in
            var o: [(String, JSONValue)] = [("originalTransactionId", .string(c.purchaseID))]
            if let g = c.groupID { o.append(("subscriptionGroupIdentifier", .string(g))) }
            o.append(("from", c.from.map { .number($0.rawValue) } ?? .null))
            o.append(("to", .number(c.to.rawValue)))
            return .object(o)
        })))
        return JSONWriter.serialize(.object(members))
    }
}
