/// Which purchase a store's payment paid for — and which item of it, for which period — where
/// the store answers payments apart from the purchase (`PurchaseStore.Rules.revokedByOwnAnswers`:
/// Stripe's invoices and Checkout Sessions name the payment intent that paid them). What ties
/// a refund or a chargeback (`PaymentRevocation`, which names only its payment) to the versions
/// it takes back, whichever of the two the ledger was told first.
public struct PaymentLink: Sendable, Equatable {
    /// The store's payment (a payment intent, a charge).
    public var payment: String
    /// The purchase (original transaction id) it paid for.
    public var purchaseID: String
    /// The item it paid for; nil: every item of the purchase.
    public var transactionID: String?
    /// The period it paid for (Unix ms); nil bounds: all of it (a one-time purchase).
    public var periodStartMs: Int64?
    public var periodEndMs: Int64?
    /// When the store answered what says it.
    public var vouchedMs: Int64

    public init(payment: String, purchaseID: String, transactionID: String?, periodStartMs: Int64?, periodEndMs: Int64?, vouchedMs: Int64) {
        self.payment = payment
        self.purchaseID = purchaseID
        self.transactionID = transactionID
        self.periodStartMs = periodStartMs
        self.periodEndMs = periodEndMs
        self.vouchedMs = vouchedMs
    }

    /// What answers of one link share.
    var key: String { [payment, purchaseID, transactionID ?? "", periodStartMs.map(String.init) ?? "", periodEndMs.map(String.init) ?? ""].joined(separator: "\u{0}") }

    /// Whether the payment paid for `t`: a version of its purchase (and item) whose access ends
    /// inside the period paid for — never a period paid for since; a version with no end (a
    /// one-time purchase) only when the period is unbounded.
    func paidFor(_ t: TransactionVersion) -> Bool {
        guard t.purchaseID == purchaseID, transactionID.map({ $0 == t.transactionID }) ?? true else { return false }
        guard let ends = t.expiresMs else { return periodStartMs == nil && periodEndMs == nil }
        return (periodStartMs.map { ends > $0 } ?? true) && (periodEndMs.map { ends <= $0 } ?? true)
    }

    /// Each link as first answered by `knownBy` (nil: any time).
    static func known(_ links: [PaymentLink], by knownBy: Int64?) -> [PaymentLink] {
        var first: [String: PaymentLink] = [:]
        for l in links {
            if let knownBy, l.vouchedMs > knownBy { continue }
            if first[l.key].map({ l.vouchedMs < $0.vouchedMs }) ?? true { first[l.key] = l }
        }
        return first.values.sorted { $0.key < $1.key }
    }
}
