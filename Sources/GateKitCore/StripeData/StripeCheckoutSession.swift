import GateKitSupport

/// A Checkout Session as Stripe's API renders it (retrieved with `expand[]=line_items`, as
/// Stripe's fulfilment guide does, and `expand[]=payment_intent`), read into what fulfilment
/// decides on: whether it was paid, what it sold, and whom for.
package struct StripeCheckoutSession: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case payment, subscription, setup
        case other(String)
    }

    package enum PaymentStatus: Sendable, Equatable {
        case paid, unpaid, noPaymentRequired
        case other(String)
    }

    package struct LineItem: Sendable, Equatable {
        package let id: String
        package let priceID: String
        package let productID: String
        package let quantity: Int64
        /// What the line cost in all (`amount_total`).
        package let amount: StripeMoney?
    }

    package let id: String
    package let mode: Mode
    package let modeName: String
    /// "open", "complete" or "expired".
    package let status: String?
    package let paymentStatus: PaymentStatus
    package let paymentStatusName: String
    package let livemode: Bool
    package let createdMs: Int64
    package let clientReferenceID: String?
    package let customerID: String?
    package let subscriptionID: String?
    package let paymentIntentID: String?
    /// The payment intent's status when it was expanded (`expand[]=payment_intent`): how a
    /// complete session tells an async payment that failed ("requires_payment_method",
    /// "canceled") from one still processing.
    package let paymentIntentStatus: String?
    package let metadata: [String: String]
    /// Nil when the session was read without `line_items` expanded.
    package let lineItems: [LineItem]?

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try StripeReader(object: json, kind: "checkout.session")
        guard try read.string("object") == "checkout.session" else {
            throw GateKitError(.ESTRIPE_OBJECT, "the object is not a Stripe Checkout Session (its \"object\" is not \"checkout.session\")")
        }
        id = try read.required(read.id("id"), "id")
        modeName = try read.required(read.string("mode"), "mode")
        switch modeName {
        case "payment": mode = .payment
        case "subscription": mode = .subscription
        case "setup": mode = .setup
        default: mode = .other(modeName)
        }
        status = try read.string("status")
        paymentStatusName = try read.required(read.string("payment_status"), "payment_status")
        switch paymentStatusName {
        case "paid": paymentStatus = .paid
        case "unpaid": paymentStatus = .unpaid
        case "no_payment_required": paymentStatus = .noPaymentRequired
        default: paymentStatus = .other(paymentStatusName)
        }
        livemode = try read.required(read.bool("livemode"), "livemode")
        createdMs = try read.required(read.time("created"), "created")
        clientReferenceID = try read.string("client_reference_id")
        customerID = try read.reference("customer")
        subscriptionID = try read.reference("subscription")
        paymentIntentID = try read.reference("payment_intent")
        paymentIntentStatus = try read.expanded("payment_intent")?.string("status")
        metadata = try read.strings("metadata")
        if let (items, hasMore) = try read.list("line_items") {
            guard !hasMore else {
                throw GateKitError(.ESTRIPE_OBJECT, "\(read.path).line_items has more pages than the object carries: list them whole first")
            }
            lineItems = try items.map { (item) throws(GateKitError) in try StripeCheckoutSession.lineItem(item) }
        } else {
            lineItems = nil
        }
    }

    private static func lineItem(_ read: StripeReader) throws(GateKitError) -> LineItem {
        let price = try read.required(read.object("price"), "price")
        var currency = try read.string("currency")
        if currency == nil { currency = try price.string("currency") }
        let total = try read.int64("amount_total")
        return LineItem(id: try read.required(read.id("id"), "id"), priceID: try price.required(price.id("id"), "id"),
                        productID: try price.required(price.reference("product"), "product"), quantity: try read.int64("quantity") ?? 1,
                        amount: currency.flatMap { c in total.map { StripeMoney(currency: c, minorUnits: $0) } })
    }
}
