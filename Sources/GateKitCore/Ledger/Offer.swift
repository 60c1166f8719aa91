/// The offer a purchase was made under, in the ledger's model. The raw values are the
/// ledger's stored codes (`ledger_transactions.offer_type`); they match Apple's `offerType`
/// numbers because Apple was the first source and released rows keep what was stored.
public enum Offer: Int64, Sendable, CaseIterable, StoredCode {
    /// An offer the ledger has no name for: a store's newer kind, kept as an offer.
    case other = 0
    /// An introductory offer (a free trial or an introductory price): spent once per group.
    case introductory = 1
    /// A promotional offer the app presented.
    case promotional = 2
    /// An offer code the customer redeemed.
    case offerCode = 3
    /// A win-back offer for a former subscriber.
    case winBack = 4
}
