import GateKitLedger
import GateKitStore
import GateKitStripeAPI
import GateKitSupport

/// Heals the ledger's Stripe purchases (docs/ledger.md, "Stripe"): what webhooks lost to an
/// outage would have told it, from Stripe's own API, under one lease per mode (test or live;
/// another host finds it busy and returns at once), within one budget:
/// 1. the first time, every subscription Stripe holds (`status=all`, page by page): the Events
///    list keeps 30 days, a yearly subscription may have said nothing in them;
/// 2. the Events list from the checkpoint (less an overlap) to now, page by page, the page
///    cursor kept with the lease so a sync killed at any point resumes from its page; each event
///    names an object, which is read back from Stripe and recorded (once per call) — an event's
///    body, like a webhook's, is never recorded.
/// The checkpoint never passes Stripe's clock (its `Date`).
public enum StripeSync {
    public struct Options: Sendable {
        /// Each window starts this long before the checkpoint (an event created as a page was read).
        public var overlapMs: Int64 = 600_000
        public var budgetMs: Int64 = 600_000
        /// Pages per call (the subscriptions' and the events'); nil: until caught up or out of budget.
        public var maximumPages: Int?
        public var leaseMs: Int64 = 120_000
        /// How the answers read back are ingested.
        public var ingest = Ledger.StripeOptions()

        public init() {}
    }

    public struct Report: Sendable {
        public var outcome = NotificationSync.Outcome.done
        public var stoppedBy = NotificationSync.Stop.caughtUp
        public let mode: String
        public var pages = 0
        /// Subscriptions recorded from the list (the first sync), and events read.
        public var listed = 0
        public var events = 0
        /// Objects read back from Stripe and recorded (each once per call).
        public var refreshed = 0
        public var restartedWindows = 0
        /// This host's clock minus Stripe's (its `Date`), as last seen; nil: no Date seen.
        public var clockSkewMs: Int64?
        /// Objects Stripe would not answer about (an error each; the rest go on).
        public var refreshFailures: [(object: String, error: String)] = []
        var state = SyncState()

        public var json: String {
            JSONWriter.serialize(.object([
                ("version", .number(1)), ("outcome", .string(outcome.name)), ("stoppedBy", .string(stoppedBy.rawValue)),
                ("mode", .string(mode)), ("pages", .number(Int64(pages))), ("listed", .number(Int64(listed))),
                ("events", .number(Int64(events))), ("refreshed", .number(Int64(refreshed))),
                ("restartedWindows", .number(Int64(restartedWindows))), ("clockSkewMs", clockSkewMs.map { .number($0) } ?? .null),
                ("refreshFailures", .array(refreshFailures.map { .object([("object", .string($0.object)), ("error", .string($0.error))]) })),
                ("state", state.json(environment: StripeSync.key(test: mode == "test"))),
            ]))
        }
    }

    /// Stripe keeps events this long.
    static let horizonMs: Int64 = 30 * 86_400_000
    static let maximumRestarts = 3
    /// The events that can change what a purchase entitles to (Stripe takes at most 20 `types[]`).
    static let eventTypes = [
        "customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted",
        "customer.subscription.paused", "customer.subscription.resumed", "customer.subscription.pending_update_applied",
        "customer.subscription.pending_update_expired", "checkout.session.completed", "checkout.session.async_payment_succeeded",
        "checkout.session.async_payment_failed", "checkout.session.expired", "invoice.paid", "invoice.payment_failed",
        "invoice.payment_succeeded", "invoice.marked_uncollectible", "invoice.voided", "charge.refunded", "charge.refund.updated",
        "charge.dispute.created", "charge.dispute.closed",
    ]

    /// A mode's sync state is named "stripe:test" or "stripe:live" beside Apple's environments.
    static func key(test: Bool) -> String { test ? "stripe:test" : "stripe:live" }

    /// Where a mode's Stripe sync stands, as `ledger_sync_state` gives an environment's.
    public static func state(_ store: Store, test: Bool) throws(GateKitError) -> String {
        JSONWriter.serialize(try store.read { (db) throws(GateKitError) -> SyncState in
            try SyncState.read(db, environment: key(test: test))
        }.json(environment: key(test: test), now: Clock.nowMilliseconds(), toleranceMs: NotificationSync.clockToleranceMs))
    }

    public static func run(ledger: Ledger, client: StripeClient, options: Options) throws(GateKitError) -> Report {
        guard options.budgetMs > 0, options.leaseMs > 0, options.overlapMs >= 0, (options.maximumPages ?? 1) > 0 else {
            throw .invalid("budget_ms and lease_ms must be positive, overlap_ms 0 or more, max_pages positive")
        }
        try Ledger.check(options.ingest)
        var run = StripeSyncRun(ledger: ledger, client: client, options: options)
        guard try run.paging.takeLease(now: run.now) else {
            run.report.state = run.paging.state
            run.report.outcome = .busy
            run.report.stoppedBy = .busy
            return run.report
        }
        defer { _ = try? run.paging.releaseLease() }
        try run.pages()
        run.report.state = run.paging.state
        return run.report
    }
}

/// One `StripeSync.run`: the subscriptions' list the first time, then the Events window, page
/// by page, on the mechanics every store's sync shares (`PagedSync`).
struct StripeSyncRun {
    let ledger: Ledger
    let client: StripeClient
    let options: StripeSync.Options
    let now = Clock.nowMilliseconds()
    var paging: PagedSync
    var report: StripeSync.Report
    /// Objects read back in this call: an object named by several events is asked once.
    var asked: Set<String> = []

    /// The window a first sync lists subscriptions in (before any event window): its start.
    static let listingStartMs: Int64 = 0

    init(ledger: Ledger, client: StripeClient, options: StripeSync.Options) {
        self.ledger = ledger
        self.client = client
        self.options = options
        paging = PagedSync(store: ledger.store, name: StripeSync.key(test: client.isTest), leaseMs: options.leaseMs,
                           budgetMs: options.budgetMs, maximumPages: options.maximumPages,
                           maximumRestarts: Int64(StripeSync.maximumRestarts), malformed: .ESTRIPE_RESPONSE)
        report = StripeSync.Report(mode: client.isTest ? "test" : "live")
    }

    mutating func pages() throws(GateKitError) {
        while true {
            if paging.state.window == nil {
                if paging.state.syncedUntilMs == nil {
                    // The first sync: the subscriptions' list, a window of its own (start 0).
                    paging.open(startMs: StripeSyncRun.listingStartMs, endMs: now)
                } else {
                    let from = max((paging.state.syncedUntilMs ?? now) &- options.overlapMs, now - StripeSync.horizonMs)
                    guard from < now else { return }
                    paging.open(startMs: from, endMs: now)
                }
            }
            guard let window = paging.state.window else { return }
            guard let budget = paging.nextRequestTimeout() else {
                report.outcome = .partial
                report.stoppedBy = paging.stoppedBy == .maximumPages ? .maximumPages : .budget
                return
            }
            let listing = window.startMs == StripeSyncRun.listingStartMs
            let page: StripePage
            do throws(GateKitError) {
                page = try ask(window, listing: listing, within: budget)
            } catch where error.code == .ESTRIPE_TRANSPORT && paging.isSpent() {
                report.outcome = .partial  // the budget ran out inside the request: the page is asked again next time
                report.stoppedBy = .budget
                return
            }
            paging.heard(serverDate: page.serverDate)
            if listing {
                report.listed += try record(subscriptions: page.objects)
            } else {
                report.events += page.objects.count
                try refresh(namedBy: page.objects)
            }
            let cursor = page.hasMore ? page.objects.last?["id"]?.stringValue ?? "" : nil
            let (next, unusable) = paging.after(window, next: cursor, sendable: !(cursor?.isEmpty ?? false)) { (end, serverDate) in
                // A listing says where Stripe's clock stood; its events since come next.
                listing ? min(now - StripeSync.horizonMs, serverDate ?? now) : min(end, serverDate ?? end)
            }
            try ledger.store.write(.subjects([paging.subject]), paging.commit(next))
            paging.recorded(next)
            report.pages = paging.pages
            report.restartedWindows = paging.restartedWindows
            report.clockSkewMs = paging.clockSkewMs
            try paging.failIfExhausted(unusable, window, what: listing ? "the subscriptions list" : "the Events list")
            if paging.state.window == nil, !listing { return }  // caught up: the events to now are read
        }
    }

    struct StripePage {
        let objects: [JSONValue]
        let hasMore: Bool
        let serverDate: Int64?
    }

    /// The window's next page: all subscriptions for the listing, else the events created in
    /// the window (Unix seconds, both ends included) of the types that can change an entitlement.
    func ask(_ window: SyncState.Window, listing: Bool, within budget: Int) throws(GateKitError) -> StripePage {
        var query: [(String, String)] = [("limit", String(StripeClient.pageLimit))]
        if let after = window.pageToken { query.append(("starting_after", after)) }
        let path: String
        if listing {
            path = "/v1/subscriptions"
            query.append(("status", "all"))
        } else {
            path = "/v1/events"
            query += [("created[gte]", String(window.startMs / 1000)), ("created[lte]", String(window.endMs / 1000))]
            query += StripeSync.eventTypes.map { ("types[]", $0) }
        }
        switch try client.get(path, query: StripeClient.formEncoded(query), withinMilliseconds: budget) {
        case let .failure(failure): throw GateKitError(.ESTRIPE_API, "\(path): \(failure.description)", detail: failure.json)
        case let .success(answer):
            guard let document = try? JSONParser.parse(answer.body), document["object"]?.stringValue == "list",
                  case let .array(objects)? = document["data"], let more = document["has_more"]?.boolValue else {
                throw GateKitError(.ESTRIPE_RESPONSE, "a page of \(path) is not Stripe's list object")
            }
            return StripePage(objects: objects, hasMore: more, serverDate: answer.serverDate)
        }
    }

    /// Each listed subscription as Stripe answered it, dated now.
    mutating func record(subscriptions: [JSONValue]) throws(GateKitError) -> Int {
        var recorded = 0
        for subscription in subscriptions {
            let bytes = Array(JSONWriter.serialize(subscription).utf8)
            do throws(GateKitError) {
                _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: bytes, answeredMs: Clock.nowMilliseconds()), options: options.ingest)
                recorded += 1
            } catch where error.code == .ESTRIPE_OBJECT {
                report.refreshFailures.append((subscription["id"]?.stringValue ?? "?", error.message))
            }
        }
        return recorded
    }

    /// The objects a page of events names, each read back from Stripe once per call.
    mutating func refresh(namedBy events: [JSONValue]) throws(GateKitError) {
        for event in events {
            guard let object = event["data"]?["object"], let id = StripeSyncRun.purchase(named: object), !asked.contains(id) else { continue }
            asked.insert(id)
            do throws(GateKitError) {
                _ = try ledger.refreshStripe(objectID: id, client: client, options: options.ingest)
                report.refreshed += 1
            } catch where error.code == .ESTRIPE_API || error.code == .ESTRIPE_OBJECT {
                report.refreshFailures.append((id, error.message))
            }
        }
    }

    /// What an event's object leads the ledger to read: a subscription, a Checkout Session, a
    /// charge or a dispute itself, an invoice's subscription, a refund's charge; nil for anything else.
    static func purchase(named object: JSONValue) -> String? {
        func id(_ member: JSONValue?) -> String? { member?["id"]?.stringValue ?? member?.stringValue }
        switch object["object"]?.stringValue {
        case "subscription"?, "checkout.session"?, "charge"?, "dispute"?: return object["id"]?.stringValue
        case "invoice"?: return id(object["parent"]?["subscription_details"]?["subscription"])
        case "refund"?: return id(object["charge"])
        default: return nil
        }
    }
}
