import Glibc
import Testing
@testable import GateKitCrypto
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The ledger's rule table, in Swift: the customer lives of python/tests/ledger_lives.py
/// (Apple's documented payload shapes from the fixtures, signed with the test PKI), ingested in
/// a shuffled order with repeats, and the answer each row of the hand-written table must get.
/// A change to the rules (CustomerRecord, LedgerView) is checked here without building the
/// library (`make quick DOMAIN=ledger`); the Python table checks the same through the C ABI.
@Suite struct LedgerLivesTests {
    static let day: Int64 = 86_400_000
    static let month: Int64 = 30 * day
    static let t0: Int64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z
    static let auto = "Auto-Renewable Subscription"

    typealias Members = [(String, JSONValue)]

    struct Expect {
        let customer: String
        let subject: String
        let at: Int64
        let reason: String
        var until: Int64? = nil
        var status: Int64? = nil
    }

    /// One customer's signed items, in the order Apple would have sent them.
    struct Life {
        let pki: JWSTestPKI
        let name: String
        let original: String
        var token: String? = nil
        var group = "20000001"
        var items: [(kind: String, jws: String)] = []

        static let transactionDrop: Set<String> = ["revocationReason", "revocationDate", "isUpgraded", "offerType", "offerIdentifier",
                                                   "offerDiscountType", "offerPeriod", "advancedCommerceInfo", "commitmentInfo",
                                                   "billingPlanType", "appAccountToken", "webOrderLineItemId"]
        static let renewalDrop: Set<String> = ["advancedCommerceInfo", "commitmentInfo", "gracePeriodExpiresDate", "offerType",
                                               "offerIdentifier", "offerDiscountType", "offerPeriod", "expirationIntent",
                                               "eligibleWinBackOfferIds", "appAccountToken", "renewalBillingPlanType"]

        func sign(_ members: Members) -> String {
            pki.sign(JSONWriter.serialize(.object(members)), chain: JWSGeneratedTests.chain)
        }

        func tx(_ id: String, _ product: String, purchase: Int64, expires: Int64? = nil, signed: Int64? = nil,
                type: String = LedgerLivesTests.auto, _ extra: Members = []) throws -> Members {
            var t = try LedgerLivesTests.model("signedTransaction").filter { !Life.transactionDrop.contains($0.0) }
            set(&t, ("transactionId", .string(id)), ("originalTransactionId", .string(original)), ("bundleId", .string("com.example")),
                ("productId", .string(product)), ("purchaseDate", .number(purchase)), ("originalPurchaseDate", .number(purchase)),
                ("signedDate", .number(signed ?? purchase)), ("type", .string(type)), ("environment", .string("Sandbox")),
                ("inAppOwnershipType", .string("PURCHASED")), ("transactionReason", .string("PURCHASE")))
            if let expires { set(&t, ("expiresDate", .number(expires))) } else { t.removeAll { $0.0 == "expiresDate" } }
            if type == LedgerLivesTests.auto {
                set(&t, ("subscriptionGroupIdentifier", .string(group)), ("webOrderLineItemId", .string(id + "0")))
            } else {
                t.removeAll { $0.0 == "subscriptionGroupIdentifier" }
            }
            if let token { set(&t, ("appAccountToken", .string(token))) }
            for member in extra { set(&t, member) }
            return t
        }

        func renewal(_ signed: Int64, _ product: String, autoProduct: String? = nil, _ extra: Members = []) throws -> Members {
            var r = try LedgerLivesTests.model("signedRenewalInfo").filter { !Life.renewalDrop.contains($0.0) }
            set(&r, ("originalTransactionId", .string(original)), ("productId", .string(product)),
                ("autoRenewProductId", .string(autoProduct ?? product)), ("autoRenewStatus", .number(1)),
                ("isInBillingRetryPeriod", .bool(false)), ("signedDate", .number(signed)), ("environment", .string("Sandbox")),
                ("recentSubscriptionStartDate", .number(signed)), ("renewalDate", .number(signed)))
            for member in extra { set(&r, member) }
            return r
        }

        mutating func notify(_ type: String, _ subtype: String?, _ signed: Int64, tx: Members? = nil, renewal: Members? = nil) throws {
            var n = try LedgerLivesTests.model("signedNotification")
            set(&n, ("notificationType", .string(type)), ("notificationUUID", .string(LedgerLivesTests.uuid("\(name)/\(items.count)"))),
                ("signedDate", .number(signed)))
            if let subtype { set(&n, ("subtype", .string(subtype))) } else { n.removeAll { $0.0 == "subtype" } }
            guard case var .object(data)? = n.first(where: { $0.0 == "data" })?.1 else { throw GateKitError.invalid("no data") }
            set(&data, ("environment", .string("Sandbox")), ("bundleId", .string("com.example")), ("appAppleId", .number(41234)))
            data.removeAll { $0.0 == "status" || $0.0 == "signedTransactionInfo" || $0.0 == "signedRenewalInfo" }
            if let tx { set(&data, ("signedTransactionInfo", .string(sign(tx)))) }
            if let renewal { set(&data, ("signedRenewalInfo", .string(sign(renewal)))) }
            set(&n, ("data", .object(data)))
            items.append(("notification", sign(n)))
        }

        mutating func transaction(_ t: Members) { items.append(("transaction", sign(t))) }
    }

    static func set(_ members: inout Members, _ values: (String, JSONValue)...) {
        for (key, value) in values {
            if let i = members.firstIndex(where: { $0.0 == key }) { members[i].1 = value } else { members.append((key, value)) }
        }
    }

    static func with(_ members: Members, _ values: (String, JSONValue)...) -> Members {
        var out = members
        for value in values { set(&out, value) }
        return out
    }

    static func model(_ name: String) throws -> Members {
        guard let bytes = FixtureFiles.read("appstore-api/models/\(name).json"), case let .object(members) = try JSONParser.parse(bytes) else {
            throw GateKitError.invalid("no model \(name)")
        }
        return members
    }

    /// A stable UUID-shaped id per notification (Python uses uuid5; any unique value serves).
    static func uuid(_ seed: String) -> String {
        let hex = Hex.encode((try? Digest.hash(.sha256, Array(seed.utf8))) ?? [])
        let h = Array(hex.prefix(32))
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }

    /// The instants the tiers life changes product at.
    static let up = t0 + 10 * day, down = up + 5 * day, renewal = up + month, cross = renewal + 3 * day

    /// The table: what each customer is entitled to, when (the same rows as ledger_lives.build
    /// returns in Python). It is about the ledger's model: `LedgerModelLivesTests` builds the
    /// same lives without Apple's data and answers it too.
    static let table: [Expect] = {
        let (d, m, t0, up, down, renewal, cross) = (Self.day, Self.month, Self.t0, Self.up, Self.down, Self.renewal, Self.cross)
        let token = LedgerLivesTests.yearToken
        return [
            Expect(customer: token, subject: "pro.monthly", at: t0 + 2 * m + 3 * d, reason: "subscription", until: t0 + 3 * m, status: 1),
            Expect(customer: "1000", subject: "20000001", at: t0 + 2 * m + 3 * d, reason: "subscription", until: t0 + 3 * m, status: 1),
            Expect(customer: token, subject: "pro.monthly", at: t0 + 6 * m + 2 * d, reason: "grace-period", until: t0 + 6 * m + 16 * d, status: 4),
            Expect(customer: token, subject: "pro.monthly", at: t0 + 6 * m + 6 * d, reason: "subscription", until: t0 + 7 * m, status: 1),
            Expect(customer: token, subject: "pro.monthly", at: t0 + 12 * m + d, reason: "expired", status: 2),
            Expect(customer: token, subject: "other.product", at: t0 + 2 * m, reason: "no-purchase"),
            Expect(customer: "2000", subject: "basic.monthly", at: t0 + 10 * d, reason: "subscription", until: t0 + m, status: 1),
            Expect(customer: "2000", subject: "basic.monthly", at: t0 + m + 2 * d, reason: "billing-retry", status: 3),
            Expect(customer: "2000", subject: "basic.monthly", at: t0 + m + 61 * d, reason: "expired", status: 2),
            Expect(customer: "3000", subject: "lifetime", at: t0 + 5 * d, reason: "non-consumable"),
            Expect(customer: "3000", subject: "lifetime", at: t0 + 15 * d, reason: "revoked"),
            Expect(customer: "3000", subject: "lifetime", at: t0 + 25 * d, reason: "non-consumable"),
            Expect(customer: "4000", subject: "family.yearly", at: t0 + m, reason: "subscription", until: t0 + 12 * m, status: 1),
            Expect(customer: "4000", subject: "family.yearly", at: t0 + 4 * m, reason: "revoked", status: 5),
            Expect(customer: "5000", subject: "basic.monthly.t", at: t0 + 5 * d, reason: "subscription", until: t0 + m, status: 1),
            Expect(customer: "5000", subject: "pro.monthly.t", at: up + d, reason: "subscription", until: up + m, status: 1),
            Expect(customer: "5000", subject: "basic.monthly.t", at: up + d, reason: "upgraded"),
            Expect(customer: "5000", subject: "30000001", at: up + d, reason: "subscription", until: up + m, status: 1),
            Expect(customer: "5000", subject: "pro.monthly.t", at: down + d, reason: "subscription", until: up + m, status: 1),
            Expect(customer: "5000", subject: "basic.monthly.t", at: renewal + d, reason: "subscription", until: renewal + m, status: 1),
            Expect(customer: "5000", subject: "basic.yearly.t", at: cross + d, reason: "subscription", until: cross + 12 * m, status: 1),
            Expect(customer: "5000", subject: "basic.monthly.t", at: cross + d, reason: "upgraded"),
            Expect(customer: "6000", subject: "news.monthly", at: t0 + m + 3 * d, reason: "subscription", until: t0 + m + 7 * d, status: 1),
            Expect(customer: "6000", subject: "news.monthly", at: t0 + m + 8 * d, reason: "expired", status: 2),
            Expect(customer: "6100", subject: "coins.100", at: t0 + 2 * d, reason: "consumable"),
        ]
    }()

    static let yearToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    /// The lives as Apple would send them (the same as ledger_lives.build in Python).
    static func build(_ pki: JWSTestPKI) throws -> [Life] {
        let (d, m, t0, up, down, renewal, cross) = (Self.day, Self.month, Self.t0, Self.up, Self.down, Self.renewal, Self.cross)
        var lives: [Life] = []

        // A year of monthly renewals; the 7th fails into a 16-day grace period and recovers on
        // day 5 of it; the customer is known by an app account token.
        let token = yearToken
        var year = Life(pki: pki, name: "year", original: "1000", token: token)
        for month in 0..<12 {
            var purchase = t0 + Int64(month) * m
            let id = "10" + (month < 10 ? "0\(month)" : "\(month)")
            if month == 6 {
                let failed = purchase
                try year.notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", failed + 1000, renewal: try year.renewal(failed + 1000, "pro.monthly", [
                    ("isInBillingRetryPeriod", .bool(true)), ("gracePeriodExpiresDate", .number(failed + 16 * d)), ("expirationIntent", .number(2))]))
                purchase = failed + 5 * d
                let tx = try year.tx(id, "pro.monthly", purchase: purchase, expires: purchase + m - 5 * d)
                try year.notify("DID_RENEW", "BILLING_RECOVERY", purchase + 1000, tx: tx, renewal: try year.renewal(purchase + 1000, "pro.monthly"))
                continue
            }
            let tx = try year.tx(id, "pro.monthly", purchase: purchase, expires: purchase + m)
            try year.notify(month == 0 ? "SUBSCRIBED" : "DID_RENEW", month == 0 ? "INITIAL_BUY" : nil, purchase + 1000, tx: tx,
                            renewal: try year.renewal(purchase + 1000, "pro.monthly"))
        }
        lives.append(year)

        // Billing retry without a grace period, then expiry when Apple gives up.
        var retry = Life(pki: pki, name: "retry", original: "2000")
        try retry.notify("SUBSCRIBED", "INITIAL_BUY", t0 + 1000, tx: try retry.tx("2001", "basic.monthly", purchase: t0, expires: t0 + m),
                         renewal: try retry.renewal(t0 + 1000, "basic.monthly"))
        try retry.notify("DID_FAIL_TO_RENEW", nil, t0 + m + 1000, renewal: try retry.renewal(t0 + m + 1000, "basic.monthly", [
            ("isInBillingRetryPeriod", .bool(true)), ("expirationIntent", .number(2))]))
        try retry.notify("EXPIRED", "BILLING_RETRY", t0 + m + 60 * d, renewal: try retry.renewal(t0 + m + 60 * d, "basic.monthly", [
            ("isInBillingRetryPeriod", .bool(false)), ("autoRenewStatus", .number(0)), ("expirationIntent", .number(2))]))
        lives.append(retry)

        // A non-consumable refunded, a refund declined (signed earlier), then the refund reversed.
        var refund = Life(pki: pki, name: "refund", original: "3000")
        let lifetime = try refund.tx("3000", "lifetime", purchase: t0, type: "Non-Consumable")
        try refund.notify("ONE_TIME_CHARGE", nil, t0 + 1000, tx: lifetime)
        try refund.notify("REFUND", nil, t0 + 10 * d, tx: with(lifetime, ("signedDate", .number(t0 + 10 * d)),
                                                              ("revocationDate", .number(t0 + 10 * d)), ("revocationReason", .number(0))))
        try refund.notify("REFUND_DECLINED", nil, t0 + 9 * d, tx: with(lifetime, ("signedDate", .number(t0 + 9 * d))))
        try refund.notify("REFUND_REVERSED", nil, t0 + 20 * d, tx: with(lifetime, ("signedDate", .number(t0 + 20 * d))))
        lives.append(refund)

        // Family sharing, then revoked when sharing stops.
        var family = Life(pki: pki, name: "family", original: "4000")
        let shared = try family.tx("4001", "family.yearly", purchase: t0, expires: t0 + 12 * m, [("inAppOwnershipType", .string("FAMILY_SHARED"))])
        try family.notify("SUBSCRIBED", "INITIAL_BUY", t0 + 1000, tx: shared, renewal: try family.renewal(t0 + 1000, "family.yearly"))
        try family.notify("REVOKE", nil, t0 + 3 * m, tx: with(shared, ("signedDate", .number(t0 + 3 * m)), ("revocationDate", .number(t0 + 3 * m)),
                                                            ("revocationReason", .number(0))))
        lives.append(family)

        // Upgrade (at once), downgrade (at renewal), then a crossgrade, in group 30000001.
        var tiers = Life(pki: pki, name: "tiers", original: "5000", group: "30000001")
        let basic = try tiers.tx("5001", "basic.monthly.t", purchase: t0, expires: t0 + m)
        try tiers.notify("SUBSCRIBED", "INITIAL_BUY", t0 + 1000, tx: basic, renewal: try tiers.renewal(t0 + 1000, "basic.monthly.t"))
        tiers.transaction(with(basic, ("signedDate", .number(up)), ("isUpgraded", .bool(true))))
        try tiers.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", up + 1000, tx: try tiers.tx("5002", "pro.monthly.t", purchase: up, expires: up + m),
                         renewal: try tiers.renewal(up + 1000, "pro.monthly.t"))
        try tiers.notify("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", down, renewal: try tiers.renewal(down, "pro.monthly.t", autoProduct: "basic.monthly.t"))
        let back = try tiers.tx("5003", "basic.monthly.t", purchase: renewal, expires: renewal + m)
        try tiers.notify("DID_RENEW", nil, renewal + 1000, tx: back, renewal: try tiers.renewal(renewal + 1000, "basic.monthly.t"))
        tiers.transaction(with(back, ("signedDate", .number(cross)), ("isUpgraded", .bool(true))))
        try tiers.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", cross + 1000, tx: try tiers.tx("5004", "basic.yearly.t", purchase: cross, expires: cross + 12 * m),
                         renewal: try tiers.renewal(cross + 1000, "basic.yearly.t"))
        lives.append(tiers)

        // A renewal extension (the transaction re-signed with a later expiry) and a consumable.
        var extended = Life(pki: pki, name: "extended", original: "6000")
        let news = try extended.tx("6001", "news.monthly", purchase: t0, expires: t0 + m)
        try extended.notify("SUBSCRIBED", "RESUBSCRIBE", t0 + 1000, tx: news, renewal: try extended.renewal(t0 + 1000, "news.monthly"))
        try extended.notify("RENEWAL_EXTENDED", nil, t0 + 20 * d, tx: with(news, ("signedDate", .number(t0 + 20 * d)), ("expiresDate", .number(t0 + m + 7 * d))))
        extended.transaction(try extended.tx("6100", "coins.100", purchase: t0 + d, type: "Consumable", [("originalTransactionId", .string("6100"))]))
        lives.append(extended)
        return lives
    }

    /// The lives, their table and their items shuffled with a fixed seed, every `nth` item sent
    /// twice; nil (the reason printed) without the test PKI or Apple's payload models.
    static func shuffled(seed: UInt64, repeatEvery nth: Int) throws -> (lives: [Life], table: [Expect], order: [(kind: String, jws: String)], options: JWSOptions)? {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return nil }
        guard FixtureFiles.read("appstore-api/models/signedTransaction.json") != nil else {
            FixtureFiles.skipNote("Apple's documented payload models (appstore-api/models)")
            return nil
        }
        let (lives, table) = (try build(pki), Self.table)
        let items = lives.flatMap(\.items)
        #expect(items.count == 32 && table.count == 25)
        var rng = SplitMix(seed: seed)
        var order = items + items.enumerated().filter { $0.offset % nth == 0 }.map(\.element)
        rng.shuffle(&order)
        return (lives, table, order, options)
    }

    /// Each item ingested as its kind, one call each.
    static func ingest(_ order: [(kind: String, jws: String)], into ledger: Ledger, options: JWSOptions) throws {
        for item in order {
            let text = Array(item.jws.utf8)
            _ = item.kind == "notification" ? try ledger.ingestNotification(text, options: options) : try ledger.ingestTransaction(text, options: options)
        }
    }

    @Test func everyRowOfTheTableInAnyOrder() throws {
        // Shuffled, every fifth item sent twice: order and repeats never matter.
        guard let (_, table, order, options) = try Self.shuffled(seed: 7, repeatEvery: 5) else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("lives.sqlite")))
        try Self.ingest(order, into: ledger, options: options)
        let scope = LedgerScope(environment: .sandbox, testData: true)
        for e in table {
            let got = try ledger.entitlement(customer: e.customer, to: e.subject, scope: scope, at: .asOf(e.at))
            #expect(got.reason.name == e.reason, "\(e.customer) \(e.subject) at \(e.at)")
            if let until = e.until { #expect(got.untilMs == until, "until: \(e.customer) \(e.subject) at \(e.at)") }
            if let status = e.status { #expect(got.status?.rawValue == status, "status: \(e.customer) \(e.subject) at \(e.at)") }
        }
    }
    /// The same shuffled items with repeats, recorded by one `ingestTogether` (one transaction:
    /// rows sent together, on PostgreSQL reads prefetched 16 items at a time, duplicates and
    /// answers found among the batch's own unsent rows) and one call per item: every outcome,
    /// status change, feed change and answer agrees.
    @Test func oneBatchRecordsWhatOneCallPerItemRecords() throws {
        guard let (lives, table, order, options) = try Self.shuffled(seed: 11, repeatEvery: 3) else { return }
        #expect(order.count > 2 * Ledger.prefetchCopies)  // several prefetch chunks
        let folder = TemporaryFolder()
        let single = Ledger(store: try TestStores.open(folder.file("one-by-one.sqlite")))
        let batched = Ledger(store: try TestStores.open(folder.file("batched.sqlite")))
        var expected: [(IngestReport.Outcome, [IngestReport.StatusChange])] = []
        for item in order {
            let r = item.kind == "notification" ? try single.ingestNotification(Array(item.jws.utf8), options: options)
                                                : try single.ingestTransaction(Array(item.jws.utf8), options: options)
            expected.append((r.outcome, r.statusChanges))
        }
        let kinds = order.map { (text: Array($0.jws.utf8), kind: $0.kind == "notification" ? JWSVerifier.Kind.notification : .transaction) }
        let reports = try batched.ingestTogether(kinds, options: options, alongside: .subjects([])) { _ throws(GateKitError) in }.reports
        let got = try reports.map { (r) throws -> (IngestReport.Outcome, [IngestReport.StatusChange]) in
            let report = try r.get()
            return (report.outcome, report.statusChanges)
        }
        #expect(got.map(\.0) == expected.map(\.0))
        #expect(got.map(\.1) == expected.map(\.1))
        #expect(expected.contains { $0.0 == .duplicate } && expected.contains { $0.0 == .new })
        #expect(try Self.feed(single) == Self.feed(batched))
        #expect(try !Self.feed(batched).isEmpty)
        let scope = LedgerScope(environment: .sandbox, testData: true)
        for e in table {
            let want = try single.entitlement(customer: e.customer, to: e.subject, scope: scope, at: .asOf(e.at))
            let have = try batched.entitlement(customer: e.customer, to: e.subject, scope: scope, at: .asOf(e.at))
            #expect(have.reason.name == e.reason && have.reason == want.reason && have.untilMs == want.untilMs,
                    "\(e.customer) \(e.subject) at \(e.at)")
        }
        for life in lives {
            let count = { (json: String) in json.split(separator: "\"kind\":", omittingEmptySubsequences: false).count }
            #expect(try count(single.historyJSON(customer: life.original, scope: scope)) == count(batched.historyJSON(customer: life.original, scope: scope)),
                    "history of \(life.original)")
        }
    }

    /// The feed's changes in order, without what differs between two runs (sequence numbers,
    /// items' ids, the instant of an ingestion).
    static func feed(_ ledger: Ledger) throws -> [String] {
        try ledger.store.read { (db) throws(GateKitError) -> [String] in
            let s = try db.statement("""
                SELECT original_transaction_id, product_id, entitled, reason, status, until_ms, at_ms, cause FROM ledger_changes ORDER BY seq
                """)
            defer { s.reset() }
            var out: [String] = []
            while try s.step() {
                let cause = s.text(7) ?? ""
                out.append([s.text(0) ?? "", s.text(1) ?? "", "\(s.int64(2))", "\(s.int64(3))", "\(s.optionalInt64(4) ?? -1)",
                            "\(s.optionalInt64(5) ?? -1)", cause == "time" ? "\(s.int64(6))" : "", cause].joined(separator: "|"))
            }
            return out
        }
    }
}
