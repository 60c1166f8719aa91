import GateKitSupport

/// The App Store as the ledger's rules see it: Apple signs every version of every purchase,
/// keys transactions by an id unique across the store, and dates each period itself. Its rows
/// carry no store code (the ledger held it first).
extension PurchaseStore.Declaration {
    package static let appStore = PurchaseStore.Declaration(name: "app-store", displayName: "App Store", code: nil,
                                                            appBinding: "ledger_bundle_id", appNoun: "app", subscriptionHeading: "Subscription")
}

extension PurchaseStore {
    package static let appStore = PurchaseStore(.appStore)
}

extension IngestReport.Kind {
    public static let notification = IngestReport.Kind(rawValue: 1, name: "notification", store: .appStore)
    public static let transaction = IngestReport.Kind(rawValue: 2, name: "transaction", store: .appStore)
    public static let renewalInfo = IngestReport.Kind(rawValue: 3, name: "renewal-info", store: .appStore)
    public static let receipt = IngestReport.Kind(rawValue: 4, name: "receipt", store: .appStore)
    public static let appTransaction = IngestReport.Kind(rawValue: 5, name: "app-transaction", store: .appStore)
}

/// The ledger's two environments are Apple's (Production, Sandbox): every store's data is
/// kept in one of them (Google's in Production, its test purchases as test data).
public typealias LedgerEnvironment = AppStoreEnvironment
