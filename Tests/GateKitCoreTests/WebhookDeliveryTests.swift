import Testing
@testable import GateKitHTTPS
@testable import GateKitLedger
@testable import GateKitLedgerDelivery
import GateKitStore
import GateKitSupport

/// Webhooks to a team's backend below the network: the outbox written with the feed's change,
/// the business events read from answers, the retry schedule and the public-address rule.
/// python/tests/test_ledger_webhooks.py sends them for real, to a receiver over HTTPS.
@Suite struct WebhookDeliveryTests {
    static func subscription(_ id: String, _ status: String, start: Int64, end: Int64, user: String) -> [UInt8] {
        Array("""
            {"id":"\(id)","object":"subscription","customer":"cus_\(id)","status":"\(status)","livemode":true,"start_date":\(start),
             "cancel_at_period_end":false,"cancel_at":null,"canceled_at":null,"ended_at":null,"pause_collection":null,"trial_start":null,
             "trial_end":null,"metadata":{"app_user_id":"\(user)"},"items":{"object":"list","has_more":false,"data":[{"id":"si_\(id)",
             "object":"subscription_item","quantity":1,"current_period_start":\(start),"current_period_end":\(end),"price":{"id":"price_m",
             "object":"price","product":"prod_pro","currency":"usd","unit_amount":999,"type":"recurring",
             "recurring":{"interval":"month","interval_count":1}}}]}}
            """.utf8)
    }

    @Test func everyChangeIsQueuedForEachEnabledEndpointInItsOwnTransaction() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("outbox.sqlite")))
        let now = Clock.nowMilliseconds() / 1000
        func deliveries() throws -> [[Int64]] {
            try ledger.store.read { (db) throws(GateKitError) -> [[Int64]] in
                let s = try db.statement("SELECT seq, state FROM ledger_webhook_deliveries ORDER BY endpoint_id, seq")
                defer { s.reset() }
                var out: [[Int64]] = []
                while try s.step() { out.append([s.int64(0), s.int64(1)]) }
                return out
            }
        }
        // No endpoint: the change is recorded and nothing is queued.
        _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Self.subscription("sub_a", "active", start: now - 86_400, end: now + 86_400, user: "ann"),
                                                              answeredMs: (now - 60) * 1000), options: Ledger.StripeOptions())
        #expect(try deliveries().isEmpty)
        let on = try ledger.addWebhookEndpoint(url: "https://hooks.example.com/gatekit", eventTypes: [], description: "", allowed: .init())
        let off = try ledger.addWebhookEndpoint(url: "https://other.example.com/x", eventTypes: ["refund"], description: "", allowed: .init())
        _ = try ledger.updateWebhookEndpoint(off.id, Ledger.WebhookEndpointChange(enabled: false), allowed: .init())
        _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Self.subscription("sub_a", "canceled", start: now - 86_400, end: now + 86_400, user: "ann"),
                                                              answeredMs: (now - 30) * 1000), options: Ledger.StripeOptions())
        // The second change, queued once, for the enabled endpoint only.
        #expect(try deliveries() == [[2, 0]])
        let event = try ledger.store.read { (db) throws(GateKitError) in try WebhookEvent.render(ledger, db, seq: 2) }
        #expect(event.type == .expiration && event.id == "evt_2")
        #expect(event.body.contains("\"type\":\"expiration\"") && event.body.contains("\"previous\":{\"entitled\":true"))
        #expect(try ledger.replayWebhooks(to: on.id, fromSeq: 0, toSeq: .max, fromMs: 0, toMs: .max) == 2)
        #expect(try deliveries() == [[1, 0], [2, 0]])
        #expect(throws: GateKitError.self) { try ledger.replayWebhooks(to: "ep_none", fromSeq: 0, toSeq: 1, fromMs: 0, toMs: 1) }
    }

    /// A notice shares the feed's numbering: listed apart from the changes, counted by `limit`,
    /// passed over by `last`, waking a reader; the outbox still queues only changes after it.
    @Test func aNoticeIsNumberedWithTheChangesAndListedApart() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("notices.sqlite")))
        let now = Clock.nowMilliseconds() / 1000
        func ingest(_ status: String, _ answered: Int64) throws {
            _ = try ledger.ingestStripeObject(Ledger.StripeAnswer(bytes: Self.subscription("sub_n", status, start: now - 86_400, end: now + 86_400, user: "nia"),
                                                                  answeredMs: (now - answered) * 1000), options: Ledger.StripeOptions())
        }
        func page(after: Int64, limit: Int) throws -> (changes: [Int64], notices: [Int64], last: Int64, raw: JSONValue) {
            let json = try JSONParser.parse(Array(try ledger.changesJSON(after: after, limit: limit).utf8))
            guard case let .array(changes) = json["changes"], let last = json["last"]?.int64Value else { throw GateKitError.invalid("no page") }
            var notices: [Int64] = []
            if case let .array(listed) = json["notices"] { notices = listed.compactMap { $0["seq"]?.int64Value } }
            return (changes.compactMap { $0["seq"]?.int64Value }, notices, last, json)
        }
        let endpoint = try ledger.addWebhookEndpoint(url: "https://hooks.example.com/gatekit", eventTypes: [], description: "", allowed: .init())
        try ingest("active", 60)                                  // change 1
        try ledger.store.write { (db) throws(GateKitError) in
            try FeedNotices.append(db, .webhookEndpointDisabled, endpointID: endpoint.id, url: endpoint.url, detail: "the receiver answered 410 Gone",
                                   now: now * 1000)             // notice 2
        }
        #expect(try ledger.waitForChanges(after: 1, timeoutMilliseconds: 0), "a notice wakes a reader")
        try ingest("canceled", 30)                                // change 3
        let whole = try page(after: 0, limit: 10)
        #expect(whole.changes == [1, 3] && whole.notices == [2] && whole.last == 3)
        let notice = whole.raw["notices"]
        #expect(notice == .array([.object([("seq", .number(2)), ("at", .number(now * 1000)), ("kind", .string("webhook_endpoint_disabled")),
                                           ("endpointId", .string(endpoint.id)), ("url", .string(endpoint.url)),
                                           ("detail", .string("the receiver answered 410 Gone"))])]))
        // One at a time: each page holds the next entry, whichever it is.
        let first = try page(after: 0, limit: 1), second = try page(after: first.last, limit: 1), third = try page(after: second.last, limit: 1)
        #expect(first.changes == [1] && first.notices.isEmpty && first.last == 1)
        #expect(second.changes.isEmpty && second.notices == [2] && second.last == 2)
        #expect(third.changes == [3] && third.notices.isEmpty && third.last == 3)
        let none = try page(after: 3, limit: 5)
        #expect(none.changes.isEmpty && none.raw["notices"] == nil && none.last == 3)
        // The outbox queued the two changes, not the notice's number.
        let queued = try ledger.store.integers("SELECT seq FROM ledger_webhook_deliveries ORDER BY seq")
        #expect(queued == [1, 3])
    }

    @Test func businessEventsAreReadFromTheAnswerBeforeAndAfter() {
        typealias F = BusinessEvent.Facts
        func of(_ before: (Bool, Entitlement.Reason, Int64?)?, _ after: (Bool, Entitlement.Reason, Int64?), other: Bool = false,
                trialNow: Bool = false, trialBefore: Bool = false) -> BusinessEvent {
            BusinessEvent.of(F(before: before.map { (entitled: $0.0, reason: $0.1, untilMs: $0.2) }, after: (entitled: after.0, reason: after.1, untilMs: after.2),
                               otherProductBefore: other, trialNow: trialNow, trialBefore: trialBefore))
        }
        #expect(of(nil, (true, .subscription, 10)) == .initialPurchase)
        #expect(of(nil, (true, .subscription, 10), trialNow: true) == .trialStarted)
        #expect(of(nil, (true, .subscription, 10), other: true) == .productChange)
        #expect(of(nil, (true, .nonConsumable, nil)) == .nonConsumablePurchase)
        #expect(of((true, .subscription, 10), (true, .subscription, 20)) == .renewal)
        #expect(of((true, .subscription, 10), (true, .subscription, 20), trialBefore: true) == .trialConverted)
        #expect(of((false, .expired, nil), (true, .subscription, 20)) == .renewal)  // a resubscription
        #expect(of((true, .subscription, 10), (false, .expired, nil)) == .expiration)
        #expect(of((true, .subscription, 10), (false, .expired, nil), trialNow: true) == .trialExpired)
        #expect(of((true, .subscription, 10), (true, .gracePeriod, 12)) == .gracePeriodStarted)
        #expect(of((true, .gracePeriod, 12), (false, .billingRetry, nil)) == .gracePeriodExpired)
        #expect(of((true, .subscription, 10), (false, .billingRetry, nil)) == .billingIssue)
        #expect(of((false, .billingRetry, nil), (true, .subscription, 40)) == .billingRecovered)
        #expect(of((true, .subscription, 10), (false, .revoked, nil)) == .refund)
        #expect(of((false, .revoked, nil), (true, .subscription, 10)) == .refundReversed)
        #expect(of((true, .subscription, 10), (false, .paused, nil)) == .subscriptionPaused)
        #expect(of((false, .paused, nil), (true, .subscription, 40)) == .subscriptionResumed)
        #expect(of((true, .subscription, 10), (false, .upgraded, nil)) == .productChange)
        #expect(of(nil, (false, .pending, nil)) == .purchasePending)
        #expect(of((true, .subscription, 20), (true, .subscription, 10)) == .entitlementChanged)  // a period shortened
        func renewal(_ was: Bool?, _ now: Bool?) -> BusinessEvent {
            BusinessEvent.of(F(before: (entitled: true, reason: .subscription, untilMs: 10), after: (entitled: true, reason: .subscription, untilMs: 10),
                               willRenewBefore: was, willRenewAfter: now, otherProductBefore: false, trialNow: false, trialBefore: false))
        }
        #expect(renewal(true, false) == .cancellation)
        #expect(renewal(false, true) == .uncancellation)
        #expect(renewal(nil, false) == .entitlementChanged)  // a change kept before auto-renew was recorded
        func grant(_ before: (Bool, Entitlement.Reason, Int64?)?, _ after: (Bool, Entitlement.Reason, Int64?)) -> BusinessEvent {
            BusinessEvent.of(F(before: before.map { (entitled: $0.0, reason: $0.1, untilMs: $0.2) }, after: (entitled: after.0, reason: after.1, untilMs: after.2),
                               otherProductBefore: false, isGrant: true, trialNow: false, trialBefore: false))
        }
        #expect(grant(nil, (true, .nonRenewing, 10)) == .grantGiven)
        #expect(grant((true, .nonRenewing, 10), (false, .revoked, nil)) == .grantRevoked)
        #expect(grant((true, .nonRenewing, 10), (false, .expired, nil)) == .expiration)
        // A transfer names the move whatever the answer (a grant's too): access is as it was.
        let moved = F(before: (entitled: true, reason: .nonRenewing, untilMs: 10), after: (entitled: true, reason: .nonRenewing, untilMs: 10),
                      otherProductBefore: false, isGrant: true, isTransfer: true, trialNow: false, trialBefore: false)
        #expect(BusinessEvent.of(moved) == .transfer)
    }

    @Test func retriesWaitLongerEachTimeWithJitterAndHonourRetryAfter() {
        #expect(DeliverySchedule.baseWait(attempt: 1) == 5_000)
        #expect(DeliverySchedule.baseWait(attempt: 2) == 20_000)
        #expect(DeliverySchedule.baseWait(attempt: 5) == 1_280_000)
        #expect(DeliverySchedule.baseWait(attempt: 40) == DeliverySchedule.longestWaitMs)
        let schedule = DeliverySchedule()
        let waits = (0..<200).map { _ in schedule.nextAttempt(after: 1, now: 0, retryAfterMs: nil) }
        #expect(waits.allSatisfy { (4_000...6_000).contains($0) } && Set(waits).count > 50)
        #expect(schedule.nextAttempt(after: 1, now: 0, retryAfterMs: 60_000) == 60_000)
        #expect(schedule.nextAttempt(after: 1, now: 0, retryAfterMs: 7 * 86_400_000) == 86_400_000)  // capped at a day
    }

    @Test func onlyPublicAddressesAreReachedUnlessAllowed() throws {
        for host in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
                     "::1", "::", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "64:ff9b::a01:203", "2001:db8::1"] {
            let bytes = try #require(PublicAddress.literal(host))
            #expect(!PublicAddress.isPublic(bytes), "\(host)")
        }
        for host in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "[2606:4700::1111]"] {
            let bytes = try #require(PublicAddress.literal(host))
            #expect(PublicAddress.isPublic(bytes), "\(host)")
        }
        #expect(PublicAddress.literal("hooks.example.com") == nil)
        for url in ["https://127.0.0.1/x", "https://localhost:8443/x", "https://intranet/x", "https://[::1]:443/x", "https://169.254.169.254/latest"] {
            #expect(throws: GateKitError.self) { try WebhookEndpoint.checkedURL(url, .init()) }
            #expect(try WebhookEndpoint.checkedURL(url, .init(privateAddresses: true)) == url)
        }
        #expect(try WebhookEndpoint.checkedURL("https://hooks.example.com:8443/in/", .init()) == "https://hooks.example.com:8443/in")
    }

    @Test func plainHTTPReachesLoopbackOnlyAndOnlyWhenAllowed() throws {
        let loopbackHTTP = WebhookEndpoint.Allowed(loopbackHTTP: true)
        for url in ["http://127.0.0.1:8080/hook", "http://127.3.4.5/x", "http://[::1]:9/x", "http://localhost:8080/x", "http://LOCALHOST/x"] {
            #expect(throws: GateKitError.self) { try WebhookEndpoint.checkedURL(url, .init(privateAddresses: true)) }
            #expect(try WebhookEndpoint.checkedURL(url, loopbackHTTP) == url)
        }
        #expect(try WebhookEndpoint.checkedURL("http://127.0.0.1:8080/hook/", loopbackHTTP) == "http://127.0.0.1:8080/hook")
        for url in ["http://10.0.0.1/x", "http://hooks.example.com/x", "http://8.8.8.8/x", "http://[fe80::1]/x", "http://localhost.example.com/x",
                    "http://user:pw@127.0.0.1/x", "http://127.0.0.1/x?token=1", "http://127.0.0.1/x#f", "http://"] {
            #expect(throws: GateKitError.self, "\(url)") { try WebhookEndpoint.checkedURL(url, .init(privateAddresses: true, loopbackHTTP: true)) }
        }
        for host in ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"] {
            #expect(PublicAddress.isLoopback(try #require(PublicAddress.literal(host))), "\(host)")
        }
        for host in ["10.0.0.1", "::", "::2", "::ffff:10.0.0.1", "128.0.0.1", "fe80::1"] {
            #expect(!PublicAddress.isLoopback(try #require(PublicAddress.literal(host))), "\(host)")
        }
        // The plain-HTTP transport connects to nothing but loopback, whatever a name resolves to.
        var settings = HTTPSTransport.Settings(certificateAuthorities: nil, connectTimeoutMilliseconds: 1_000, userAgent: "test",
                                               errors: .webhookDelivery)
        settings.plainHTTP = true
        settings.addresses = .loopbackOnly
        let transport = try HTTPSTransport(settings)
        let refused = #expect(throws: GateKitError.self) {
            try transport.send(HTTPRequest(method: "POST", url: "http://192.0.2.1:9/x", headers: [], body: []), timeoutMilliseconds: 1_000)
        }
        #expect(refused?.message.contains("refused to connect to 192.0.2.1, not a loopback address") == true)
    }
}
