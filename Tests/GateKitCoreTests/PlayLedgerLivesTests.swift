import Testing
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// Google Play's lives in the ledger's rule table (docs/ledger.md, "Google Play"): the
/// SubscriptionPurchaseV2 and ProductPurchaseV2 answers Google documents for each step of a
/// life (google-play.md §5), ingested in a shuffled order with repeats, each row asked as of
/// the instant it names and 1 ms before (what was known then, and nothing later). Runs on
/// SQLite and, with GATEKIT_TEST_BACKEND=postgresql, on PostgreSQL.
@Suite struct PlayLedgerLivesTests {
    static let day: Int64 = 86_400_000
    static let month: Int64 = 30 * day
    static let t0: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
    static let package = "com.example.app"
    static let alice = "6f1c0c8e-5f5e-4c1e-9d55-2b8f1d0e7a11"

    /// One line item of a subscription answer.
    struct Item {
        var product = "pro"
        var basePlan = "monthly"
        var expiry: Int64?
        var autoRenew: Bool? = true  // nil: a prepaid plan
        var order: String?
        var phase = "basePrice"
        var deferredTo: String?
    }

    static func time(_ ms: Int64) -> JSONValue {
        let c = Timestamp.civil(milliseconds: ms)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = String(1000 + c.millisecond).dropFirst()
        return .string("\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second)).\(fraction)Z")
    }

    /// A SubscriptionPurchaseV2 as Google documents its members (google-play.md §3.3-3.6).
    static func subscription(_ state: String, start: Int64?, _ items: [Item], linked: String? = nil, test: Bool = false,
                             acknowledged: Bool = true, account: String? = alice, pausedUntil: Int64? = nil,
                             canceled: String? = nil) -> [UInt8] {
        var members: [(String, JSONValue)] = [("kind", .string("androidpublisher#subscriptionPurchaseV2")), ("regionCode", .string("US")),
                                              ("subscriptionState", .string("SUBSCRIPTION_STATE_\(state)"))]
        if let start { members.append(("startTime", time(start))) }
        if let linked { members.append(("linkedPurchaseToken", .string(linked))) }
        if let pausedUntil { members.append(("pausedStateContext", .object([("autoResumeTime", time(pausedUntil))]))) }
        if let canceled { members.append(("canceledStateContext", .object([(canceled, .object([]))]))) }
        if test { members.append(("testPurchase", .object([]))) }
        members.append(("acknowledgementState", .string(acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING")))
        if let account { members.append(("externalAccountIdentifiers", .object([("obfuscatedExternalAccountId", .string(account))]))) }
        members.append(("lineItems", .array(items.map { item in
            var line: [(String, JSONValue)] = [("productId", .string(item.product))]
            if let expiry = item.expiry { line.append(("expiryTime", time(expiry))) }
            if let renews = item.autoRenew {
                line.append(("autoRenewingPlan", .object([("autoRenewEnabled", .bool(renews)), ("recurringPrice", .object([
                    ("currencyCode", .string("USD")), ("units", .string("4")), ("nanos", .number("990000000"))]))])))
            } else {
                line.append(("prepaidPlan", .object([])))
            }
            line.append(("offerDetails", .object([("basePlanId", .string(item.basePlan)), ("offerTags", .array([]))])))
            line.append(("offerPhase", .object([(item.phase, .object([]))])))
            if let order = item.order { line.append(("latestSuccessfulOrderId", .string(order))) }
            if let to = item.deferredTo { line.append(("deferredItemReplacement", .object([("productId", .string(to))]))) }
            return .object(line)
        })))
        return Array(JSONWriter.serialize(.object(members)).utf8)
    }

    /// A ProductPurchaseV2 (google-play.md §3.8).
    static func product(_ state: String, completed: Int64?, product: String = "lifetime", order: String?, consumed: Bool = false,
                        account: String? = alice) -> [UInt8] {
        var members: [(String, JSONValue)] = [("kind", .string("androidpublisher#productPurchaseV2")),
                                              ("purchaseStateContext", .object([("purchaseState", .string(state))]))]
        if let completed { members.append(("purchaseCompletionTime", time(completed))) }
        if let order { members.append(("orderId", .string(order))) }
        if let account { members.append(("obfuscatedExternalAccountId", .string(account))) }
        members.append(("acknowledgementState", .string("ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")))
        members.append(("productLineItem", .array([.object([("productId", .string(product)), ("productOfferDetails", .object([
            ("quantity", .number("1")), ("refundableQuantity", .number(consumed ? "0" : "1")),
            ("consumptionState", .string(consumed ? "CONSUMPTION_STATE_CONSUMED" : "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"))]))])])))
        return Array(JSONWriter.serialize(.object(members)).utf8)
    }

    struct Answer {
        let token: String
        let at: Int64
        let bytes: [UInt8]
        var isProduct = false
    }

    struct Row {
        let customer: String
        let subject: String
        let at: Int64
        let reason: String
        var until: Int64? = nil
        var status: Int64? = nil
        var store: PurchaseStore? = .play
        var test = false
        /// The row's source in Google's documentation.
        let source: String
    }

    /// Every life: its answers and the table of what each question must get.
    static func lives() -> ([Answer], [Row]) {
        let (t, d, m) = (t0, day, month)
        var a: [Answer] = []
        var rows: [Row] = []
        func sub(_ token: String, _ at: Int64, _ state: String, start: Int64? = t0, _ items: [Item], linked: String? = nil, test: Bool = false,
                 acknowledged: Bool = true, account: String? = alice, pausedUntil: Int64? = nil, canceled: String? = nil) {
            a.append(Answer(token: token, at: at, bytes: subscription(state, start: start, items, linked: linked, test: test, acknowledged: acknowledged,
                                                                         account: account, pausedUntil: pausedUntil, canceled: canceled)))
        }
        func row(_ customer: String, _ subject: String, _ at: Int64, _ reason: String, until: Int64? = nil, status: Int64? = nil,
                 test: Bool = false, _ source: String) {
            rows.append(Row(customer: customer, subject: subject, at: at, reason: reason, until: until, status: status, test: test, source: source))
        }

        // 1. Renewing (§5.3 PURCHASED, RENEWED).
        sub("renewing", t, "ACTIVE", [Item(product: "renew", expiry: t + m, order: "GPA.01")])
        sub("renewing", t + m, "ACTIVE", [Item(product: "renew", expiry: t + 2 * m, order: "GPA.01..0")])
        row("renewing", "renew", t, "subscription", until: t + m, status: 1, "§5.1 ACTIVE entitles")
        row("renewing", "renew", t + m, "subscription", until: t + 2 * m, status: 1, "§5.3 RENEWED: new expiryTime")
        row("renewing", "renew", t + 2 * m, "expired", status: 2, "§5.1 entitled only before expiryTime")

        // 2. Canceled, running to its expiry (§5.1 CANCELED).
        sub("canceled", t, "ACTIVE", [Item(product: "cancel", expiry: t + m, order: "GPA.02")])
        sub("canceled", t + 10 * d, "CANCELED", [Item(product: "cancel", expiry: t + m, autoRenew: false, order: "GPA.02")],
            canceled: "userInitiatedCancellation")
        row("canceled", "cancel", t + 10 * d, "subscription", until: t + m, status: 1, "§5.1 CANCELED: yes until expiryTime")
        row("canceled", "cancel", t + m, "expired", status: 2, "§5.1 CANCELED: then no")

        // 3. Grace period, then recovery (§5.2, §5.3 IN_GRACE_PERIOD, RECOVERED).
        sub("grace", t, "ACTIVE", [Item(product: "grace", expiry: t + m, order: "GPA.03")])
        sub("grace", t + m + 3_600_000, "IN_GRACE_PERIOD", [Item(product: "grace", expiry: t + m + 7 * d, order: "GPA.03")])
        sub("grace", t + m + 2 * d, "ACTIVE", [Item(product: "grace", expiry: t + 2 * m, order: "GPA.03..0")])
        row("grace", "grace", t + m + 3_600_000, "grace-period", until: t + m + 7 * d, status: 4, "§5.1 IN_GRACE_PERIOD: yes")
        row("grace", "grace", t + m + 2 * d, "subscription", until: t + 2 * m, status: 1, "§5.2 recovery in grace keeps the renewal date")

        // 4. Grace into account hold, then recovery (§5.2: the billing date moves to the recovery).
        sub("hold", t, "ACTIVE", [Item(product: "hold", expiry: t + m, order: "GPA.04")])
        sub("hold", t + m + 3_600_000, "IN_GRACE_PERIOD", [Item(product: "hold", expiry: t + m + 3 * d, order: "GPA.04")])
        sub("hold", t + m + 3 * d, "ON_HOLD", [Item(product: "hold", expiry: t + m + 3 * d, order: "GPA.04")])
        sub("hold", t + m + 10 * d, "ACTIVE", [Item(product: "hold", expiry: t + 2 * m + 10 * d, order: "GPA.04..0")])
        row("hold", "hold", t + m + 3 * d, "billing-retry", status: 3, "§5.1 ON_HOLD: no")
        row("hold", "hold", t + m + 10 * d, "subscription", until: t + 2 * m + 10 * d, status: 1, "§5.3 RECOVERED")

        // 5. Hold running out (§5.2: CANCELED then EXPIRED).
        sub("holdout", t, "ACTIVE", [Item(product: "holdout", expiry: t + m, order: "GPA.05")])
        sub("holdout", t + m, "ON_HOLD", [Item(product: "holdout", expiry: t + m, order: "GPA.05")])
        sub("holdout", t + m + 30 * d, "EXPIRED", [Item(product: "holdout", expiry: t + m, autoRenew: false, order: "GPA.05")],
            canceled: "systemInitiatedCancellation")
        row("holdout", "holdout", t + m, "billing-retry", status: 3, "§5.1 ON_HOLD: no")
        row("holdout", "holdout", t + m + 30 * d, "expired", status: 2, "§5.1 EXPIRED: no")

        // 6. Paused and resumed (§5.3 PAUSED, RECOVERED).
        sub("paused", t, "ACTIVE", [Item(product: "pause", expiry: t + m, order: "GPA.06")])
        sub("paused", t + m, "PAUSED", [Item(product: "pause", expiry: t + m, order: "GPA.06")], pausedUntil: t + 2 * m)
        sub("paused", t + 2 * m, "ACTIVE", [Item(product: "pause", expiry: t + 3 * m, order: "GPA.06..0")])
        row("paused", "pause", t + m, "paused", status: 6, "§5.1 PAUSED: no")
        row("paused", "pause", t + 2 * m, "subscription", until: t + 3 * m, status: 1, "§5.3 RECOVERED after a pause")

        // 7. Upgrade: a new token naming the old (§5.4); the old one superseded at once.
        sub("up-old", t, "ACTIVE", [Item(product: "basic", expiry: t + m, order: "GPA.07")])
        sub("up-new", t + 10 * d, "ACTIVE", start: t + 10 * d, [Item(product: "premium", expiry: t + 10 * d + m, order: "GPA.08")], linked: "up-old")
        sub("up-old", t + 10 * d + 1000, "EXPIRED", [Item(product: "basic", expiry: t + 10 * d, autoRenew: false, order: "GPA.07")],
            canceled: "replacementCancellation")
        row("up-old", "basic", t + 10 * d - 1, "subscription", until: t + m, status: 1, "§5.1 ACTIVE before the upgrade")
        row("up-old", "basic", t + 10 * d, "upgraded", status: 2, "§5.4 revoke the linkedPurchaseToken's entitlement")
        row("up-old", "premium", t + 10 * d, "subscription", until: t + 10 * d + m, status: 1, "§5.4 the chain is one subscription")

        // 8. Deferred downgrade: the new token carries the old item until the switch (§5.4).
        sub("down-old", t, "ACTIVE", [Item(product: "gold", expiry: t + m, order: "GPA.09")])
        sub("down-new", t + 10 * d, "ACTIVE", [Item(product: "gold", expiry: t + m, autoRenew: false, order: "GPA.09", deferredTo: "silver"),
                                               Item(product: "silver", expiry: nil, order: nil)], linked: "down-old")
        sub("down-old", t + 10 * d, "EXPIRED", [Item(product: "gold", expiry: t + 10 * d, autoRenew: false, order: "GPA.09")],
            canceled: "replacementCancellation")
        sub("down-new", t + m, "ACTIVE", [Item(product: "gold", expiry: t + m, autoRenew: false, order: "GPA.09"),
                                          Item(product: "silver", expiry: t + 2 * m, order: "GPA.10")], linked: "down-old")
        row("down-old", "gold", t + m - 1, "subscription", until: t + m, status: 1, "§5.4 DEFERRED: the old item keeps its expiry")
        row("down-new", "silver", t + m - 1, "expired", "§5.4 DEFERRED: the new item is not owned before the switch")
        row("down-new", "silver", t + m, "subscription", until: t + 2 * m, status: 1, "§5.4 DEFERRED: RENEWED at the switch")
        row("down-new", "gold", t + m, "expired", "§5.4 DEFERRED: the old item's expiry passed")

        // 9. Re-signup before expiry (a chain) and after it (a new token, no link: §5.4).
        sub("resign-old", t, "CANCELED", [Item(product: "again", expiry: t + m, autoRenew: false, order: "GPA.11")],
            account: nil, canceled: "userInitiatedCancellation")
        sub("resign-new", t + 20 * d, "ACTIVE", start: t + 20 * d, [Item(product: "again", expiry: t + 20 * d + m, order: "GPA.12")],
            linked: "resign-old", account: nil)
        row("resign-old", "again", t + 20 * d - 1, "subscription", until: t + m, status: 1, "§5.1 CANCELED until expiryTime")
        row("resign-old", "again", t + 20 * d, "subscription", until: t + 20 * d + m, status: 1, "§5.4 re-signup: the new token answers")
        sub("late-old", t, "EXPIRED", [Item(product: "late", expiry: t + m, autoRenew: false, order: "GPA.13")], canceled: "userInitiatedCancellation")
        sub("late-new", t + m + 5 * d, "ACTIVE", start: t + m + 5 * d, [Item(product: "late", expiry: t + 2 * m + 5 * d, order: "GPA.14")])
        row(alice, "late", t + m + 5 * d - 1, "expired", status: 2, "§5.4 resubscribe after expiry: nothing until the new purchase")
        row(alice, "late", t + m + 5 * d, "subscription", until: t + 2 * m + 5 * d, status: 1, "§5.4 resubscribe after expiry: a new token")

        // 10. Prepaid with a top-up: time accumulates on a new token (§5.6).
        sub("prepaid-1", t, "ACTIVE", [Item(product: "pass", expiry: t + m, autoRenew: nil, order: "GPA.15")])
        sub("prepaid-2", t + 20 * d, "ACTIVE", start: t + 20 * d, [Item(product: "pass", expiry: t + 2 * m, autoRenew: nil, order: "GPA.16")],
            linked: "prepaid-1")
        row("prepaid-1", "pass", t + 20 * d - 1, "subscription", until: t + m, status: 1, "§5.6 prepaid: runs to expiryTime")
        row("prepaid-1", "pass", t + m + 1, "subscription", until: t + 2 * m, status: 1, "§5.6 a top-up adds to the old expiry")
        row("prepaid-1", "pass", t + 2 * m, "expired", status: 2, "§5.6 no renewal")

        // 11. Free trials, one converting and one not (§5.8).
        sub("trial-yes", t, "ACTIVE", [Item(product: "trial", expiry: t + 7 * d, order: "GPA.17", phase: "freeTrial")])
        sub("trial-yes", t + 7 * d, "ACTIVE", [Item(product: "trial", expiry: t + 7 * d + m, order: "GPA.17..0")])
        sub("trial-no", t, "ACTIVE", [Item(product: "trial2", expiry: t + 7 * d, order: "GPA.18", phase: "freeTrial")])
        sub("trial-no", t + 3 * d, "CANCELED", [Item(product: "trial2", expiry: t + 7 * d, autoRenew: false, order: "GPA.18", phase: "freeTrial")],
            canceled: "userInitiatedCancellation")
        row("trial-yes", "trial", t + 7 * d, "subscription", until: t + 7 * d + m, status: 1, "§5.8 the trial converts: a renewal")
        row("trial-no", "trial2", t + 7 * d - 1, "subscription", until: t + 7 * d, status: 1, "§5.8 canceled in trial: access until it ends")
        row("trial-no", "trial2", t + 7 * d, "expired", status: 2, "§5.8 then no charge, no access")

        // 12. Pending purchases, completed and canceled; a pending upgrade leaves the old access (§5.10).
        sub("pend-ok", t, "PENDING", start: nil, [Item(product: "pend", expiry: nil, autoRenew: nil, order: nil)])
        sub("pend-ok", t + d, "ACTIVE", start: t + d, [Item(product: "pend", expiry: t + d + m, autoRenew: nil, order: "GPA.19")])
        sub("pend-no", t, "PENDING", start: nil, [Item(product: "pend2", expiry: nil, autoRenew: nil, order: nil)])
        sub("pend-no", t + d, "PENDING_PURCHASE_CANCELED", start: nil, [Item(product: "pend2", expiry: nil, autoRenew: nil, order: nil)])
        row("pend-ok", "pend", t + d - 1, "pending", status: 7, "§5.1 PENDING: only grant once the transaction completes")
        row("pend-ok", "pend", t + d, "subscription", until: t + d + m, status: 1, "§5.10 PENDING to ACTIVE")
        row("pend-no", "pend2", t + d, "expired", status: 2, "§5.1 PENDING_PURCHASE_CANCELED: never")
        sub("pup-old", t, "ACTIVE", [Item(product: "pup", expiry: t + m, order: "GPA.20")])
        sub("pup-new", t + 5 * d, "PENDING", start: nil, [Item(product: "pup", basePlan: "yearly", expiry: nil, order: nil)], linked: "pup-old")
        row("pup-old", "pup", t + 5 * d, "subscription", until: t + m, status: 1, "§5.10 a pending upgrade: the old stays owned")

        // 13. One-time products: bought, consumed, refunded (§3.8, §5.9).
        a.append(Answer(token: "otp-1", at: t, bytes: product("PURCHASED", completed: t, order: "GPA.21"), isProduct: true))
        a.append(Answer(token: "otp-2", at: t, bytes: product("PURCHASED", completed: t, product: "coins", order: "GPA.22"), isProduct: true))
        a.append(Answer(token: "otp-2", at: t + d, bytes: product("PURCHASED", completed: t, product: "coins", order: "GPA.22", consumed: true), isProduct: true))
        a.append(Answer(token: "otp-3", at: t, bytes: product("PURCHASED", completed: t, product: "refunded", order: "GPA.23"), isProduct: true))
        a.append(Answer(token: "otp-3", at: t + 2 * d, bytes: product("CANCELLED", completed: t, product: "refunded", order: "GPA.23"), isProduct: true))
        a.append(Answer(token: "otp-4", at: t, bytes: product("PENDING", completed: nil, product: "later", order: nil), isProduct: true))
        row("otp-1", "lifetime", t + 100 * d, "non-consumable", "§3.8 purchased, not consumed: owned")
        row("otp-2", "coins", t + d - 1, "non-consumable", "§3.8 owned until consumed")
        row("otp-2", "coins", t + d, "consumable", "§3.10 consumed: no longer owned")
        row("otp-3", "refunded", t + 2 * d - 1, "non-consumable", "§3.8 purchased")
        row("otp-3", "refunded", t + 2 * d, "revoked", "§3.8 purchaseState Canceled")
        row("otp-4", "later", t + d, "pending", "§3.8 pending")

        // 14. A base plan with an add-on, bought together in one order: each item entitles (§3.3, §3.5).
        sub("addon", t, "ACTIVE", [Item(product: "base", expiry: t + m, order: "GPA.30"), Item(product: "extra", expiry: t + m, order: "GPA.30")])
        row("addon", "base", t + d, "subscription", until: t + m, status: 1, "§3.3 lineItems: one per item, base and add-ons")
        row("addon", "extra", t + d, "subscription", until: t + m, status: 1, "§3.3 an add-on entitles as its own item")
        row("addon", "extra", t + m, "expired", status: 2, "§5.1 each item until its expiryTime")

        // 15. A license tester's purchase: kept apart, never a sale (§5.11).
        sub("tester", t, "ACTIVE", [Item(product: "tested", expiry: t + m, order: "GPA.24")], test: true)
        row("tester", "tested", t + d, "only-test-signed", "§5.11 testPurchase: not a production purchase")
        row("tester", "tested", t + d, "subscription", until: t + m, status: 1, test: true, "§5.11 answered among test data")
        return (a, rows)
    }

    static func ingest(_ answers: [Answer], into ledger: Ledger) throws {
        for answer in answers {
            let input = Ledger.PlayAnswer(packageName: package, purchaseToken: answer.token, bytes: answer.bytes, answeredMs: answer.at)
            _ = answer.isProduct ? try ledger.ingestPlayProduct(input) : try ledger.ingestPlaySubscription(input)
        }
    }

    static func check(_ rows: [Row], _ ledger: Ledger) throws {
        for r in rows {
            let scope = LedgerScope(environment: .production, testData: r.test)
            let got = try ledger.entitlement(customer: r.customer, to: r.subject, scope: scope, at: .asOf(r.at))
            #expect(got.reason.name == r.reason, "\(r.customer) \(r.subject) at t0+\(r.at - t0): \(r.source)")
            #expect(got.untilMs == r.until, "until: \(r.customer) \(r.subject) at t0+\(r.at - t0)")
            if let status = r.status { #expect(got.status?.rawValue == status, "status: \(r.customer) \(r.subject) at t0+\(r.at - t0)") }
            if got.productID != nil, r.reason != "only-test-signed" { #expect(got.store == .play) }
        }
    }

    /// Known-by at every instant the data names, ±1 ms: as of each answer's instant (and every
    /// row's), each question gets from the ledger holding every answer what a ledger holding
    /// only the answers Google had given by then answers — a late answer never rewrites the past.
    @Test func asOfEveryInstantOnlyWhatWasKnownThenCounts() throws {
        let (answers, rows) = Self.lives()
        let folder = TemporaryFolder()
        let full = Ledger(store: try TestStores.open(folder.file("play-all.sqlite")))
        try Self.ingest(answers, into: full)
        let growing = Ledger(store: try TestStores.open(folder.file("play-growing.sqlite")))
        let byTime = answers.sorted { $0.at < $1.at }
        let instants = Set((answers.map(\.at) + rows.map(\.at)).flatMap { [$0 - 1, $0, $0 + 1] }).sorted()
        let questions = Set(rows.map { "\($0.customer)\u{0}\($0.subject)\u{0}\($0.test)" }).sorted()
        var next = 0
        var asked = 0
        for x in instants {
            while next < byTime.count, byTime[next].at <= x {
                try Self.ingest([byTime[next]], into: growing)
                next += 1
            }
            for q in questions {
                let parts = q.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                let scope = LedgerScope(environment: .production, testData: parts[2] == "true")
                let known = try growing.entitlement(customer: parts[0], to: parts[1], scope: scope, at: .asOf(x))
                let all = try full.entitlement(customer: parts[0], to: parts[1], scope: scope, at: .asOf(x))
                #expect(all == known, "\(parts[0]) \(parts[1]) at t0+\(x - Self.t0)")
                asked += 1
            }
        }
        #expect(instants.count > 40 && questions.count > 20 && asked == instants.count * questions.count)
    }

    @Test func everyLifeInAnyOrderWithRepeats() throws {
        let (answers, rows) = Self.lives()
        var rng = SplitMix(seed: 47)
        var order = answers + answers.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        rng.shuffle(&order)
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("play-lives.sqlite")))
        try Self.ingest(order, into: ledger)
        try Self.check(rows, ledger)
        // In the order Google sent them, into another store: the same answers.
        let inOrder = Ledger(store: try TestStores.open(folder.file("play-in-order.sqlite")))
        try Self.ingest(answers.sorted { $0.at < $1.at }, into: inOrder)
        try Self.check(rows, inOrder)
    }
}
