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

    /// Reads `objectID` ("sub_…" or "cs_…") from Stripe through `client` and records the
    /// answer as of when it arrived.
    public func refreshStripe(objectID: String, client: StripeClient, options: StripeOptions = StripeOptions(),
                              withinMilliseconds: Int? = nil) throws(GateKitError) -> IngestReport {
        try Ledger.check(options)  // before Stripe is asked
        let id = try StripeClient.segment(objectID, "object_id")
        if id.hasPrefix("sub_") {
            return try ingestStripeObject(try Ledger.asked(client, "/v1/subscriptions/\(id)", query: "", within: withinMilliseconds), options: options)
        }
        if id.hasPrefix("cs_") {
            // The line items say what was sold; the payment intent whether an async payment failed.
            let query = StripeClient.formEncoded([("expand[]", "line_items"), ("expand[]", "payment_intent")])
            return try ingestStripeObject(try Ledger.asked(client, "/v1/checkout/sessions/\(id)", query: query, within: withinMilliseconds),
                                          options: options)
        }
        throw .invalid("object_id must name a subscription (sub_…) or a Checkout Session (cs_…), not \(Quoted.text(id))")
    }

    /// A delivery to the host's webhook endpoint: verified by `verifier`, then the object its
    /// event names read from Stripe and recorded (an invoice's subscription for an invoice
    /// event). An event of the other mode than the client's key is refused.
    public func ingestStripeWebhook(body: [UInt8], signatureHeader: String, verifier: StripeWebhookVerifier, client: StripeClient,
                                    options: StripeOptions = StripeOptions()) throws(GateKitError) -> StripeWebhookReport {
        try Ledger.check(options)
        let event = try verifier.verify(body: body, signatureHeader: signatureHeader)
        guard event.livemode != client.isTest else {
            throw .invalid("the event \(event.id) is \(event.livemode ? "live" : "test mode") and the client's key is \(client.isTest ? "a test" : "a live") key: use the key of the endpoint's mode")
        }
        switch event.objectType {
        case "subscription", "checkout.session":
            return StripeWebhookReport(event: event, ingested: try refreshStripe(objectID: event.objectID, client: client, options: options))
        case "invoice":
            let invoice = try Ledger.asked(client, "/v1/invoices/\(try StripeClient.segment(event.objectID, "the event's invoice"))", query: "")
            guard let subscription = try Ledger.invoiceSubscription(invoice.bytes) else { return StripeWebhookReport(event: event, ingested: nil) }
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
