/// Which store sold a purchase. One ledger holds both: the rules decide on the store-neutral
/// model, and every answer names the store its deciding purchase came from. Stored as NULL
/// (the App Store, every row written before Google Play joined) or "play".
public enum PurchaseStore: String, Sendable, CaseIterable {
    case appStore = "app-store"
    case play

    /// The store's name as a report shows it.
    package var displayName: String { self == .play ? "Google Play" : "App Store" }

    /// `ledger_transactions.store`.
    var stored: String? { self == .play ? "play" : nil }

    init(stored: String?) { self = stored == "play" ? .play : .appStore }
}
