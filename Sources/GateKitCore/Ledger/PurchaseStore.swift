/// Which store sold a purchase, and the facts of its data that the ledger's rules read. The core
/// asks a store these facts and never which store it is: each store's adapter declares its own
/// (Ledger/Adapters/), the way SQLite asks a VFS what it can do, never which one it is.
public struct PurchaseStore: Sendable, Hashable {
    /// Its name in answers, the change feed and metrics.
    public let name: String
    /// Its name as a report shows it.
    package let displayName: String
    /// `ledger_transactions.store`: nil for the rows of the store the ledger held first (every
    /// row written before a second store joined).
    package let code: String?
    /// The `ledger_meta` key of the app a store's ledger is bound to, and what that app is called.
    package let appBinding: String
    package let appNoun: String
    package let rules: Rules

    /// What the store's data is like, where stores differ.
    package struct Rules: Sendable {
        /// A transaction id is unique only within its purchase, so versions are keyed by both.
        package var keysTransactionsByPurchase = false
        /// A revocation holds from its instant though the store's later answers no longer say it.
        package var revocationsStay = false
        /// The store's state is the purchase's, not an item's: an item the newest answer no
        /// longer carries reads the state the store gave last.
        package var statesAreThePurchases = false
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

        package init() {}
    }

    package init(name: String, displayName: String, code: String?, appBinding: String, appNoun: String, rules: Rules = Rules()) {
        self.name = name
        self.displayName = displayName
        self.code = code
        self.appBinding = appBinding
        self.appNoun = appNoun
        self.rules = rules
    }

    public static func == (a: PurchaseStore, b: PurchaseStore) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The store whose rows carry `code` in `ledger_transactions.store`. A code no adapter of
    /// this build declares (none is written: a newer schema refuses to open) reads as a store of
    /// that name with no rule of its own.
    package init(stored code: String?) {
        self = PurchaseStore.known.first { $0.code == code }
            ?? PurchaseStore(name: code ?? "unknown", displayName: code ?? "unknown", code: code, appBinding: "ledger_bundle_id", appNoun: "app")
    }

    /// The store named `name` in answers, if this build holds one.
    package init?(name: String) {
        guard let found = PurchaseStore.known.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// The codes of the stores whose data has `rule`, as an SQL list ('a', 'b'), or NULL.
    package static func codes(where rule: (Rules) -> Bool) -> String {
        let codes = known.filter { rule($0.rules) }.compactMap(\.code)
        return codes.isEmpty ? "NULL" : codes.map { "'\($0)'" }.joined(separator: ", ")
    }
}
