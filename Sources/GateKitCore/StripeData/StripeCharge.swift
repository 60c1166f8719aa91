import GateKitSupport

/// A Charge as Stripe's API renders it (`GET /v1/charges/{id}` with `expand[]=refunds`), read
/// into what a refund decides: whether the charge was refunded whole (`refunded` is true only
/// then; a partial refund leaves it false) and when, and which payment it belongs to.
package struct StripeCharge: Sendable, Equatable {
    package struct Refund: Sendable, Equatable {
        package let id: String
        /// "pending", "requires_action", "succeeded", "failed" or "canceled".
        package let status: String
        package let createdMs: Int64
        /// What it gave back, in the charge's currency's minor unit.
        package let amount: Int64?
    }

    package let id: String
    package let livemode: Bool
    package let createdMs: Int64
    package let paymentIntentID: String?
    package let amount: StripeMoney
    /// How much was refunded in all, in the currency's minor unit.
    package let amountRefunded: Int64
    /// Refunded whole (Stripe: "If the charge is only partially refunded, this attribute will
    /// still be false").
    package let refunded: Bool
    /// Nil when the charge was read without `expand[]=refunds`.
    package let refunds: [Refund]?

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try StripeReader(object: json, kind: "charge")
        guard try read.string("object") == "charge" else {
            throw GateKitError(.ESTRIPE_OBJECT, "the object is not a Stripe Charge (its \"object\" is not \"charge\")")
        }
        id = try read.required(read.id("id"), "id")
        livemode = try read.required(read.bool("livemode"), "livemode")
        createdMs = try read.required(read.time("created"), "created")
        paymentIntentID = try read.reference("payment_intent")
        amount = StripeMoney(currency: try read.required(read.string("currency"), "currency"),
                             minorUnits: try read.required(read.int64("amount"), "amount"))
        amountRefunded = try read.int64("amount_refunded") ?? 0
        refunded = try read.required(read.bool("refunded"), "refunded")
        if let (items, hasMore) = try read.list("refunds") {
            guard !hasMore else {
                throw GateKitError(.ESTRIPE_OBJECT, "\(read.path).refunds has more pages than the object carries: list them whole first")
            }
            refunds = try items.map { (r) throws(GateKitError) in
                Refund(id: try r.required(r.id("id"), "id"), status: try r.required(r.string("status"), "status"),
                       createdMs: try r.required(r.time("created"), "created"), amount: try r.int64("amount"))
            }
        } else {
            refunds = nil
        }
    }

    /// When the charge was refunded whole: the newest refund that succeeded (the one that
    /// completed it), nil when the charge is not refunded whole or its refunds were not read.
    package var refundedWholeMs: Int64? {
        guard refunded else { return nil }
        return refunds?.filter { $0.status == "succeeded" }.map(\.createdMs).max()
    }
}
