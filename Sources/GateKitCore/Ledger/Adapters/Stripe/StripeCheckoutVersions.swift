import GateKitStripeData
import GateKitSupport

/// A Checkout Session in the ledger's model (docs/ledger.md, "Stripe"): a payment-mode
/// session is a one-time purchase (the session the purchase, each line item a non-consumable
/// transaction of its product: the price only says how it was sold) that entitles only once
/// its `payment_status` is `paid` or `no_payment_required` (Stripe's fulfilment guide); an
/// async payment still processing is pending, and one that failed or a session that expired
/// never entitles. A subscription-mode session sells its subscription, whose own answer decides:
/// it carries no version (it ties the subscription to the app's account). A setup session
/// sells nothing.
extension StripeCheckoutSession {
    func ledgerVersions(answeredMs: Int64, identity: String) throws(GateKitError) -> [TransactionVersion] {
        guard mode == .payment else { return [] }
        guard let lineItems else {
            throw GateKitError(.ESTRIPE_OBJECT, "the Checkout Session \(Quoted.text(id)) was read without its line items: retrieve it with expand[]=line_items, as Stripe's fulfilment guide does")
        }
        let paid = paymentStatus == .paid || paymentStatus == .noPaymentRequired
        return lineItems.map { line in
            var v = TransactionVersion(
                transactionID: line.id, purchaseID: id, appAccountToken: LedgerCustomer.normalizedToken(clientReferenceID),
                productID: line.productID, groupID: nil, productType: .nonConsumable, familyShared: false,
                purchaseMs: createdMs, originalPurchaseMs: createdMs, expiresMs: nil, revocationMs: nil, revocationReason: nil,
                isUpgraded: false, offer: nil, vouchedMs: answeredMs, identity: identity,
                sale: TransactionVersion.Sale(price: paid ? line.amount?.milliunits : nil, currency: line.amount?.isoCurrency,
                                              storefront: nil, trial: false))
            v.store = .stripe
            // Still collecting (open, or an async method processing): pending. An expired
            // session, or one whose payment failed, was never paid: revoked from its purchase.
            if !paid {
                if failed {
                    v.revocationMs = createdMs
                    v.revocationReason = .other
                } else {
                    v.isPending = true
                }
            }
            v.storeState = paymentStatusName
            return v
        }
    }

    /// Stripe ended it unpaid: the session expired, or its async payment failed (the payment
    /// intent of a complete session, when expanded, wants another method or was canceled).
    private var failed: Bool {
        status == "expired" || (status == "complete" && (paymentIntentStatus == "requires_payment_method" || paymentIntentStatus == "canceled"))
    }
}
