/// Which store sold a purchase, and the facts of its data that the ledger's rules read. The core
/// asks a store these facts and never which store it is: each store's adapter declares its own
/// (Ledger/Adapters/), the way SQLite asks a VFS what it can do, never which one it is. A value is
/// one byte (every version carries one): its place in `PurchaseStore.declared`.
public struct PurchaseStore: Sendable, Hashable {
    let index: UInt8

    /// What a store's adapter declares.
    package struct Declaration: Sendable {
        /// Its name in answers, the change feed and metrics.
        package let name: String
        /// Its name as a report shows it.
        package let displayName: String
        /// `ledger_transactions.store`: nil for the rows of the store the ledger held first
        /// (every row written before a second store joined).
        package let code: String?
        /// The `gatekit_meta` key of the app a store's ledger is bound to, and what that app is
        /// called; nil when the store's data names no app.
        package let appBinding: String?
        package let appNoun: String
        /// What a customer report calls one of its subscriptions.
        package let subscriptionHeading: String
        package let rules: Rules

        package init(name: String, displayName: String, code: String?, appBinding: String?, appNoun: String,
                     subscriptionHeading: String, rules: Rules = Rules()) {
            self.name = name
            self.displayName = displayName
            self.code = code
            self.appBinding = appBinding
            self.appNoun = appNoun
            self.subscriptionHeading = subscriptionHeading
            self.rules = rules
        }
    }

    /// What the store's data is like, where stores differ.
    package struct Rules: Sendable {
        /// A transaction id is unique only within its purchase, so versions are keyed by both.
        package var keysTransactionsByPurchase = false
        /// A revocation holds from its instant though the store's later answers no longer say it.
        package var revocationsStay = false
        /// The store's state is the purchase's, not an item's: an item the newest answer no
        /// longer carries reads the state the store gave last.
        package var statesAreThePurchases = false
        /// Each answer lists every item the purchase still has (with `statesAreThePurchases`):
        /// an item the purchase's newest answer no longer lists was taken off by then (Stripe's
        /// item changes), so its access ends by that answer at the latest.
        package var answersListEveryItem = false
        /// A purchase may replace another (a chain): the replaced one is superseded while the
        /// replacing one is the newest known.
        package var purchasesReplaceOthers = false
        /// Each subscription line item of one purchase entitles on its own, by its group.
        package var lineItemsAreLanes = false
        /// The store dates a subscription, not each period: a period begins where the one before
        /// it ended (by expiry), and it is paid then.
        package var periodsFollowEachOther = false
        /// An ingestion's report names the purchase the item was about (`subject`).
        package var reportsSubject = false
        /// A purchase's product id is the entitlement it gives, by name: the catalog neither
        /// names, groups, types nor dates it.
        package var namesItsEntitlement = false
        /// The store answers a payment taken back (a refund, a chargeback) apart from the
        /// purchase: the ledger keeps it as a `PeriodRevocation` read with the purchase's record.
        package var revokedByOwnAnswers = false
        /// What the customer paid for: the metrics count it (revenue, subscribers, refunds).
        package var isSale = true

        package init() {}
    }

    /// The store an adapter declared (`Ledger/Adapters/Registry.swift` lists every declaration).
    package init(_ declaration: Declaration) {
        index = UInt8(truncatingIfNeeded: PurchaseStore.declared.firstIndex { $0.name == declaration.name } ?? Int(UInt8.max))
    }

    /// A code no adapter of this build declares (none is written: a newer schema refuses to
    /// open) reads as a store with no name of its own and no rule.
    private static let undeclared = Declaration(name: "unknown", displayName: "unknown", code: "", appBinding: "ledger_bundle_id", appNoun: "app",
                                                subscriptionHeading: "Subscription")

    package var declaration: Declaration { Int(index) < PurchaseStore.declared.count ? PurchaseStore.declared[Int(index)] : PurchaseStore.undeclared }

    public var name: String { Int(index) < PurchaseStore.names.count ? PurchaseStore.names[Int(index)] : PurchaseStore.undeclared.name }
    package var displayName: String { declaration.displayName }
    package var code: String? { Int(index) < PurchaseStore.codes.count ? PurchaseStore.codes[Int(index)] : PurchaseStore.undeclared.code }
    package var appBinding: String? { declaration.appBinding }
    package var appNoun: String { declaration.appNoun }
    /// Read for every version by the rules (and the name for every answer): kept apart from the
    /// declarations, so a look copies no declaration.
    package var rules: Rules { Int(index) < PurchaseStore.rulesByIndex.count ? PurchaseStore.rulesByIndex[Int(index)] : Rules() }

    private static let rulesByIndex = declared.map(\.rules)
    private static let codes = declared.map(\.code)
    private static let names = declared.map(\.name)

    /// The store whose rows carry `code` in `ledger_transactions.store` (read for every row).
    package init(stored code: String?) {
        var found = Int(UInt8.max)
        for (i, c) in PurchaseStore.codes.enumerated() where c == code {
            found = i
            break
        }
        index = UInt8(truncatingIfNeeded: found)
    }

    /// The store named `name` in answers, if this build holds one.
    package init?(name: String) {
        guard let found = PurchaseStore.declared.firstIndex(where: { $0.name == name }) else { return nil }
        index = UInt8(truncatingIfNeeded: found)
    }

    /// Every store this build declares.
    package static var known: [PurchaseStore] { declared.indices.map { PurchaseStore(index: UInt8(truncatingIfNeeded: $0)) } }

    private init(index: UInt8) { self.index = index }

    /// The codes of the stores whose data has `rule`, as an SQL list ('a', 'b'), or NULL.
    package static func codes(where rule: (Rules) -> Bool) -> String {
        let codes = declared.filter { rule($0.rules) }.compactMap(\.code)
        return codes.isEmpty ? "NULL" : codes.map { "'\($0)'" }.joined(separator: ", ")
    }
}
