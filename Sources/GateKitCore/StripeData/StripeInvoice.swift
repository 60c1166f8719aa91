import GateKitSupport

/// An Invoice as Stripe's API renders it at a 2025+ version (`GET /v1/invoices/{id}` with
/// `expand[]=payments`), read into what ties a payment to the period it paid for: the
/// subscription it bills (`parent.subscription_details.subscription`), the items and service
/// periods of its lines (a line's `period`, not the invoice's `period_start`/`period_end`), and
/// the payments made on it.
package struct StripeInvoice: Sendable, Equatable {
    /// A line that bills a subscription item, with the period it is for.
    package struct Line: Sendable, Equatable {
        package let subscriptionItemID: String
        package let periodStartMs: Int64
        package let periodEndMs: Int64
    }

    package let id: String
    package let livemode: Bool
    /// "draft", "open", "paid", "uncollectible" or "void".
    package let status: String?
    package let subscriptionID: String?
    package let lines: [Line]
    /// The payment intents and charges of its payments (an out-of-band payment has neither).
    package let payments: [String]

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try StripeReader(object: json, kind: "invoice")
        guard try read.string("object") == "invoice" else {
            throw GateKitError(.ESTRIPE_OBJECT, "the object is not a Stripe Invoice (its \"object\" is not \"invoice\")")
        }
        id = try read.required(read.id("id"), "id")
        livemode = try read.required(read.bool("livemode"), "livemode")
        status = try read.string("status")
        subscriptionID = try read.object("parent")?.object("subscription_details")?.reference("subscription")
        var lines: [Line] = []
        if let (items, hasMore) = try read.list("lines") {
            guard !hasMore else {
                throw GateKitError(.ESTRIPE_OBJECT, "\(read.path).lines has more pages than the object carries: list them whole first")
            }
            for line in items {
                guard let item = try line.object("parent")?.object("subscription_item_details")?.reference("subscription_item") else { continue }
                let period = try line.required(line.object("period"), "period")
                lines.append(Line(subscriptionItemID: item, periodStartMs: try period.required(period.time("start"), "start"),
                                  periodEndMs: try period.required(period.time("end"), "end")))
            }
        }
        self.lines = lines
        guard let (payments, morePayments) = try read.list("payments") else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path) has no payments: read the invoice with expand[]=payments")
        }
        guard !morePayments else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path).payments has more pages than the object carries: list them whole first")
        }
        var paidBy: [String] = []
        for p in payments {
            guard let payment = try p.object("payment") else { continue }
            if let intent = try payment.reference("payment_intent") { paidBy.append(intent) }
            if let charge = try payment.reference("charge") { paidBy.append(charge) }
        }
        self.payments = paidBy
    }
}
