/// Stripe Billing as the ledger's rules see it (docs/ledger.md, "Stripe"): a subscription's
/// status is the subscription's, each item (a price of a product) entitles on its own, an item
/// the newest answer no longer lists was taken off then (an item change: an upgrade, a
/// downgrade, an add-on removed), and Stripe dates the subscription's current period, not each
/// period paid before; a refund or a dispute is a Charge's or a Dispute's answer, tied to what
/// its payment paid for by an Invoice's or a Checkout Session's. Its objects name no app: a
/// ledger binds to none.
extension PurchaseStore.Declaration {
    package static let stripe: PurchaseStore.Declaration = {
        var rules = PurchaseStore.Rules()
        rules.statesAreThePurchases = true
        rules.lineItemsAreLanes = true
        rules.answersListEveryItem = true
        rules.periodsFollowEachOther = true
        rules.reportsSubject = true
        rules.revokedByOwnAnswers = true
        return PurchaseStore.Declaration(name: "stripe", displayName: "Stripe", code: "stripe", appBinding: nil,
                                         appNoun: "Stripe account", subscriptionHeading: "Stripe subscription", rules: rules)
    }()
}

extension PurchaseStore {
    package static let stripe = PurchaseStore(.stripe)
}

extension IngestReport.Kind {
    /// What Stripe's API answered for a Subscription or a Checkout Session: kept in
    /// `ledger_items.store_kind` beside the nearest released kind (a transaction).
    public static let stripeSubscription = IngestReport.Kind(rawValue: 10, name: "stripe-subscription", store: .stripe, storedKind: 2)
    public static let stripeCheckoutSession = IngestReport.Kind(rawValue: 11, name: "stripe-checkout-session", store: .stripe, storedKind: 2)
    /// What Stripe's API answered for an Invoice (what its payments paid for), a Charge (its
    /// refunds) or a Dispute.
    public static let stripeInvoice = IngestReport.Kind(rawValue: 12, name: "stripe-invoice", store: .stripe, storedKind: 2)
    public static let stripeCharge = IngestReport.Kind(rawValue: 13, name: "stripe-charge", store: .stripe, storedKind: 2)
    public static let stripeDispute = IngestReport.Kind(rawValue: 14, name: "stripe-dispute", store: .stripe, storedKind: 2)
}
