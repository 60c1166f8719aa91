/// Support grants as the ledger's rules see them (docs/ledger.md, "Support grants"): an
/// entitlement a person gave a customer by hand, from an instant for a duration or for good,
/// revoked early by a later version. Its product id is the entitlement's name, nobody paid for
/// it (the metrics never count it), and it names no app (a grant binds the ledger to none).
extension PurchaseStore.Declaration {
    package static let grant: PurchaseStore.Declaration = {
        var rules = PurchaseStore.Rules()
        rules.namesItsEntitlement = true
        rules.isSale = false
        rules.reportsSubject = true
        return PurchaseStore.Declaration(name: "grant", displayName: "Support grant", code: "grant", appBinding: nil,
                                         appNoun: "app", subscriptionHeading: "Grant", rules: rules)
    }()
}

extension PurchaseStore {
    package static let grant = PurchaseStore(.grant)
}

extension IngestReport.Kind {
    /// A grant given or revoked: kept in `ledger_items.store_kind` beside the nearest released
    /// kind (a transaction).
    public static let grant = IngestReport.Kind(rawValue: 9, name: "grant", store: .grant, storedKind: 2)
}
