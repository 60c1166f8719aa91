import GateKitSupport

/// The ledger's answer to "is this customer entitled to this product (or group) at this
/// instant?", with why, and until when.
public struct Entitlement: Sendable, Equatable {
    /// Why the customer is, or is not, entitled. Numbers are stable (the C header's
    /// GATEKIT_LEDGER_REASON_*): 1-9 entitle, 10 and up do not.
    public enum Reason: Int32, Sendable, CaseIterable {
        case subscription = 1        // an auto-renewable subscription period covers the instant
        case gracePeriod = 2         // billing failed, the store's billing grace period still runs
        case nonConsumable = 3       // a non-consumable purchase (no end)
        case nonRenewing = 4         // a non-renewing subscription covers the instant
        case noPurchase = 10         // nothing in the ledger matches
        case expired = 11            // the subscription (or non-renewing period) ended
        case billingRetry = 12       // billing failed, the store retries (or holds the account); no grace period left
        case revoked = 13            // refunded, or revoked (family sharing removed)
        case notYetPurchased = 14    // the purchase is after the instant
        case consumable = 15         // consumables never entitle
        case upgraded = 16           // upgraded to another product of its group
        case onlyTestSigned = 17     // nothing App Store-signed matches, but test-signed data does
        case unknownType = 18        // neither the data nor the catalog says what kind of product it is
        case unknownName = 19        // the catalog in effect names no such product, group or entitlement (a typo)
        case paused = 20             // the customer paused the subscription until the store bills again
        case pending = 21            // the store awaits payment (Play's pending purchase): no access until it completes
        case unknownCustomer = 22    // the ledger holds nothing of this customer, token or app account (in this part): not "bought nothing"

        public var entitles: Bool { rawValue < 10 }

        /// The name the JSON answers use ("no-purchase"), and C's ledger_reason_name.
        public var name: String { "\(staticName)" }

        public var staticName: StaticString {
            switch self {
            case .subscription: "subscription"
            case .gracePeriod: "grace-period"
            case .nonConsumable: "non-consumable"
            case .nonRenewing: "non-renewing"
            case .noPurchase: "no-purchase"
            case .expired: "expired"
            case .billingRetry: "billing-retry"
            case .revoked: "revoked"
            case .notYetPurchased: "not-yet-purchased"
            case .consumable: "consumable"
            case .upgraded: "upgraded"
            case .onlyTestSigned: "only-test-signed"
            case .unknownType: "unknown-type"
            case .unknownName: "unknown-name"
            case .paused: "paused"
            case .pending: "pending"
            case .unknownCustomer: "unknown-customer"
            }
        }
    }

    public var reason: Reason
    public var productID: String?
    public var groupID: String?
    public var transactionID: String?
    public var purchaseID: String?
    /// The subscription's status when the deciding transaction is an auto-renewable one.
    public var status: SubscriptionStatus?
    /// The deciding purchase reached this customer through Family Sharing.
    public var familyShared = false
    /// Purchase date of the deciding transaction.
    public var sinceMs: Int64?
    /// When it ends (expiry, or the grace period's end); nil: it does not end (or not entitled).
    public var untilMs: Int64?
    /// The entitlement names the host's catalog says the product grants ("pro"); nil: none
    /// (an optional: answers are copied often, and nil costs no reference count).
    public var grants: [String]?
    /// The subscription's period ended with auto-renew on, and nothing recorded since says
    /// whether it renewed: Apple's API can tell (a refresh), the ledger cannot yet.
    public var awaitsRenewal = false
    /// Whether the subscription renews at the end of its period, as its newest renewal intent
    /// says (auto-renew on or off); nil where that does not apply (not a subscription's current
    /// period, or the store did not say). The feed reports its changes (cancellation); answers'
    /// JSON leaves it out.
    public var willRenew: Bool?
    /// A refresh was asked for and gave no answer in time: this is the stored answer.
    public var stale = false
    /// For `unknownName`: the catalog's name nearest to the one asked about, if one is close.
    public var didYouMean: String?
    /// The store that sold the deciding purchase (nil without one).
    public var store: PurchaseStore?
    /// The store's own state name for it, as the store said it (Play's subscriptionState).
    public var storeState: String?
    /// False when the store still waits for the purchase to be acknowledged (Play refunds it
    /// after three days); nil where the store has no such step.
    public var acknowledged: Bool?

    public var isEntitled: Bool { reason.entitles }

    public static let none = Entitlement(reason: .noPurchase)

    public init(reason: Reason) { self.reason = reason }

    init(reason: Reason, transaction t: TransactionVersion, group: String?, status: SubscriptionStatus? = nil, untilMs: Int64? = nil) {
        self.reason = reason
        productID = t.productID
        groupID = group
        transactionID = t.transactionID
        purchaseID = t.purchaseID
        self.status = status
        familyShared = t.familyShared
        sinceMs = t.purchaseMs
        self.untilMs = reason.entitles ? untilMs : nil
        store = t.store
        storeState = t.storeState
        acknowledged = t.acknowledged
    }

    public var json: JSONValue { json(attribution: nil) }

    /// With who gave the deciding purchase by hand and why, when someone did
    /// (`Ledger.attribution(of:scope:)`: kept out of the answer itself, which every question
    /// copies several times).
    public func json(attribution: Attribution?) -> JSONValue {
        var members: [(String, JSONValue)] = [("entitled", .bool(isEntitled)), ("reason", .string(reason.name))]
        func add(_ key: String, _ value: String?) { if let value { members.append((key, .string(value))) } }
        func add(_ key: String, _ value: Int64?) { if let value { members.append((key, .number(value))) } }
        add("productId", productID)
        add("subscriptionGroupIdentifier", groupID)
        add("transactionId", transactionID)
        add("originalTransactionId", purchaseID)
        add("status", status?.rawValue)
        if productID != nil {
            members.append(("familyShared", .bool(familyShared)))
            if let store { members.append(("store", .string(store.name))) }
        }
        add("storeState", storeState)
        if let acknowledged { members.append(("acknowledged", .bool(acknowledged))) }
        add("grantedBy", attribution?.grantedBy)
        add("note", attribution?.note)
        add("since", sinceMs)
        add("until", untilMs)
        if let grants, !grants.isEmpty { members.append(("entitlements", .array(grants.map { .string($0) }))) }
        if stale { members.append(("stale", .bool(true))) }
        add("didYouMean", didYouMean)
        return .object(members)
    }
}
