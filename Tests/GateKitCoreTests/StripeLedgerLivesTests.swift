import Testing
@testable import GateKitLedger
@testable import GateKitReceipts
@testable import GateKitStore
@testable import GateKitStripeData
@testable import GateKitSupport

/// Stripe's lives in the ledger's rule table (docs/ledger.md, "Stripe"): the Subscription and
/// Checkout Session objects Stripe's API answers at each step of a life (stripe.md §3, §4, §8),
/// ingested in a shuffled order with repeats, each row asked as of the instant it names, and
/// every question at every instant the data names (±1 ms) answered as a ledger holding only
/// what Stripe had answered by then answers. Runs on SQLite and, with
/// GATEKIT_TEST_BACKEND=postgresql, on PostgreSQL.
@Suite struct StripeLedgerLivesTests {
    static let day: Int64 = 86_400_000
    static let month: Int64 = 30 * day
    static let t0: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
    static let production = LedgerScope(environment: .production, testData: false)
    static let sandbox = LedgerScope(environment: .sandbox, testData: false)

    /// One subscription item: a price of a product, billed for [start, end).
    struct Item {
        var id: String
        var product = "prod_basic"
        var price = "price_basic_monthly"
        var amount: Int64 = 999
        var currency = "usd"
        var start: Int64
        var end: Int64
        var lookupKey: String?
    }

    /// A Subscription as Stripe renders it at 2025-03-31.basil and later (stripe.md §3): the
    /// period on each item.
    struct Subscription {
        var id: String
        var status = "active"
        var items: [Item]
        var start = t0
        var trialStart: Int64?
        var trialEnd: Int64?
        var cancelAtPeriodEnd = false
        var cancelAt: Int64?
        var canceledAt: Int64?
        var endedAt: Int64?
        var pauseCollection = false
        var livemode = true
        var metadata: [(String, String)] = []

        var bytes: [UInt8] {
            func s(_ ms: Int64?) -> JSONValue { ms.map { .number($0 / 1000) } ?? .null }
            let items = items.map { i -> JSONValue in
                .object([("id", .string(i.id)), ("object", .string("subscription_item")),
                         ("price", .object([("id", .string(i.price)), ("object", .string("price")), ("currency", .string(i.currency)),
                                            ("product", .string(i.product)), ("type", .string("recurring")),
                                            ("lookup_key", i.lookupKey.map { .string($0) } ?? .null),
                                            ("unit_amount", .number(i.amount)),
                                            ("recurring", .object([("interval", .string("month")), ("interval_count", .number(1))]))])),
                         ("quantity", .number(1)), ("current_period_start", s(i.start)), ("current_period_end", s(i.end))])
            }
            return Array(JSONWriter.serialize(.object([
                ("id", .string(id)), ("object", .string("subscription")), ("customer", .string("cus_\(id)")), ("status", .string(status)),
                ("livemode", .bool(livemode)), ("start_date", s(start)), ("trial_start", s(trialStart)), ("trial_end", s(trialEnd)),
                ("cancel_at_period_end", .bool(cancelAtPeriodEnd)), ("cancel_at", s(cancelAt)), ("canceled_at", s(canceledAt)),
                ("ended_at", s(endedAt)),
                ("pause_collection", pauseCollection ? .object([("behavior", .string("void")), ("resumes_at", .null)]) : .null),
                ("collection_method", .string("charge_automatically")), ("latest_invoice", .string("in_\(id)")),
                ("metadata", .object(metadata.map { ($0.0, .string($0.1)) })),
                ("items", .object([("object", .string("list")), ("data", .array(items)), ("has_more", .bool(false))])),
                ("a_member_stripe_added_later", .object([("kept", .bool(true))])),
            ])).utf8)
        }
    }

    /// A Checkout Session retrieved with expand[]=line_items and expand[]=payment_intent.
    static func session(_ id: String, created: Int64, status: String, payment: String, intent: String? = nil, mode: String = "payment",
                        reference: String? = nil, subscription: String? = nil, livemode: Bool = true,
                        product: String = "prod_lifetime", price: String = "price_lifetime") -> [UInt8] {
        let line: JSONValue = .object([("id", .string("li_\(id)")), ("object", .string("item")), ("amount_total", .number(4900)),
                                       ("currency", .string("eur")), ("quantity", .number(1)),
                                       ("price", .object([("id", .string(price)), ("object", .string("price")), ("product", .string(product)),
                                                          ("type", .string(mode == "payment" ? "one_time" : "recurring"))]))])
        return Array(JSONWriter.serialize(.object([
            ("id", .string(id)), ("object", .string("checkout.session")), ("mode", .string(mode)), ("status", .string(status)),
            ("payment_status", .string(payment)), ("livemode", .bool(livemode)), ("created", .number(created / 1000)),
            ("client_reference_id", reference.map { .string($0) } ?? .null), ("customer", .string("cus_\(id)")),
            ("subscription", subscription.map { .string($0) } ?? .null),
            ("payment_intent", intent.map { .object([("id", .string("pi_\(id)")), ("object", .string("payment_intent")), ("status", .string($0))]) } ?? .null),
            ("metadata", .object([])),
            ("line_items", .object([("object", .string("list")), ("data", .array(mode == "payment" ? [line] : [])), ("has_more", .bool(false))])),
        ])).utf8)
    }

    /// An Invoice retrieved with expand[]=payments: its line bills `item` for [start, end), paid
    /// by the payment intent `intent` (nil: marked paid out of band).
    static func invoice(_ id: String, subscription: String, item: String, start: Int64, end: Int64, intent: String?, livemode: Bool = true) -> [UInt8] {
        let payment: JSONValue = intent.map { .object([("type", .string("payment_intent")), ("payment_intent", .string($0))]) }
            ?? .object([("type", .string("out_of_band_payment"))])
        let line: JSONValue = .object([("id", .string("il_\(id)")), ("object", .string("line_item")), ("amount", .number(999)),
                                       ("currency", .string("usd")),
                                       ("period", .object([("start", .number(start / 1000)), ("end", .number(end / 1000))])),
                                       ("parent", .object([("type", .string("subscription_item_details")),
                                                           ("subscription_item_details", .object([("subscription", .string(subscription)),
                                                                                                   ("subscription_item", .string(item)),
                                                                                                   ("proration", .bool(false))]))]))])
        return Array(JSONWriter.serialize(.object([
            ("id", .string(id)), ("object", .string("invoice")), ("livemode", .bool(livemode)), ("status", .string("paid")),
            ("billing_reason", .string("subscription_cycle")), ("amount_paid", .number(999)), ("currency", .string("usd")),
            ("parent", .object([("type", .string("subscription_details")),
                                ("subscription_details", .object([("subscription", .string(subscription)), ("metadata", .object([]))]))])),
            ("lines", .object([("object", .string("list")), ("data", .array([line])), ("has_more", .bool(false))])),
            ("payments", .object([("object", .string("list")), ("has_more", .bool(false)),
                                  ("data", .array([.object([("id", .string("inpay_\(id)")), ("object", .string("invoice_payment")),
                                                            ("status", .string("paid")), ("payment", payment)])]))])),
        ])).utf8)
    }

    /// A Charge retrieved with expand[]=refunds: `refunded` of `amount` refunded at `refundedAt`.
    /// A Charge read with `expand[]=refunds`: one refund of `refunded` at `refundedAt`, or `each` refund given.
    static func charge(_ id: String, intent: String, created: Int64, amount: Int64 = 999, refunded: Int64 = 0, refundedAt: Int64? = nil,
                       each: [(id: String, amount: Int64, at: Int64)]? = nil) -> [UInt8] {
        let given = each ?? refundedAt.map { [(id: "re_\(id)", amount: refunded, at: $0)] } ?? []
        let refunds: [JSONValue] = given.map { r in
            .object([("id", .string(r.id)), ("object", .string("refund")), ("amount", .number(r.amount)), ("status", .string("succeeded")),
                     ("created", .number(r.at / 1000)), ("charge", .string(id))])
        }
        return Array(JSONWriter.serialize(.object([
            ("id", .string(id)), ("object", .string("charge")), ("livemode", .bool(true)), ("created", .number(created / 1000)),
            ("payment_intent", .string(intent)), ("amount", .number(amount)), ("amount_refunded", .number(refunded)),
            ("refunded", .bool(refunded == amount)), ("currency", .string("usd")), ("status", .string("succeeded")), ("disputed", .bool(false)),
            ("refunds", .object([("object", .string("list")), ("data", .array(refunds)), ("has_more", .bool(false))])),
        ])).utf8)
    }

    /// A Dispute on `charge` (paid by `intent`), opened at `created`.
    static func dispute(_ id: String, charge: String, intent: String, created: Int64, status: String) -> [UInt8] {
        Array(JSONWriter.serialize(.object([
            ("id", .string(id)), ("object", .string("dispute")), ("livemode", .bool(true)), ("created", .number(created / 1000)),
            ("charge", .string(charge)), ("payment_intent", .string(intent)), ("status", .string(status)), ("amount", .number(999)),
            ("currency", .string("usd")), ("reason", .string("fraudulent")),
        ])).utf8)
    }

    struct Answer {
        let at: Int64
        let bytes: [UInt8]
    }

    /// A question and the answer it must get, with its source.
    struct Row {
        let customer: String
        let subject: String
        let at: Int64
        let reason: String
        var until: Int64?
        var scope = production
        let source: String
    }

    /// Every life: its answers and the table of what each question must get.
    static func lives() -> ([Answer], [Row]) {
        let (t, d, m) = (t0, day, month)
        var a: [Answer] = []
        var rows: [Row] = []
        func sub(_ at: Int64, _ s: Subscription) { a.append(Answer(at: at, bytes: s.bytes)) }
        func row(_ customer: String, _ subject: String, _ at: Int64, _ reason: String, until: Int64? = nil, scope: LedgerScope = production,
                 _ source: String) {
            rows.append(Row(customer: customer, subject: subject, at: at, reason: reason, until: until, scope: scope, source: source))
        }

        // 1. Renewing monthly: each renewal moves the item's period on.
        sub(t, Subscription(id: "sub_renew", items: [Item(id: "si_renew", start: t, end: t + m)]))
        sub(t + m, Subscription(id: "sub_renew", items: [Item(id: "si_renew", start: t + m, end: t + 2 * m)]))
        row("sub_renew", "prod_basic", t, "subscription", until: t + m, "§3 active: good standing, to the item's current_period_end")
        row("sub_renew", "prod_basic", t + m - 1, "subscription", until: t + m, "§3 items carry the period (basil)")
        row("sub_renew", "prod_basic", t + m, "subscription", until: t + 2 * m, "§4 invoice.paid: extend to the new period's end")
        row("sub_renew", "prod_basic:price_basic_monthly", t + m, "subscription", until: t + 2 * m, "a price named as product:price")
        row("sub_renew", "prod_basic", t + 2 * m, "expired", "§8 entitled only to current_period_end")

        // 2. A trial converting, and one ending without a payment method (paused).
        sub(t, Subscription(id: "sub_trial", status: "trialing", items: [Item(id: "si_trial", start: t, end: t + 14 * d)], trialStart: t, trialEnd: t + 14 * d))
        sub(t + 14 * d, Subscription(id: "sub_trial", items: [Item(id: "si_trial", start: t + 14 * d, end: t + 14 * d + m)], trialStart: t, trialEnd: t + 14 * d))
        row("sub_trial", "prod_basic", t + d, "subscription", until: t + 14 * d, "§3 trialing: safely provision")
        row("sub_trial", "prod_basic", t + 14 * d, "subscription", until: t + 14 * d + m, "§3 trialing becomes active after the first payment")
        sub(t, Subscription(id: "sub_trial_paused", status: "trialing", items: [Item(id: "si_tp", start: t, end: t + 14 * d)], trialStart: t, trialEnd: t + 14 * d))
        sub(t + 14 * d, Subscription(id: "sub_trial_paused", status: "paused", items: [Item(id: "si_tp", start: t + 14 * d, end: t + 14 * d + m)],
                                     trialStart: t, trialEnd: t + 14 * d))
        row("sub_trial_paused", "prod_basic", t + 14 * d - 1, "subscription", until: t + 14 * d, "§3 trialing")
        row("sub_trial_paused", "prod_basic", t + 14 * d, "paused", "§3 paused: a trial ended without a payment method; §4 revoke")

        // 3. Canceled at period end, and at once.
        sub(t, Subscription(id: "sub_cpe", items: [Item(id: "si_cpe", start: t, end: t + m)]))
        sub(t + 10 * d, Subscription(id: "sub_cpe", items: [Item(id: "si_cpe", start: t, end: t + m)], cancelAtPeriodEnd: true, canceledAt: t + 10 * d))
        sub(t + m, Subscription(id: "sub_cpe", status: "canceled", items: [Item(id: "si_cpe", start: t, end: t + m)], cancelAtPeriodEnd: true,
                                canceledAt: t + 10 * d, endedAt: t + m))
        row("sub_cpe", "prod_basic", t + 10 * d, "subscription", until: t + m, "§8 cancel_at_period_end: access until current_period_end")
        row("sub_cpe", "prod_basic", t + m - 1, "subscription", until: t + m, "§3 canceled_at is the request, not the end")
        row("sub_cpe", "prod_basic", t + m, "expired", "§4 customer.subscription.deleted: revoke at ended_at")
        sub(t, Subscription(id: "sub_now", items: [Item(id: "si_now", start: t, end: t + m)]))
        sub(t + 5 * d, Subscription(id: "sub_now", status: "canceled", items: [Item(id: "si_now", start: t, end: t + m)], canceledAt: t + 5 * d, endedAt: t + 5 * d))
        row("sub_now", "prod_basic", t + 5 * d - 1, "subscription", until: t + m, "as known before the cancellation")
        row("sub_now", "prod_basic", t + 5 * d, "expired", "§3 ended_at: when it ended; §8 canceled from ended_at")

        // 4. Past due, then recovered (an invoice paid, or marked paid out of band), canceled or unpaid.
        for (id, end, endStatus) in [("sub_pd_paid", t + m + 3 * d, "active"), ("sub_pd_canceled", t + m + 20 * d, "canceled"),
                                     ("sub_pd_unpaid", t + m + 20 * d, "unpaid")] {
            sub(t, Subscription(id: id, items: [Item(id: "si_\(id)", start: t, end: t + m)]))
            sub(t + m + 3_600_000, Subscription(id: id, status: "past_due", items: [Item(id: "si_\(id)", start: t + m, end: t + 2 * m)]))
            sub(end, Subscription(id: id, status: endStatus, items: [Item(id: "si_\(id)", start: t + m, end: t + 2 * m)],
                                  canceledAt: endStatus == "canceled" ? end : nil, endedAt: endStatus == "canceled" ? end : nil))
            row(id, "prod_basic", t + m + 3_600_000, "grace-period", until: t + 2 * m, "§8 past_due: entitled for the grace (default: the period collected for)")
        }
        row("sub_pd_paid", "prod_basic", t + m + 3 * d, "subscription", until: t + 2 * m, "§4 invoice.paid (or paid out of band): provision when active")
        row("sub_pd_canceled", "prod_basic", t + m + 20 * d, "expired", "§3 after the retries: canceled; §4 revoke")
        row("sub_pd_unpaid", "prod_basic", t + m + 20 * d, "billing-retry", "§3 unpaid: Stripe says revoke")

        // 5. Incomplete, then expired unpaid.
        sub(t, Subscription(id: "sub_incomplete", status: "incomplete", items: [Item(id: "si_inc", start: t, end: t + m)]))
        sub(t + 23 * 3_600_000, Subscription(id: "sub_incomplete", status: "incomplete_expired", items: [Item(id: "si_inc", start: t, end: t + m)],
                                             endedAt: t + 23 * 3_600_000))
        row("sub_incomplete", "prod_basic", t + 1, "pending", "§3 incomplete: the first payment is not made")
        row("sub_incomplete", "prod_basic", t + 23 * 3_600_000, "expired", "§3 incomplete_expired: terminal")

        // 6. An upgrade with proration: the item's price changes (the same item), or an item is
        // swapped for another product's.
        sub(t, Subscription(id: "sub_up", items: [Item(id: "si_up", start: t, end: t + m)]))
        sub(t + 10 * d, Subscription(id: "sub_up", items: [Item(id: "si_up", product: "prod_pro", price: "price_pro_monthly", amount: 1999, start: t, end: t + m)]))
        row("sub_up", "prod_pro", t + 10 * d, "subscription", until: t + m, "§4 customer.subscription.updated: plan change")
        row("sub_up", "prod_basic", t + 10 * d - 1, "subscription", until: t + m, "before the change")
        row("sub_up", "prod_basic", t + 10 * d, "no-purchase", "the item's price is now another product's")
        sub(t, Subscription(id: "sub_swap", items: [Item(id: "si_swap_basic", start: t, end: t + m)]))
        sub(t + 10 * d, Subscription(id: "sub_swap", items: [Item(id: "si_swap_pro", product: "prod_pro", price: "price_pro_monthly", amount: 1999,
                                                                  start: t + 10 * d, end: t + 10 * d + m)]))
        row("sub_swap", "prod_basic", t + 10 * d - 1, "subscription", until: t + m, "before the swap")
        row("sub_swap", "prod_basic", t + 10 * d, "expired", "an item no longer listed was taken off (prorated)")
        row("sub_swap", "prod_pro", t + 10 * d, "subscription", until: t + 10 * d + m, "the new item's period")

        // 7. Collection paused: the status, so access, unchanged.
        sub(t, Subscription(id: "sub_pc", items: [Item(id: "si_pc", start: t, end: t + m)]))
        sub(t + 5 * d, Subscription(id: "sub_pc", items: [Item(id: "si_pc", start: t, end: t + m)], pauseCollection: true))
        row("sub_pc", "prod_basic", t + 5 * d, "subscription", until: t + m, "§3 pause_collection pauses collection only: status unchanged")
        row("sub_pc", "prod_basic", t + m, "expired", "§8 entitled only to current_period_end: no renewal answered")

        // 8. Cancel at a date inside the period.
        sub(t, Subscription(id: "sub_cancel_at", items: [Item(id: "si_ca", start: t, end: t + m)], cancelAt: t + 20 * d))
        row("sub_cancel_at", "prod_basic", t + d, "subscription", until: t + 20 * d, "§3 cancel_at: a future auto-cancel date")
        row("sub_cancel_at", "prod_basic", t + 20 * d, "expired", "§3 cancel_at: canceled on that date")

        // 9. One-time Checkout: paid; async succeeded; async failed; expired.
        a.append(Answer(at: t + 60_000, bytes: session("cs_paid", created: t, status: "complete", payment: "paid", intent: "succeeded")))
        row("cs_paid", "prod_lifetime", t + 60_000, "non-consumable", "§4 checkout.session.completed: fulfil when paid")
        row("cs_paid", "prod_lifetime", t + 60_000 - 1, "unknown-customer", "nothing known before Stripe answered")
        a.append(Answer(at: t + 60_000, bytes: session("cs_async", created: t, status: "complete", payment: "unpaid", intent: "processing")))
        a.append(Answer(at: t + 2 * d, bytes: session("cs_async", created: t, status: "complete", payment: "paid", intent: "succeeded")))
        row("cs_async", "prod_lifetime", t + d, "pending", "§4 async payment not finished: not yet")
        row("cs_async", "prod_lifetime", t + 2 * d, "non-consumable", "§4 checkout.session.async_payment_succeeded: grant")
        a.append(Answer(at: t + 60_000, bytes: session("cs_failed", created: t, status: "complete", payment: "unpaid", intent: "processing")))
        a.append(Answer(at: t + 2 * d, bytes: session("cs_failed", created: t, status: "complete", payment: "unpaid", intent: "requires_payment_method")))
        row("cs_failed", "prod_lifetime", t + d, "pending", "§4 async payment not finished: not yet")
        row("cs_failed", "prod_lifetime", t + 2 * d, "revoked", "§4 checkout.session.async_payment_failed: never grant")
        a.append(Answer(at: t + 60_000, bytes: session("cs_expired", created: t, status: "open", payment: "unpaid")))
        a.append(Answer(at: t + d, bytes: session("cs_expired", created: t, status: "expired", payment: "unpaid")))
        row("cs_expired", "prod_lifetime", t + 60_000, "pending", "§3 open: not paid yet")
        row("cs_expired", "prod_lifetime", t + d, "revoked", "§3 expired: never paid")

        // 10. A status Stripe adds later: never entitled (stripe.md §3 lists the eight).
        sub(t, Subscription(id: "sub_new_status", items: [Item(id: "si_ns", start: t, end: t + m)]))
        sub(t + d, Subscription(id: "sub_new_status", status: "frozen", items: [Item(id: "si_ns", start: t, end: t + m)]))
        row("sub_new_status", "prod_basic", t + d, "expired", "a status GateKit does not know never entitles")

        // 12. Refunds: a whole refund of the period paid for revokes at its instant, never the
        // period paid for since; a refund of part of it takes nothing back; a one-time purchase
        // refunded whole is revoked.
        sub(t, Subscription(id: "sub_refund", items: [Item(id: "si_refund", start: t, end: t + m)]))
        a.append(Answer(at: t + 60_000, bytes: invoice("in_refund", subscription: "sub_refund", item: "si_refund", start: t, end: t + m, intent: "pi_refund")))
        a.append(Answer(at: t + 10 * d, bytes: charge("ch_refund", intent: "pi_refund", created: t, refunded: 999, refundedAt: t + 10 * d)))
        sub(t + m, Subscription(id: "sub_refund", items: [Item(id: "si_refund", start: t + m, end: t + 2 * m)]))
        row("sub_refund", "prod_basic", t + 10 * d - 1, "subscription", until: t + m, "before the refund")
        row("sub_refund", "prod_basic", t + 10 * d, "revoked", "§3 Charge.refunded: refunded whole; issue 62: a full refund revokes at its instant")
        row("sub_refund", "prod_basic", t + m, "subscription", until: t + 2 * m, "§4 invoice.paid: the next period was paid for again")
        sub(t, Subscription(id: "sub_partial", items: [Item(id: "si_partial", start: t, end: t + m)]))
        a.append(Answer(at: t + 60_000, bytes: invoice("in_partial", subscription: "sub_partial", item: "si_partial", start: t, end: t + m, intent: "pi_partial")))
        a.append(Answer(at: t + 10 * d, bytes: charge("ch_partial", intent: "pi_partial", created: t, refunded: 300, refundedAt: t + 10 * d)))
        row("sub_partial", "prod_basic", t + 10 * d, "subscription", until: t + m, "§3 refunded is false for a partial refund: access kept")
        a.append(Answer(at: t + 60_000, bytes: session("cs_refund", created: t, status: "complete", payment: "paid", intent: "succeeded")))
        a.append(Answer(at: t + 3 * d, bytes: charge("ch_cs_refund", intent: "pi_cs_refund", created: t, amount: 4900, refunded: 4900, refundedAt: t + 3 * d)))
        row("cs_refund", "prod_lifetime", t + 3 * d - 1, "non-consumable", "before the refund")
        row("cs_refund", "prod_lifetime", t + 3 * d, "revoked", "§4 charge.refunded: a one-time purchase refunded whole")

        // 13. Disputes (default: revoke when opened, restore when won): one lost, one won.
        for (id, end) in [("lost", "lost"), ("won", "won")] {
            let subID = "sub_dispute_\(id)"
            sub(t, Subscription(id: subID, items: [Item(id: "si_d_\(id)", start: t, end: t + m)]))
            a.append(Answer(at: t + 60_000, bytes: invoice("in_d_\(id)", subscription: subID, item: "si_d_\(id)", start: t, end: t + m, intent: "pi_d_\(id)")))
            a.append(Answer(at: t + 5 * d, bytes: dispute("du_\(id)", charge: "ch_d_\(id)", intent: "pi_d_\(id)", created: t + 5 * d, status: "needs_response")))
            a.append(Answer(at: t + 15 * d, bytes: dispute("du_\(id)", charge: "ch_d_\(id)", intent: "pi_d_\(id)", created: t + 5 * d, status: end)))
            row(subID, "prod_basic", t + 5 * d - 1, "subscription", until: t + m, "before the dispute")
            row(subID, "prod_basic", t + 5 * d, "revoked", "§4 charge.dispute.created: revoke when opened (the default)")
        }
        row("sub_dispute_lost", "prod_basic", t + 15 * d, "revoked", "§3 dispute lost: the money is gone")
        row("sub_dispute_won", "prod_basic", t + 15 * d, "subscription", until: t + m, "§3 dispute won: restored")

        // 14. An invoice marked paid out of band links no payment; the subscription's answer decides.
        a.append(Answer(at: t + m + 3 * d, bytes: invoice("in_oob", subscription: "sub_pd_paid", item: "si_sub_pd_paid", start: t + m, end: t + 2 * m, intent: nil)))

        // 11. Test mode, kept apart as Sandbox is.
        sub(t, Subscription(id: "sub_test", items: [Item(id: "si_test", start: t, end: t + m)], livemode: false))
        row("sub_test", "prod_basic", t + d, "subscription", until: t + m, scope: sandbox, "§1 test objects: livemode false, in Sandbox")
        row("sub_test", "prod_basic", t + d, "unknown-customer", "§1 test and live objects can't see each other")
        return (a, rows)
    }

    static func ingest(_ answers: [Answer], into ledger: Ledger, options: Ledger.StripeOptions = Ledger.StripeOptions()) throws {
        for answer in answers { _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: answer.bytes, answeredMs: answer.at), options: options) }
    }

    static func check(_ rows: [Row], _ ledger: Ledger) throws {
        for r in rows {
            let got = try ledger.entitlement(customer: r.customer, to: r.subject, scope: r.scope, at: .asOf(r.at))
            #expect(got.reason.name == r.reason, "\(r.customer) \(r.subject) at t0+\(r.at - t0): \(r.source)")
            #expect(got.untilMs == r.until, "until: \(r.customer) \(r.subject) at t0+\(r.at - t0)")
            if got.productID != nil { #expect(got.store == .stripe) }
        }
    }

    @Test func everyLifeInAnyOrderWithRepeats() throws {
        let (answers, rows) = Self.lives()
        var rng = SplitMix(seed: 62)
        var order = answers + answers.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        rng.shuffle(&order)
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("stripe-lives.sqlite")))
        try Self.ingest(order, into: ledger)
        try Self.check(rows, ledger)
        let inOrder = Ledger(store: try TestStores.open(folder.file("stripe-in-order.sqlite")))
        try Self.ingest(answers.sorted { $0.at < $1.at }, into: inOrder)
        try Self.check(rows, inOrder)
        #expect(rows.count >= 40)
    }

    /// As of each instant the data names (±1 ms), the ledger holding every answer answers as
    /// one holding only the answers Stripe had given by then: a late answer never rewrites the past.
    @Test func asOfEveryInstantOnlyWhatWasKnownThenCounts() throws {
        let (answers, rows) = Self.lives()
        let folder = TemporaryFolder()
        let full = Ledger(store: try TestStores.open(folder.file("stripe-all.sqlite")))
        try Self.ingest(answers, into: full)
        let growing = Ledger(store: try TestStores.open(folder.file("stripe-growing.sqlite")))
        let byTime = answers.sorted { $0.at < $1.at }
        let instants = Set((answers.map(\.at) + rows.map(\.at)).flatMap { [$0 - 1, $0, $0 + 1] }).sorted()
        let questions = Set(rows.map { "\($0.customer)\u{0}\($0.subject)\u{0}\($0.scope.environment)" }).sorted()
        var next = 0
        for x in instants {
            while next < byTime.count, byTime[next].at <= x {
                try Self.ingest([byTime[next]], into: growing)
                next += 1
            }
            for q in questions {
                let parts = q.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                let scope = parts[2] == "Sandbox" ? Self.sandbox : Self.production
                let known = try growing.entitlement(customer: parts[0], to: parts[1], scope: scope, at: .asOf(x))
                let all = try full.entitlement(customer: parts[0], to: parts[1], scope: scope, at: .asOf(x))
                #expect(all == known, "\(parts[0]) \(parts[1]) at t0+\(x - Self.t0)")
            }
        }
        #expect(instants.count > 40 && questions.count > 15)
    }

    /// A batch records what ingestion one by one records: the lives' subscriptions, sessions and
    /// invoices in one transaction (their charges and disputes then one by one) answer every row
    /// as before. A charge or a dispute in a batch is refused in its place; the rest is recorded.
    @Test func aBatchAnswersAsOneByOne() throws {
        let (answers, rows) = Self.lives()
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("stripe-batch.sqlite")))
        let byOne = try answers.filter { ["charge", "dispute"].contains(try StripeReader.objectKind($0.bytes)) }
        let batched = try answers.filter { !["charge", "dispute"].contains(try StripeReader.objectKind($0.bytes)) }
        let results = try ledger.ingestStripeBatch(batched.map { Ledger.StripeAnswer(bytes: $0.bytes, answeredMs: $0.at) })
        #expect(results.count == batched.count && results.allSatisfy { (try? $0.get().outcome) == .new })
        try Self.ingest(byOne, into: ledger)
        try Self.check(rows, ledger)
        #expect(byOne.count >= 5 && batched.count >= 40)
        let now = Clock.nowMilliseconds()
        let fresh = Subscription(id: "sub_batch", items: [Item(id: "si_batch", start: now - Self.day, end: now + Self.month)],
                                 start: now - Self.day, metadata: [("app_user_id", "bea")])
        let mixed = try ledger.ingestStripeBatch([Ledger.StripeAnswer(bytes: byOne[0].bytes, answeredMs: nil),
                                                  Ledger.StripeAnswer(bytes: fresh.bytes, answeredMs: now - 1_000)])
        guard case let .failure(refused) = mixed[0], case let .success(recorded) = mixed[1] else {
            Issue.record("a charge in a batch must be refused and the subscription after it recorded: \(mixed)")
            return
        }
        #expect(refused.code == .ESTRIPE_OBJECT && refused.message.contains("one by one") && recorded.outcome == .new)
        // The metadata's user is linked in the batch too.
        #expect(try ledger.entitlement(appUserID: "bea", to: "prod_basic", scope: Self.production, at: .now).isEntitled)
    }

    /// The host's grace for past_due: none, three days, and the default (the period collected for).
    @Test func thePastDueGraceIsTheHosts() throws {
        let (t, d, m) = (Self.t0, Self.day, Self.month)
        let folder = TemporaryFolder()
        for (grace, at, reason, until) in [(Int64(0), t + m + 3_600_000, "billing-retry", Int64?.none),
                                           (3 * d, t + m + 2 * d, "grace-period", t + m + 3 * d),
                                           (3 * d, t + m + 3 * d, "billing-retry", nil)] {
            let ledger = Ledger(store: try TestStores.open(folder.file("grace-\(grace)-\(at).sqlite")))
            var options = Ledger.StripeOptions()
            options.pastDueGraceMs = grace
            try Self.ingest([Answer(at: t + m + 3_600_000, bytes: Subscription(id: "sub_g", status: "past_due",
                                                                               items: [Item(id: "si_g", start: t + m, end: t + 2 * m)]).bytes)],
                            into: ledger, options: options)
            let got = try ledger.entitlement(customer: "sub_g", to: "prod_basic", scope: Self.production, at: .asOf(at))
            #expect(got.reason.name == reason && got.untilMs == until, "grace \(grace) at t0+\(at - t)")
        }
        var bad = Ledger.StripeOptions()
        bad.pastDueGraceMs = -5
        let ledger = Ledger(store: try TestStores.open(folder.file("bad.sqlite")))
        #expect(throws: GateKitError.self) { try Self.ingest([Answer(at: t, bytes: Subscription(id: "sub_b", items: [Item(id: "si_b", start: t, end: t + m)]).bytes)], into: ledger, options: bad) }
        bad = Ledger.StripeOptions()
        bad.accountMetadataKey = "user[id]"
        #expect(throws: GateKitError.self) { try Self.ingest([Answer(at: t, bytes: Subscription(id: "sub_b", items: [Item(id: "si_b", start: t, end: t + m)]).bytes)], into: ledger, options: bad) }
    }

    /// The host's policy for disputes: revoke when opened (the default) or only once lost, or never.
    @Test func theDisputePolicyIsTheHosts() throws {
        let (t, d, m) = (Self.t0, Self.day, Self.month)
        let folder = TemporaryFolder()
        let policies: [(Ledger.StripeOptions.DisputePolicy, open: String, lost: String, won: String)] = [
            (.revokeWhenOpened, "revoked", "revoked", "subscription"),
            (.revokeWhenLost, "subscription", "revoked", "subscription"),
            (.never, "subscription", "subscription", "subscription"),
        ]
        for (policy, open, lost, won) in policies {
            var options = Ledger.StripeOptions()
            options.disputes = policy
            for (end, expected) in [("needs_response", open), ("lost", lost), ("won", won), ("warning_closed", won)] {
                let ledger = Ledger(store: try TestStores.open(folder.file("dispute-\(policy.rawValue)-\(end).sqlite")))
                try Self.ingest([Answer(at: t, bytes: Subscription(id: "sub_p", items: [Item(id: "si_p", start: t, end: t + m)]).bytes),
                                 Answer(at: t + 1, bytes: Self.invoice("in_p", subscription: "sub_p", item: "si_p", start: t, end: t + m, intent: "pi_p")),
                                 Answer(at: t + 5 * d, bytes: Self.dispute("du_p", charge: "ch_p", intent: "pi_p", created: t + 5 * d, status: end))],
                                into: ledger, options: options)
                let got = try ledger.entitlement(customer: "sub_p", to: "prod_basic", scope: Self.production, at: .asOf(t + 6 * d))
                #expect(got.reason.name == expected, "\(policy) \(end)")
                // Revoked from when the dispute was opened.
                if expected == "revoked" {
                    #expect(try ledger.entitlement(customer: "sub_p", to: "prod_basic", scope: Self.production, at: .asOf(t + 5 * d - 1)).reason.name == "subscription")
                }
            }
        }
    }

    /// A refund the ledger hears of before what its payment paid for waits for it: the Invoice
    /// that links the payment brings the refund into the answer, and into the feed.
    @Test func aRefundToldBeforeItsInvoiceTakesEffectWhenTheInvoiceLinksIt() throws {
        let (t, d, m) = (Self.t0, Self.day, Self.month)
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("refund-first.sqlite")))
        try Self.ingest([Answer(at: t, bytes: Subscription(id: "sub_f", items: [Item(id: "si_f", start: t, end: t + m)]).bytes),
                         Answer(at: t + 2 * d, bytes: Self.charge("ch_f", intent: "pi_f", created: t, refunded: 999, refundedAt: t + 2 * d))], into: ledger)
        #expect(try ledger.entitlement(customer: "sub_f", to: "prod_basic", scope: Self.production, at: .asOf(t + 3 * d)).reason.name == "subscription")
        #expect(try !ledger.knowsStripePayment("pi_f", livemode: true))
        try Self.ingest([Answer(at: t + 3 * d, bytes: Self.invoice("in_f", subscription: "sub_f", item: "si_f", start: t, end: t + m, intent: "pi_f"))],
                        into: ledger)
        #expect(try ledger.knowsStripePayment("pi_f", livemode: true))
        #expect(try ledger.entitlement(customer: "sub_f", to: "prod_basic", scope: Self.production, at: .asOf(t + 3 * d)).reason.name == "revoked")
        // As known before the invoice arrived: entitled (the link was not known then).
        #expect(try ledger.entitlement(customer: "sub_f", to: "prod_basic", scope: Self.production, at: .asOf(t + 3 * d - 1)).reason.name == "subscription")
        #expect(try !ledger.knowsStripePayment("pi_other", livemode: true))

        // Now: the feed says the change when the invoice links the refund told before it.
        let now = Clock.nowMilliseconds()
        let live = Ledger(store: try TestStores.open(folder.file("refund-feed.sqlite")))
        try Self.ingest([Answer(at: now - 5_000, bytes: Subscription(id: "sub_n", items: [Item(id: "si_n", start: now - d, end: now + m)],
                                                                     start: now - d).bytes),
                         Answer(at: now - 4_000, bytes: Self.charge("ch_n", intent: "pi_n", created: now - d, refunded: 999, refundedAt: now - 4_000))],
                        into: live)
        let before = try live.changesJSON(after: 0, limit: 100)
        #expect(!before.contains(#""reason":"revoked""#), "\(before)")
        try Self.ingest([Answer(at: now - 3_000, bytes: Self.invoice("in_n", subscription: "sub_n", item: "si_n", start: now - d, end: now + m, intent: "pi_n"))],
                        into: live)
        let after = try live.changesJSON(after: 0, limit: 100)
        #expect(after.contains(#""reason":"revoked""#) && after.contains("sub_n"), "\(after)")
        #expect(try !live.entitlement(customer: "sub_n", to: "prod_basic", scope: Self.production, at: .now).isEntitled)
    }

    /// The app's user id in the metadata (or a Checkout Session's client_reference_id) links the
    /// purchase to that app account, which then holds an App Store purchase (a real production
    /// receipt, Apple-signed: its lifetime unlock and its yearly subscription that ended in 2022),
    /// a Play subscription and a Stripe one: one question by the catalog's name answers for the
    /// three stores, and the account's history names each. A later answer never undoes a
    /// transfer the host made.
    @Test func oneAppAccountHoldsAnAppleAPlayAndAStripePurchase() throws {
        let (t, m) = (Self.t0, Self.month)
        let now = Clock.nowMilliseconds()
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("account.sqlite")))
        let stripe = Subscription(id: "sub_alice", items: [Item(id: "si_alice", product: "prod_web", price: "price_web", start: now - 86_400_000, end: now + m)],
                                  start: now - 86_400_000, metadata: [("app_user_id", "alice")])
        #expect(try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: stripe.bytes, answeredMs: now - 1_000)).outcome == .new)
        let play = PlayLedgerLivesTests.subscription("ACTIVE", start: now - 86_400_000, [.init(product: "app", expiry: now + m, order: "GPA.77")])
        _ = try ledger.ingestPlaySubscription(Ledger.PlayAnswer(packageName: PlayLedgerLivesTests.package, purchaseToken: "play-token", bytes: play, answeredMs: now - 1_000))
        #expect(try ledger.link(appUserID: "alice", customer: "play-token", environment: .production) == .linked)
        let active = try ledger.active(appUserID: "alice", scope: Self.production, at: .now)
        #expect(Set(active.compactMap(\.productID)) == ["prod_web:price_web", "app:monthly"])
        #expect(Set(active.compactMap { $0.store?.name }) == ["stripe", "play"])
        // The App Store: a Mac receipt Apple signed in 2023 (../shared/fixtures/expected/receipts.json).
        let receiptFile = "receipts/apple/arv__mindnode_mac_sha256_receipt.der"
        guard let receipt = FixtureFiles.read(receiptFile) else { return FixtureFiles.skipNote(receiptFile) }
        let bundle = "com.ideasoncanvas.mindnode.macos", lifetime = bundle + ".iap.fullversionfree", yearly = bundle + ".subscription.yearly"
        let ingested = try receipt.withUnsafeBytes { (bytes) throws(GateKitError) in
            try ledger.ingestReceipt(bytes, options: ReceiptValidationOptions(bundleID: bundle))
        }
        #expect(ingested.outcome == .new && ingested.scope == Self.production)
        for original in ["710000253893482", "710000831465389"] {  // the lifetime unlock, the yearly subscription
            #expect(try ledger.link(appUserID: "alice", customer: original, environment: .production) == .linked)
        }
        let catalog = try ProductCatalog(json: Array("""
            {"products":{"\(lifetime)":{"type":"non-consumable","entitlements":["pro"]},"\(yearly)":{"type":"auto-renewable","entitlements":["pro"]},
             "app":{"entitlements":["pro"]},"prod_web":{"entitlements":["pro"]}}}
            """.utf8))
        _ = try ledger.declareCatalog(catalog, effectiveMs: nil)
        let pro = try ledger.active(appUserID: "alice", scope: Self.production, at: .now).filter { ($0.grants ?? []).contains("pro") }
        #expect(Set(pro.compactMap { $0.store?.name }) == ["app-store", "play", "stripe"], "\(pro)")
        #expect(Set(pro.compactMap(\.productID)) == [lifetime, "app:monthly", "prod_web:price_web"])
        #expect(try ledger.entitlement(appUserID: "alice", to: "pro", scope: Self.production, at: .now).isEntitled)
        // Apple's subscription, bought on 2021-09-10T12:37:29Z, ended in 2022, as the receipt says.
        let ended = try ledger.entitlement(appUserID: "alice", to: yearly, scope: Self.production, at: .now)
        #expect(ended.reason == .expired && ended.sinceMs == 1_631_277_449_000 && ended.store?.name == "app-store", "\(ended)")
        let history = try ledger.historyJSON(appUserID: "alice", scope: Self.production)
        for held in ["710000831465389", "sub_alice", "play-token"] { #expect(history.contains(held), "\(held)") }
        // A Checkout Session's client_reference_id links what it sold.
        _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Self.session("cs_alice", created: now - 5_000, status: "complete", payment: "paid",
                                                                                  intent: "succeeded", reference: "alice"), answeredMs: now - 1_000))
        #expect(try ledger.entitlement(appUserID: "alice", to: "prod_lifetime", scope: Self.production, at: .now).reason == .nonConsumable)
        // The host moves the subscription to bob; Stripe's next answer still names alice: bob keeps it.
        #expect(try ledger.link(appUserID: "bob", customer: "sub_alice", environment: .production) == .transferred)
        var renewed = stripe
        renewed.cancelAtPeriodEnd = true
        _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: renewed.bytes, answeredMs: now - 500))
        #expect(try ledger.entitlement(appUserID: "bob", to: "prod_web", scope: Self.production, at: .now).isEntitled)
        #expect(try !ledger.entitlement(appUserID: "alice", to: "prod_web", scope: Self.production, at: .now).isEntitled)
        _ = t
    }

    /// A catalog names a Stripe price alone (":price_…", a plan of any product: price ids are
    /// unique in an account) or every price of a product ("prod_…"): a purchase grants both
    /// entries' names, answers to its price's key, and the metrics split by those names.
    @Test func aCatalogNamesAPriceAloneOrEveryPriceOfItsProduct() throws {
        let (d, m) = (Self.day, Self.month)
        let now = Clock.nowMilliseconds()
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("prices.sqlite")))
        for (sub, price) in [("sub_m", "price_pro_monthly"), ("sub_y", "price_pro_yearly")] {
            let s = Subscription(id: sub, items: [Item(id: "si_" + sub, product: "prod_pro", price: price, start: now - d, end: now + m)], start: now - d)
            _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: s.bytes, answeredMs: now - 1_000))
        }
        let catalog = try ProductCatalog(json: Array(#"{"products":{":price_pro_monthly":{"entitlements":["pro"]},"prod_pro":{"entitlements":["member"]}}}"#.utf8))
        let report = try ledger.declareCatalog(catalog, effectiveMs: nil)
        #expect(report.unseenProducts.isEmpty && report.unnamedProducts.isEmpty && report.warnings.isEmpty, "\(report.warnings)")
        #expect(report.entitlementChanges == [.init(product: "prod_pro:price_pro_monthly", gained: ["member", "pro"], lost: []),
                                              .init(product: "prod_pro:price_pro_yearly", gained: ["member"], lost: [])])
        func answer(_ customer: String, _ name: String) throws -> Entitlement {
            try ledger.entitlement(customer: customer, to: name, scope: Self.production, at: .now)
        }
        #expect(try answer("sub_m", "pro").isEntitled && answer("sub_m", "pro").grants == ["pro", "member"])
        #expect(try answer("sub_y", "pro").reason == .noPurchase && answer("sub_y", "member").grants == ["member"])
        #expect(try answer("sub_y", ":price_pro_yearly").isEntitled && !answer("sub_m", ":price_pro_yearly").isEntitled)
        let tally = try ledger.metricsTally(MetricsRequest(scope: Self.production, from: now - 2 * d, to: now + d, granularity: .day,
                                                           dimension: .entitlement, asOf: .now))
        #expect(Set(tally.series.keys) == ["pro", "member"])
        #expect(tally.series["pro"].map { tally.levels($0, .activeSubscriptions).last } == 1)
        #expect(tally.series["member"].map { tally.levels($0, .activeSubscriptions).last } == 2)
    }

    /// A catalog names prices by their lookup key: every price an answer showed bearing it —
    /// the old price after the key moved to a new one (its buyers keep what they bought), a price
    /// given the key later from that answer on (as-of answers read the keys known then). A
    /// typo'd key is reported with the nearest one borne.
    @Test func aCatalogNamesPricesByTheirLookupKey() throws {
        let (d, m) = (Self.day, Self.month)
        let now = Clock.nowMilliseconds()
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("lookup-keys.sqlite")))
        func subscribe(_ sub: String, _ price: String, key: String?, at answered: Int64) throws {
            let s = Subscription(id: sub, items: [Item(id: "si_" + sub, product: "prod_pro", price: price, start: now - 20 * d, end: now + m,
                                                       lookupKey: key)], start: now - 20 * d)
            _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: s.bytes, answeredMs: answered))
        }
        try subscribe("sub_old", "price_old", key: "pro_monthly", at: now - 20 * d)
        // transfer_lookup_key: the new price bears the key; the old one's next answer shows none.
        try subscribe("sub_new", "price_new", key: "pro_monthly", at: now - 10 * d)
        try subscribe("sub_old", "price_old", key: nil, at: now - 9 * d)
        // A price sold without a key is given it later.
        try subscribe("sub_late", "price_late", key: nil, at: now - 20 * d)
        try subscribe("sub_late", "price_late", key: "pro_monthly", at: now - 3 * d)
        try subscribe("sub_plain", "price_plain", key: "basic_monthly", at: now - 20 * d)
        let typo = try ProductCatalog(json: Array(#"{"lookupKeys":{"pro_montly":{"entitlements":["pro"]}}}"#.utf8))
        let checked = try ledger.declareCatalog(typo, effectiveMs: nil, checkOnly: true)
        #expect(checked.unseenLookupKeys == [.init(product: "pro_montly", didYouMean: "pro_monthly")], "\(checked.unseenLookupKeys)")
        #expect(checked.warnings.contains { $0.contains("did you mean \"pro_monthly\"") }, "\(checked.warnings)")
        let catalog = try ProductCatalog(json: Array(#"""
            {"correction":"lookup keys from the start","lookupKeys":{"pro_monthly":{"entitlements":["pro"]}},"products":{"prod_pro":{"entitlements":["member"]}}}
            """#.utf8))
        let report = try ledger.declareCatalog(catalog, effectiveMs: now - 30 * d)
        #expect(report.unseenLookupKeys.isEmpty && report.unnamedProducts.isEmpty)
        #expect(report.entitlementChanges.first { $0.product == "prod_pro:price_late" }?.gained == ["member", "pro"])
        #expect(report.entitlementChanges.first { $0.product == "prod_pro:price_plain" }?.gained == ["member"])
        #expect(try ProductCatalog(json: Array(JSONWriter.serialize(catalog.json).utf8)) == catalog)
        func pro(_ sub: String, at instant: LedgerInstant = .now) throws -> Bool {
            try ledger.entitlement(customer: sub, to: "pro", scope: Self.production, at: instant).isEntitled
        }
        #expect(try pro("sub_old") && pro("sub_new") && pro("sub_late") && !pro("sub_plain"))
        #expect(try ledger.entitlement(customer: "sub_plain", to: "member", scope: Self.production, at: .now).isEntitled)
        // As known then: the late price bore no key 5 days ago; the old one did from the start.
        #expect(try !pro("sub_late", at: .asOf(now - 5 * d)) && pro("sub_late", at: .asOf(now - 3 * d)))
        #expect(try pro("sub_old", at: .asOf(now - 15 * d)) && !pro("sub_new", at: .asOf(now - 15 * d)))
        let tally = try ledger.metricsTally(MetricsRequest(scope: Self.production, from: now - 2 * d, to: now + d, granularity: .day,
                                                           dimension: .entitlement, asOf: .now))
        #expect(tally.series["pro"].map { tally.levels($0, .activeSubscriptions).last } == 3)
        #expect(tally.series["member"].map { tally.levels($0, .activeSubscriptions).last } == 4)
        // A key is no name a question may use (unknown-name); its entry's names are.
        let byKey = try ledger.entitlement(customer: "sub_new", to: "pro_monthly", scope: Self.production, at: .now)
        #expect(byKey.reason == .unknownName, "\(byKey)")
    }

    /// Payments taken back in the metrics (docs/ledger.md, "Metrics"): a refund in full or a
    /// dispute counts as a refund of what its payment paid for, at its instant and at the price
    /// that period's own answer named — a period before the newest one too; a partial refund
    /// counts its amount at its instant (no refunded transaction: access stays), until the
    /// payment is refunded whole, which then counts the price; a dispute counts nothing from the
    /// answer that says it was won. The day roll-up and every row agree.
    @Test func paymentsTakenBackCountAsRefunds() throws {
        let (d, m, t) = (Self.day, Self.month, Self.t0)
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("refund-metrics.sqlite")))
        func sub(_ id: String, answered: Int64, period: Int64) -> Answer {
            Answer(at: answered, bytes: Subscription(id: id, items: [Item(id: "si_" + id, start: period, end: period + m)], start: t).bytes)
        }
        func paid(_ invoice: String, _ sub: String, _ period: Int64, by intent: String) -> Answer {
            Answer(at: period + 1_000, bytes: Self.invoice(invoice, subscription: sub, item: "si_" + sub, start: period, end: period + m, intent: intent))
        }
        try Self.ingest([
            sub("sub_r", answered: t, period: t), sub("sub_r", answered: t + m, period: t + m),  // two months at 9.99
            paid("in_r1", "sub_r", t, by: "pi_r1"), paid("in_r2", "sub_r", t + m, by: "pi_r2"),
            // The first month refunded in full in February (its answer no longer the newest), then the second.
            Answer(at: t + m + 5 * d, bytes: Self.charge("ch_r1", intent: "pi_r1", created: t, refunded: 999, refundedAt: t + m + 5 * d)),
            Answer(at: t + m + 10 * d, bytes: Self.charge("ch_r2", intent: "pi_r2", created: t + m, refunded: 999, refundedAt: t + m + 10 * d)),
            sub("sub_p", answered: t, period: t), paid("in_p", "sub_p", t, by: "pi_p"),
            Answer(at: t + 5 * d, bytes: Self.charge("ch_p", intent: "pi_p", created: t, refunded: 500, refundedAt: t + 5 * d)),
            sub("sub_d", answered: t, period: t), paid("in_d", "sub_d", t, by: "pi_d"),
            Answer(at: t + 15 * d, bytes: Self.dispute("dp_d", charge: "ch_d", intent: "pi_d", created: t + 15 * d, status: "needs_response")),
            Answer(at: t + 20 * d, bytes: Self.dispute("dp_d", charge: "ch_d", intent: "pi_d", created: t + 15 * d, status: "won")),
            // February's 9.99 refunded 3.00 on the 4th, then the rest on the 9th: refunded whole.
            sub("sub_q", answered: t + m, period: t + m), paid("in_q", "sub_q", t + m, by: "pi_q"),
            Answer(at: t + m + 3 * d, bytes: Self.charge("ch_q", intent: "pi_q", created: t + m, refunded: 300, each: [("re_q1", 300, t + m + 3 * d)])),
            Answer(at: t + m + 8 * d, bytes: Self.charge("ch_q", intent: "pi_q", created: t + m, refunded: 999,
                                                         each: [("re_q1", 300, t + m + 3 * d), ("re_q2", 699, t + m + 8 * d)])),
        ], into: ledger)
        let april = t + 90 * d
        for streaming in [false, true] {
            func refunds(asOf: Int64) throws -> (money: [String: [Int64]], count: [Int]) {
                let tally = try ledger.metricsTally(MetricsRequest(scope: Self.production, from: t, to: april, granularity: .month,
                                                                   asOf: .asOf(asOf)), streaming: streaming)
                guard let all = tally.series[nil] else { return ([:], []) }
                return (all.refunds.filter { $0.value.contains { $0 != 0 } }, tally.flows(all, .refunded))
            }
            let whileDisputed = try refunds(asOf: t + 17 * d)  // sub_p's 5.00 and sub_d's 9.99
            #expect(whileDisputed.money == ["USD": [14_990]] && whileDisputed.count == [1], "streaming \(streaming): \(whileDisputed)")
            let inPart = try refunds(asOf: t + m + 6 * d)  // February: sub_r's first month and sub_q's 3.00
            #expect(inPart.money == ["USD": [5_000, 12_990]] && inPart.count == [0, 1], "streaming \(streaming): \(inPart)")
            let after = try refunds(asOf: april - 1)  // February: sub_r's two months and sub_q's whole month
            #expect(after.money == ["USD": [5_000, 29_970, 0]] && after.count == [0, 3, 0], "streaming \(streaming): \(after)")
        }
    }

    /// What is not a Stripe object the ledger reads is refused with the member that is wrong,
    /// and nothing is recorded.
    @Test func whatIsNotAStripeObjectIsRefusedWithItsReason() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("refused.sqlite")))
        let good = String(decoding: Subscription(id: "sub_x", items: [Item(id: "si_x", start: Self.t0, end: Self.t0 + Self.month)]).bytes, as: UTF8.self)
        let cases: [(String, String)] = [
            ("not json", "not JSON"),
            (#"{"object":"customer","id":"cus_1"}"#, "\"customer\""),
            (#"{"object":"invoice","id":"in_1","livemode":true}"#, "expand[]=payments"),
            (#"{"object":"charge","id":"ch_1","livemode":true,"created":1,"amount":5,"currency":"usd"}"#, "no refunded"),
            (#"{"id":"sub_1"}"#, "no \"object\""),
            (good.replacingOccurrences(#""status":"active""#, #""status":7"#), "status is not a string"),
            (good.replacingOccurrences(#""livemode":true"#, #""livemode":"yes""#), "livemode is not true or false"),
            (good.replacingOccurrences(#""has_more":false"#, #""has_more":true"#), "more pages"),
            (good.replacingOccurrences(#""current_period_end""#, #""period_end""#), "2025-03-31.basil"),
            (String(decoding: Self.session("cs_x", created: Self.t0, status: "complete", payment: "paid"), as: UTF8.self)
                .replacingOccurrences(#""line_items":{"object":"list","data":[{"#, #""line_items_not":{"object":"list","data":[{"#),
             "without its line items"),
        ]
        for (body, reason) in cases {
            do {
                _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Array(body.utf8), answeredMs: nil))
                Issue.record("accepted: \(body.prefix(60))")
            } catch {
                #expect(error.code == .ESTRIPE_OBJECT && error.message.contains(reason), "\(reason): \(error.message)")
            }
        }
        #expect(try ledger.entitlement(customer: "sub_x", to: "prod_basic", scope: Self.production, at: .now).reason == .unknownCustomer)
        // An answer from the future is refused.
        #expect(throws: GateKitError.self) { try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Array(good.utf8), answeredMs: Clock.nowMilliseconds() + 60_000)) }
        // Money exact in the currency's minor unit.
        #expect(StripeMoney(currency: "usd", minorUnits: 999).milliunits == 9990)
        #expect(StripeMoney(currency: "jpy", minorUnits: 500).milliunits == 500_000)
        #expect(StripeMoney(currency: "kwd", minorUnits: 5120).milliunits == 5120)
        #expect(StripeMoney(currency: "ugx", minorUnits: 500).milliunits == 5000)
        #expect(StripeMoney(currency: "usd", minorUnits: .max).milliunits == nil)
    }
}
