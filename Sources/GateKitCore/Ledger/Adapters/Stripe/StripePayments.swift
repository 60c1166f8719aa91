import GateKitStripeData
import GateKitSupport

/// Stripe's payments in the ledger's model (docs/ledger.md, "Stripe", refunds and disputes):
/// an Invoice or a Checkout Session says what each payment paid for (`PaymentLink`); a Charge
/// says whether that payment was refunded whole, and a Dispute whether it was charged back
/// (`PaymentRevocation`). A refund of part of a charge takes nothing back (Stripe's `refunded`
/// is true only for a whole refund); a dispute takes back per the host's `DisputePolicy`.
extension StripeInvoice {
    /// Each payment of the invoice paid for each subscription item its lines bill, for the
    /// line's period (every item of the subscription when no line names one).
    func paymentLinks(answeredMs: Int64) -> [PaymentLink] {
        guard let subscriptionID else { return [] }
        return payments.flatMap { payment -> [PaymentLink] in
            guard !lines.isEmpty else {
                return [PaymentLink(payment: payment, purchaseID: subscriptionID, transactionID: nil, periodStartMs: nil, periodEndMs: nil,
                                    vouchedMs: answeredMs)]
            }
            return lines.map {
                PaymentLink(payment: payment, purchaseID: subscriptionID, transactionID: $0.subscriptionItemID,
                            periodStartMs: $0.periodStartMs, periodEndMs: $0.periodEndMs, vouchedMs: answeredMs)
            }
        }
    }
}

extension StripeCheckoutSession {
    /// A payment-mode session's payment intent paid for each of its line items, for good.
    func paymentLinks(answeredMs: Int64) -> [PaymentLink] {
        guard mode == .payment, let paymentIntentID else { return [] }
        return (lineItems ?? []).map {
            PaymentLink(payment: paymentIntentID, purchaseID: id, transactionID: $0.id, periodStartMs: nil, periodEndMs: nil, vouchedMs: answeredMs)
        }
    }
}

extension StripeCharge {
    /// The payments it may be known by: its payment intent and itself.
    var payments: [String] { Set([paymentIntentID, id].compactMap { $0 }).sorted() }

    /// Refunded whole: revoked from the refund that completed it (the answer's instant when the
    /// charge was read without its refunds); refunded in part or not at all: access stays, and
    /// each refund that succeeded gives its amount back at its instant (the metrics' refunds).
    func revocations(answeredMs: Int64, identity: String) -> [PaymentRevocation] {
        let revoked = refunded ? (refundedWholeMs ?? answeredMs) : nil
        var out = payments.map {
            PaymentRevocation(payment: $0, sourceID: id, revocationMs: revoked.map { min($0, answeredMs) }, reason: revoked == nil ? nil : .other,
                              refund: revoked == nil ? nil : .full, vouchedMs: answeredMs, identity: identity)
        }
        // A currency no store names (not three letters) gives nothing the metrics can sum.
        guard revoked == nil, amount.currency.utf8.count == 3, amount.currency.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return out }
        for refund in refunds ?? [] where refund.status == "succeeded" {
            guard let minor = refund.amount, minor > 0, let milliunits = StripeMoney(currency: amount.currency, minorUnits: minor).milliunits else { continue }
            let back = PaymentRevocation.MoneyBack(atMs: min(refund.createdMs, answeredMs), milliunits: milliunits, currency: amount.isoCurrency)
            out += payments.map {
                PaymentRevocation(payment: $0, sourceID: refund.id, revocationMs: nil, reason: nil, refund: nil, vouchedMs: answeredMs,
                                  identity: identity, moneyBack: back)
            }
        }
        return out
    }
}

extension StripeDispute {
    /// Taken back per the host's policy, from when the dispute was opened: while open and when
    /// lost (`revokeWhenOpened`, the default), only once lost (`revokeWhenLost`), or never;
    /// won, an inquiry closed or a dispute prevented take nothing back.
    func revocations(answeredMs: Int64, identity: String, policy: Ledger.StripeOptions.DisputePolicy) -> [PaymentRevocation] {
        let revokes: Bool
        switch policy {
        case .revokeWhenOpened: revokes = !endedForTheMerchant
        case .revokeWhenLost: revokes = lost
        case .never: revokes = false
        }
        return payments.map {
            PaymentRevocation(payment: $0, sourceID: id, revocationMs: revokes ? min(createdMs, answeredMs) : nil,
                              reason: revokes ? .other : nil, refund: nil, vouchedMs: answeredMs, identity: identity)
        }
    }

    /// The payments it may be known by: its payment intent and its charge.
    var payments: [String] { Set([paymentIntentID, chargeID].compactMap { $0 }).sorted() }
}
