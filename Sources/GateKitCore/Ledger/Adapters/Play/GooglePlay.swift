/// Google Play as the ledger's rules see it (docs/ledger.md, "Google Play"): an order id is
/// unique within its purchase token, Google never takes a void back though its later answers
/// no longer say it, a subscription's state is its token's, a plan change or re-signup makes a
/// new token naming the old, each line item (an add-on) entitles on its own, and Google dates a
/// subscription, not each order's period.
extension PurchaseStore.Declaration {
    package static let play: PurchaseStore.Declaration = {
        var rules = PurchaseStore.Rules()
        rules.keysTransactionsByPurchase = true
        rules.revocationsStay = true
        rules.statesAreThePurchases = true
        rules.purchasesReplaceOthers = true
        rules.lineItemsAreLanes = true
        rules.periodsFollowEachOther = true
        rules.reportsSubject = true
        return PurchaseStore.Declaration(name: "play", displayName: "Google Play", code: "play", appBinding: "ledger_play_package",
                                         appNoun: "Google Play package", subscriptionHeading: "Google Play subscription", rules: rules)
    }()
}

extension PurchaseStore {
    package static let play = PurchaseStore(.play)
}

extension IngestReport.Kind {
    /// What the Play Developer API answered for a subscription or a one-time product, and an
    /// RTDN with the answer it led the ledger to ask for: kept in `ledger_items.store_kind`
    /// beside the nearest released kind (the column's CHECK allows only 1-5).
    public static let playSubscription = IngestReport.Kind(rawValue: 6, name: "play-subscription", store: .play, storedKind: 2)
    public static let playProduct = IngestReport.Kind(rawValue: 7, name: "play-product", store: .play, storedKind: 2)
    public static let playNotification = IngestReport.Kind(rawValue: 8, name: "play-notification", store: .play, storedKind: 1)
}
