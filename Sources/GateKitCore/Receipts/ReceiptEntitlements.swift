/// The gating decision hosts want: does a purchase cover this product at this moment?
/// - a purchase with a cancellation date (refund, upgrade, revocation) never entitles;
/// - with an expires date (subscriptions): purchase date ≤ t < expires date;
/// - consumables (product type 1) are used up, not owned: never an entitlement;
/// - otherwise (non-consumables; non-renewing subscriptions, whose term the app defines):
///   from the purchase date on.
public enum ReceiptEntitlements {
    public static func covers(_ p: InAppPurchase, at ms: Int64) -> Bool {
        guard p.cancellationDate == nil, p.productType != 1 else { return false }
        if let start = p.purchaseDate?.milliseconds, ms < start { return false }
        if let end = p.expiresDate?.milliseconds { return ms < end }
        return true
    }

    public static func isEntitled(_ r: Receipt, productID: String, at ms: Int64) -> Bool {
        r.purchases.contains { $0.hasProductID(productID) && covers($0, at: ms) }
    }

    /// Product ids with an entitling purchase at `ms`, each once, in receipt order.
    public static func activeProducts(_ r: Receipt, at ms: Int64) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for p in r.purchases {
            guard let id = p.productID, covers(p, at: ms), seen.insert(id).inserted else { continue }
            out.append(id)
        }
        return out
    }

    /// Introductory-offer eligibility from the receipt alone, for a subscription group given as
    /// its product ids (receipts carry no group ids): eligible only when no purchase is of one
    /// of them — a customer who ever subscribed in the group, or had its introductory offer
    /// (is_trial_period / is_in_intro_offer_period), is not.
    public static func isEligibleForIntroductoryOffer(_ r: Receipt, groupProducts: Set<String>) -> Bool {
        !r.purchases.contains { p in p.productID.map(groupProducts.contains) ?? false }
    }
}
