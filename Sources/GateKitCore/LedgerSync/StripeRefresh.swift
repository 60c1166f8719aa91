import GateKitLedger
import GateKitStripeAPI
import GateKitSupport

/// Asking Stripe about a purchase and recording its answer: a subscription or a Checkout
/// Session read again by id, and a verified webhook event turned into the read of the object
/// it names — the event is a hint of whom to ask, never a verdict (its body is not recorded,
/// so a replayed or reordered delivery can only make the ledger ask again).
extension Ledger {
    /// What a webhook led to: the verified event, and the ingestion of the object read back
    /// (nil when the event names nothing the ledger reads: a customer, a charge, a price).
    public struct StripeWebhookReport: Sendable {
        public let event: StripeEvent
        public let ingested: IngestReport?

        public var json: String {
            let event: JSONValue = .object([("id", .string(self.event.id)), ("type", .string(self.event.type)),
                                            ("livemode", .bool(self.event.livemode)),
                                            ("object", .object([("id", .string(self.event.objectID)), ("object", .string(self.event.objectType))]))])
            let ingested: JSONValue = self.ingested.map { (try? JSONParser.parse(Array($0.json.utf8))) ?? .null } ?? .null
            return JSONWriter.serialize(.object([("version", .number(1)), ("event", event), ("ingested", ingested)]))
        }
    }

    /// Reads `objectID` from Stripe through `client` and records the answer as of when it
    /// arrived: a subscription ("sub_…"), a Checkout Session ("cs_…", with its line items and
    /// payment intent), an invoice ("in_…", with its payments), a charge ("ch_…", "py_…", with
    /// its refunds) or a dispute ("du_…", "dp_…"). A charge or a dispute whose payment the ledger
    /// cannot yet tie to a purchase has that read first: the invoice the payment paid
    /// (`/v1/invoice_payments`), else the Checkout Session it paid.
    public func refreshStripe(objectID: String, client: StripeClient, options: StripeOptions = StripeOptions(),
                              withinMilliseconds: Int? = nil) throws(GateKitError) -> IngestReport {
        try Ledger.check(options)  // before Stripe is asked
        let id = try StripeClient.segment(objectID, "object_id")
        let within = withinMilliseconds
        func read(_ path: String, _ expand: [String] = []) throws(GateKitError) -> IngestReport {
            let query = StripeClient.formEncoded(expand.map { ("expand[]", $0) })
            return try ingestStripeObject(try Ledger.asked(client, path, query: query, within: within), options: options)
        }
        if id.hasPrefix("sub_") { return try read("/v1/subscriptions/\(id)") }
        // The line items say what was sold; the payment intent whether an async payment failed.
        if id.hasPrefix("cs_") { return try read("/v1/checkout/sessions/\(id)", ["line_items", "payment_intent"]) }
        if id.hasPrefix("in_") { return try read("/v1/invoices/\(id)", ["payments"]) }
        if id.hasPrefix("ch_") || id.hasPrefix("py_") || id.hasPrefix("du_") || id.hasPrefix("dp_") {
            let isCharge = id.hasPrefix("ch_") || id.hasPrefix("py_")
            let answer = try Ledger.asked(client, isCharge ? "/v1/charges/\(id)" : "/v1/disputes/\(id)",
                                          query: isCharge ? StripeClient.formEncoded([("expand[]", "refunds")]) : "", within: within)
            if let intent = try Ledger.paymentIntent(of: answer.bytes), try !knowsStripePayment(intent, livemode: !client.isTest) {
                try linkStripePayment(intent, client: client, options: options, within: within)
            }
            return try ingestStripeObject(answer, options: options)
        }
        if id.hasPrefix("re_") || id.hasPrefix("pyr_") {
            // A refund is its charge's: the charge says whether it was refunded whole.
            let refund = try Ledger.asked(client, "/v1/refunds/\(id)", query: "", within: within)
            guard let charge = try? JSONParser.parse(refund.bytes), charge["object"]?.stringValue == "refund",
                  let chargeID = charge["charge"]?["id"]?.stringValue ?? charge["charge"]?.stringValue else {
                throw GateKitError(.ESTRIPE_RESPONSE, "the answer about the refund \(Quoted.text(id)) names no charge")
            }
            return try refreshStripe(objectID: chargeID, client: client, options: options, withinMilliseconds: within)
        }
        throw .invalid("object_id must name a subscription (sub_…), a Checkout Session (cs_…), an invoice (in_…), a charge (ch_…), a refund (re_…) or a dispute (du_…), not \(Quoted.text(id))")
    }

    /// Reads what `paymentIntent` paid for — the invoice it paid (`GET /v1/invoice_payments`),
    /// else the Checkout Session it paid — and records it; neither: nothing the ledger holds.
    private func linkStripePayment(_ paymentIntent: String, client: StripeClient, options: StripeOptions, within: Int?) throws(GateKitError) {
        let payments = try Ledger.asked(client, "/v1/invoice_payments", query: StripeClient.formEncoded([
            ("payment[type]", "payment_intent"), ("payment[payment_intent]", paymentIntent), ("limit", "1")]), within: within)
        if let invoice = try Ledger.firstListed(payments.bytes, member: "invoice") {
            _ = try refreshStripe(objectID: invoice, client: client, options: options, withinMilliseconds: within)
            return
        }
        let sessions = try Ledger.asked(client, "/v1/checkout/sessions", query: StripeClient.formEncoded([
            ("payment_intent", paymentIntent), ("limit", "1")]), within: within)
        if let session = try Ledger.firstListed(sessions.bytes, member: "id") {
            _ = try refreshStripe(objectID: session, client: client, options: options, withinMilliseconds: within)
        }
    }

    /// The first item's `member` (an id, or an expanded object's id) of a Stripe list answer.
    private static func firstListed(_ body: [UInt8], member: String) throws(GateKitError) -> String? {
        guard let list = try? JSONParser.parse(body), list["object"]?.stringValue == "list", case let .array(items)? = list["data"] else {
            throw GateKitError(.ESTRIPE_RESPONSE, "the answer is not a Stripe list")
        }
        guard let first = items.first else { return nil }
        return first[member]?["id"]?.stringValue ?? first[member]?.stringValue
    }

    /// The payment intent a charge or a dispute answer names.
    private static func paymentIntent(of body: [UInt8]) throws(GateKitError) -> String? {
        guard let object = try? JSONParser.parse(body) else { throw GateKitError(.ESTRIPE_RESPONSE, "the answer is not JSON") }
        return object["payment_intent"]?["id"]?.stringValue ?? object["payment_intent"]?.stringValue
    }

    /// A delivery to the host's webhook endpoint: verified by `verifier`, then the object its
    /// event names read from Stripe and recorded: a subscription, a Checkout Session, a charge or
    /// a dispute itself, a refund's charge, an invoice (what its payments paid for) and its
    /// subscription. An event of the other mode than the client's key is refused.
    public func ingestStripeWebhook(body: [UInt8], signatureHeader: String, verifier: StripeWebhookVerifier, client: StripeClient,
                                    options: StripeOptions = StripeOptions()) throws(GateKitError) -> StripeWebhookReport {
        try Ledger.check(options)
        let event = try verifier.verify(body: body, signatureHeader: signatureHeader)
        guard event.livemode != client.isTest else {
            throw .invalid("the event \(event.id) is \(event.livemode ? "live" : "test mode") and the client's key is \(client.isTest ? "a test" : "a live") key: use the key of the endpoint's mode")
        }
        switch event.objectType {
        case "subscription", "checkout.session", "charge", "dispute", "refund":
            return StripeWebhookReport(event: event, ingested: try refreshStripe(objectID: event.objectID, client: client, options: options))
        case "invoice":
            let invoice = try Ledger.asked(client, "/v1/invoices/\(try StripeClient.segment(event.objectID, "the event's invoice"))",
                                           query: StripeClient.formEncoded([("expand[]", "payments")]))
            guard let subscription = try Ledger.invoiceSubscription(invoice.bytes) else { return StripeWebhookReport(event: event, ingested: nil) }
            _ = try ingestStripeObject(invoice, options: options)
            return StripeWebhookReport(event: event, ingested: try refreshStripe(objectID: subscription, client: client, options: options))
        default:
            return StripeWebhookReport(event: event, ingested: nil)
        }
    }

    /// Stripe's answer to a GET, dated when it arrived (this host's clock, to the millisecond:
    /// Stripe's `Date` is to the second, and two answers within one second must keep their
    /// order); its error answer as GATEKIT_ESTRIPE_API (the failure's JSON the detail).
    private static func asked(_ client: StripeClient, _ path: String, query: String, within: Int? = nil) throws(GateKitError) -> StripeAnswer {
        switch try client.get(path, query: query, withinMilliseconds: within) {
        case let .failure(failure): throw GateKitError(.ESTRIPE_API, "\(path): \(failure.description)", detail: failure.json)
        case let .success(answer): return StripeAnswer(bytes: answer.body, answeredMs: Clock.nowMilliseconds())
        }
    }

    /// The subscription an invoice bills (2025-03-31.basil and later: `parent.subscription_details.subscription`).
    private static func invoiceSubscription(_ body: [UInt8]) throws(GateKitError) -> String? {
        guard let document = try? JSONParser.parse(body), document["object"]?.stringValue == "invoice" else {
            throw GateKitError(.ESTRIPE_RESPONSE, "the answer about an invoice is not an invoice object")
        }
        let named = document["parent"]?["subscription_details"]?["subscription"]
        return named?["id"]?.stringValue ?? named?.stringValue
    }
}
