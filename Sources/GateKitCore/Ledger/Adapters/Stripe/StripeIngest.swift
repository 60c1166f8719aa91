import GateKitCrypto
import GateKitStripeData
import GateKitSupport

/// Ingestion of Stripe's answers (docs/ledger.md, "Stripe"). A Stripe object the host (or the
/// ledger's sync) read from Stripe's API with its own secret key is the truth; a webhook only
/// says which object to read again (events arrive out of order and twice). The ledger records
/// exactly the object's bytes with the instant Stripe answered. Idempotent and
/// order-independent as the stores' data: the same answer is recorded once, the newest
/// answered wins, an answer never changes what was known before its instant. Test mode
/// (`livemode: false`) is kept in the Sandbox part, never mixed with live purchases.
extension Ledger {
    /// What Stripe's API answered, and when.
    public struct StripeAnswer: Sendable {
        public let bytes: [UInt8]
        /// When Stripe answered (Unix ms); nil: now.
        public let answeredMs: Int64?

        public init(bytes: [UInt8], answeredMs: Int64?) {
            self.bytes = bytes
            self.answeredMs = answeredMs
        }
    }

    /// Where Stripe leaves a choice to the merchant, the host's (docs/ledger.md, "Stripe").
    public struct StripeOptions: Sendable, Equatable {
        /// How long a `past_due` subscription keeps access after its paid period ended; nil
        /// (the default): for the whole period Stripe is trying to collect, as RevenueCat keeps
        /// access while Stripe leaves a subscription past due; 0: none.
        public var pastDueGraceMs: Int64?
        /// The metadata key (on the Subscription or the Checkout Session) that holds the app's
        /// own user id, as Stripe's guide keeps it on the Customer; a Checkout Session's
        /// `client_reference_id` is read first.
        public var accountMetadataKey = "app_user_id"
        /// When a dispute (a chargeback) takes access back.
        public var disputes = DisputePolicy.revokeWhenOpened

        /// Stripe leaves the answer to a dispute to the merchant (stripe.md §4: "often revoke on
        /// created"); won, an inquiry closed or a dispute prevented never take access back.
        public enum DisputePolicy: Int32, Sendable, Equatable {
            /// From when it was opened, unless and until it is won (the default).
            case revokeWhenOpened = 0
            /// Only once it is lost, then from when it was opened.
            case revokeWhenLost = 1
            /// Never: a chargeback is the merchant's to fight, the customer keeps access.
            case never = 2
        }

        public init() {}

        /// The longest grace the ledger takes: a year (Stripe's retries end far sooner).
        public static let maximumGraceMs: Int64 = 366 * 86_400_000
    }

    /// A Subscription (`GET /v1/subscriptions/{id}`), a Checkout Session (`GET
    /// /v1/checkout/sessions/{id}?expand[]=line_items`), an Invoice (`expand[]=payments`), a
    /// Charge (`expand[]=refunds`) or a Dispute, whichever `object` the answer names.
    public func ingestStripeObject(_ answer: StripeAnswer, options: StripeOptions = StripeOptions()) throws(GateKitError) -> IngestReport {
        try Ledger.check(options)
        return try commit(try pendingStripe(answer, options: options))
    }

    /// Several Subscriptions, Checkout Sessions and Invoices, each read as `ingestStripeObject`
    /// reads it, recorded in one durable transaction (a backlog, a migration from another
    /// system), in input order. A Charge or a Dispute is ingested one by one (it reads what the
    /// ledger knows its payment paid for, and locks that purchase): in a batch it is refused in
    /// its place, as any answer refused is; a store failure records none.
    public func ingestStripeBatch(_ answers: [StripeAnswer], options: StripeOptions = StripeOptions()) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        try Ledger.check(options)
        return try verifyAndRecord(answers.count, alongside: .subjects([]), { (i) throws(GateKitError) in
            try self.pendingStripe(answers[i], options: options, inBatch: true)
        }, { (_) throws(GateKitError) in }).reports
    }

    /// The item for an answer, read as the ledger's rules read it.
    private func pendingStripe(_ answer: StripeAnswer, options: StripeOptions, inBatch: Bool = false) throws(GateKitError) -> PendingItem {
        let answeredMs = try Ledger.answerInstant(answer.answeredMs)
        switch try StripeReader.objectKind(answer.bytes) {
        case "subscription":
            let subscription = try StripeSubscription(json: answer.bytes)
            var item = try stripeItem(.stripeSubscription, answer, answeredMs: answeredMs, livemode: subscription.livemode)
            let (transactions, renewal) = subscription.ledgerVersions(answeredMs: answeredMs, identity: item.identity, options: options)
            item.transactions = transactions.map { ($0, nil) }
            item.renewals = [(renewal, nil)]
            item.lookupKeys = subscription.lookupKeys(answeredMs: answeredMs)
            item.accountLink = Ledger.accountLink(subscription.metadata[options.accountMetadataKey], purchaseID: subscription.id, at: answeredMs)
            return item
        case "checkout.session":
            let session = try StripeCheckoutSession(json: answer.bytes)
            var item = try stripeItem(.stripeCheckoutSession, answer, answeredMs: answeredMs, livemode: session.livemode)
            item.transactions = try session.ledgerVersions(answeredMs: answeredMs, identity: item.identity).map { ($0, nil) }
            item.payments = session.paymentLinks(answeredMs: answeredMs)
            // A subscription-mode session sells its subscription: the account it names holds that.
            let purchase = session.mode == .subscription ? session.subscriptionID : session.id
            item.accountLink = Ledger.accountLink(session.clientReferenceID ?? session.metadata[options.accountMetadataKey], purchaseID: purchase,
                                                  at: answeredMs)
            return item
        case "invoice":
            let invoice = try StripeInvoice(json: answer.bytes)
            var item = try stripeItem(.stripeInvoice, answer, answeredMs: answeredMs, livemode: invoice.livemode)
            item.payments = invoice.paymentLinks(answeredMs: answeredMs)
            return item
        case "charge" where inBatch, "dispute" where inBatch:
            throw GateKitError(.ESTRIPE_OBJECT, "a charge or a dispute is ingested one by one (ledger_ingest_stripe): it reads what the ledger knows its payment paid for")
        case "charge":
            let charge = try StripeCharge(json: answer.bytes)
            var item = try stripeItem(.stripeCharge, answer, answeredMs: answeredMs, livemode: charge.livemode)
            item.paymentRevocations = charge.revocations(answeredMs: answeredMs, identity: item.identity)
            item.revokedPurchases = try purchasesPaid(by: charge.payments, scope: item.scope)
            return item
        case "dispute":
            let dispute = try StripeDispute(json: answer.bytes)
            var item = try stripeItem(.stripeDispute, answer, answeredMs: answeredMs, livemode: dispute.livemode)
            item.paymentRevocations = dispute.revocations(answeredMs: answeredMs, identity: item.identity, policy: options.disputes)
            item.revokedPurchases = try purchasesPaid(by: dispute.payments, scope: item.scope)
            return item
        case let other:
            throw GateKitError(.ESTRIPE_OBJECT, "the answer is a Stripe \(Quoted.text(other)): the ledger takes a \"subscription\", a \"checkout.session\", an \"invoice\", a \"charge\" or a \"dispute\"")
        }
    }

    /// A purchase that names the app's user is linked to that app account when it is recorded,
    /// unless an account holds it already (a link the host made, or a transfer, is never undone
    /// by a later answer).
    private static func accountLink(_ appUserID: String?, purchaseID: String?, at: Int64) -> PendingItem.AccountLink? {
        guard let appUserID, let purchaseID, !appUserID.isEmpty, appUserID.utf8.count <= Ledger.maximumAppUserIDLength else { return nil }
        return PendingItem.AccountLink(appUserID: appUserID, purchaseID: purchaseID, atMs: at, cause: "stripe")
    }

    /// The purchases the ledger knows `payments` paid for (an Invoice or a Checkout Session
    /// recorded before); none yet: a revocation told first waits for the answer that links it.
    private func purchasesPaid(by payments: [String], scope: LedgerScope) throws(GateKitError) -> [String] {
        try store.read { (db) throws(GateKitError) -> [String] in
            var found: Set<String> = []
            for p in payments { found.formUnion(try PaymentRows.purchases(db, payment: p, scope: scope)) }
            return found.sorted()
        }
    }

    /// Whether the ledger knows what `payment` paid for.
    public func knowsStripePayment(_ payment: String, livemode: Bool) throws(GateKitError) -> Bool {
        try !purchasesPaid(by: [payment], scope: Ledger.stripeScope(livemode: livemode)).isEmpty
    }

    package static func check(_ options: StripeOptions) throws(GateKitError) {
        if let grace = options.pastDueGraceMs, grace < 0 || grace > StripeOptions.maximumGraceMs {
            throw .invalid("the past-due grace must be 0 to a year, not \(grace) ms")
        }
        let key = options.accountMetadataKey
        // Stripe's own bounds on a metadata key.
        guard !key.isEmpty, key.utf8.count <= 40, !key.contains("["), !key.contains("]") else {
            throw .invalid("the account metadata key must be 1 to 40 bytes without [ or ] (Stripe's metadata keys), not \(Quoted.text(key))")
        }
    }

    /// Test mode is kept apart from live as Sandbox is from Production.
    package static func stripeScope(livemode: Bool) -> LedgerScope {
        LedgerScope(environment: livemode ? .production : .sandbox, testData: false)
    }

    /// The item for an answer: its identity is the SHA-256 of its kind and bytes (the same
    /// answer read again is a duplicate; the one Stripe gave first keeps its instant).
    private func stripeItem(_ kind: IngestReport.Kind, _ answer: StripeAnswer, answeredMs: Int64, livemode: Bool) throws(GateKitError) -> PendingItem {
        let identity = Hex.encode(try Digest.hash(.sha256, Array("gatekit-stripe-object\u{0}\(kind.name)\u{0}".utf8) + answer.bytes))
        return PendingItem(kind: kind, scope: Ledger.stripeScope(livemode: livemode), appID: "",
                           identity: identity, vouchedMs: answeredMs, header: nil, body: String(decoding: answer.bytes, as: UTF8.self))
    }
}
