import Testing
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The metrics of five generated customer lives in 2025 (python/tests/metrics_lives.py has the
/// same lives), each figure worked out by hand from the definitions in docs/ledger.md:
/// - anna: monthly from Jan 1 (9.99 USD), renews Feb 1 and Mar 1, cancels (intent 1): lapses Apr 1.
/// - ben (anna's app account token): a 7-day free trial from Jan 10, paid from Jan 17, renews
///   Feb 17, that renewal refunded Mar 1.
/// - cleo: monthly from Feb 1 (8.99 EUR, DEU); Mar 1 fails into a grace period to Mar 17, lapses,
///   recovered Mar 20; renews Apr 20; fails May 20 (no grace), Apple gives up Jun 25 (intent 2).
/// - dora: family-shared from Jan 5, Family Sharing revoked Feb 3.
/// - eve: monthly from Apr 1, upgrades to yearly (99.99 USD) Apr 15.
@Suite struct LedgerMetricsTests {
    /// The split by storefront reads a store's alpha-2 region as the App Store's alpha-3
    /// storefront: one series a country (python/tests/test_ledger_play.py asks it end to end).
    @Test func aCountryIsOneStorefrontWhicheverStoreNamedIt() {
        #expect(Storefront.alpha3("US") == "USA" && Storefront.alpha3("GB") == "GBR" && Storefront.alpha3("DE") == "DEU")
        #expect(Storefront.alpha3("USA") == "USA" && Storefront.alpha3("XK") == "XK" && Storefront.alpha3("") == "")
        let table = Storefront.alpha3ByAlpha2
        #expect(table.count == 249 && Set(table.values).count == 249)
        #expect(table.allSatisfy { $0.key.utf8.count == 2 && $0.value.utf8.count == 3 })
    }

    typealias Life = LedgerLivesTests.Life
    static let day: Int64 = 86_400_000

    static func at(_ month: Int, _ day: Int) -> Int64 { Int64(Timestamp.days(year: 2025, month: month, day: day)) * LedgerMetricsTests.day }

    static let monthly = "pro.monthly", yearly = "pro.yearly"
    static let sharedToken = "3f1a1e6c-7a53-4d8e-9a39-1b3b2c0d7e11"

    static func lives(_ pki: JWSTestPKI) throws -> [Life] {
        let at = LedgerMetricsTests.at
        let usd: [(String, JSONValue)] = [("price", .number(9990)), ("currency", .string("USD")), ("storefront", .string("USA"))]
        let eur: [(String, JSONValue)] = [("price", .number(8990)), ("currency", .string("EUR")), ("storefront", .string("DEU"))]

        var anna = Life(pki: pki, name: "anna", original: "5001", token: sharedToken)
        for (i, month) in [1, 2, 3].enumerated() {
            anna.transaction(try anna.tx("500\(i + 1)", monthly, purchase: at(month, 1), expires: at(month + 1, 1), usd))
        }
        try anna.notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at(3, 15),
                        renewal: try anna.renewal(at(3, 15), monthly, [("autoRenewStatus", .number(0)), ("expirationIntent", .number(1))]))

        var ben = Life(pki: pki, name: "ben", original: "6001", token: sharedToken)
        ben.transaction(try ben.tx("6001", monthly, purchase: at(1, 10), expires: at(1, 17), [
            ("price", .number(0)), ("currency", .string("USD")), ("storefront", .string("USA")),
            ("offerType", .number(1)), ("offerDiscountType", .string("FREE_TRIAL")),
        ]))
        ben.transaction(try ben.tx("6002", monthly, purchase: at(1, 17), expires: at(2, 17), usd))
        let renewal = try ben.tx("6003", monthly, purchase: at(2, 17), expires: at(3, 17), usd)
        ben.transaction(renewal)
        try ben.notify("REFUND", nil, at(3, 1), tx: LedgerLivesTests.with(renewal, ("signedDate", .number(at(3, 1))),
            ("revocationDate", .number(at(3, 1))), ("revocationReason", .number(0)), ("revocationType", .string("REFUND_FULL"))))

        var cleo = Life(pki: pki, name: "cleo", original: "7001")
        let first = try cleo.tx("7001", monthly, purchase: at(2, 1), expires: at(3, 1), eur)
        cleo.transaction(first)
        try cleo.notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", at(3, 1), tx: first, renewal: try cleo.renewal(at(3, 1), monthly, [
            ("isInBillingRetryPeriod", .bool(true)), ("gracePeriodExpiresDate", .number(at(3, 17))),
        ]))
        try cleo.notify("DID_RENEW", "BILLING_RECOVERY", at(3, 20), tx: try cleo.tx("7002", monthly, purchase: at(3, 20), expires: at(4, 20), eur),
                        renewal: try cleo.renewal(at(3, 20), monthly))
        cleo.transaction(try cleo.tx("7003", monthly, purchase: at(4, 20), expires: at(5, 20), eur))
        try cleo.notify("DID_FAIL_TO_RENEW", nil, at(5, 20), renewal: try cleo.renewal(at(5, 20), monthly, [("isInBillingRetryPeriod", .bool(true))]))
        try cleo.notify("EXPIRED", "BILLING_RETRY", at(6, 25), renewal: try cleo.renewal(at(6, 25), monthly, [
            ("autoRenewStatus", .number(0)), ("expirationIntent", .number(2)),
        ]))

        var dora = Life(pki: pki, name: "dora", original: "8001")
        let shared = try dora.tx("8001", monthly, purchase: at(1, 5), expires: at(2, 5), usd + [("inAppOwnershipType", .string("FAMILY_SHARED"))])
        dora.transaction(shared)
        try dora.notify("REVOKE", nil, at(2, 3), tx: LedgerLivesTests.with(shared, ("signedDate", .number(at(2, 3))),
            ("revocationDate", .number(at(2, 3))), ("revocationReason", .number(0)), ("revocationType", .string("FAMILY_REVOKE"))))

        var eve = Life(pki: pki, name: "eve", original: "9001")
        let monthlyPurchase = try eve.tx("9001", monthly, purchase: at(4, 1), expires: at(5, 1), usd)
        eve.transaction(monthlyPurchase)
        try eve.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at(4, 15),
                       tx: try eve.tx("9002", yearly, purchase: at(4, 15), expires: Int64(Timestamp.days(year: 2026, month: 4, day: 15)) * day,
                                      [("price", .number(99990)), ("currency", .string("USD")), ("storefront", .string("USA"))]))
        eve.transaction(LedgerLivesTests.with(monthlyPurchase, ("signedDate", .number(at(4, 15))), ("isUpgraded", .bool(true)),
                                              ("revocationDate", .number(at(4, 15)))))
        return [anna, ben, cleo, dora, eve]
    }

    /// More lives for the roll-up's equivalence (issue 48's common case): a customer token on
    /// every subscription, one that becomes shared only in May, a mixed-case token, renewals
    /// signed days after their periods began, and a refund signed in May of a February period.
    static func tokenedLives(_ pki: JWSTestPKI) throws -> [Life] {
        let usd: [(String, JSONValue)] = [("price", .number(9990)), ("currency", .string("USD")), ("storefront", .string("USA"))]
        let later = "9b2e4c1d-5f60-4a7b-8c9d-0e1f2a3b4c5d"
        var lives: [Life] = []
        for n in 0..<6 {
            let token = n == 5 ? "A1B2C3D4-0000-4000-8000-00000000000\(n)" : "0c6d1e2f-0000-4000-8000-00000000000\(n)"
            var life = Life(pki: pki, name: "tok\(n)", original: "11\(n)01", token: token)
            let start = at(1 + n % 3, 3 + 4 * n)
            for k in 0..<4 {
                let purchase = start + Int64(k) * 30 * day
                // Every other renewal signed two days into its period: a change to earlier days.
                let signed = k > 0 && n % 2 == 1 ? purchase + 2 * day + 3_600_000 : purchase
                life.transaction(try life.tx("11\(n)0\(k + 2)", monthly, purchase: purchase, expires: purchase + 30 * day, signed: signed, usd))
            }
            if n == 2 {
                let refunded = try life.tx("11\(n)03", monthly, purchase: start + 30 * day, expires: start + 60 * day, usd)
                try life.notify("REFUND", nil, at(5, 9) + 7_200_000, tx: LedgerLivesTests.with(refunded, ("signedDate", .number(at(5, 9) + 7_200_000)),
                    ("revocationDate", .number(at(5, 9))), ("revocationReason", .number(0)), ("revocationType", .string("REFUND_FULL"))))
            }
            if n == 3 {
                // A later version carries another customer's token (shared from May 12 on).
                let again = try life.tx("11\(n)05", monthly, purchase: at(5, 12), expires: at(6, 12), signed: at(5, 12) + 600_000,
                                        usd + [("appAccountToken", .string(later))])
                life.transaction(again)
            }
            lives.append(life)
        }
        var late = Life(pki: pki, name: "latecomer", original: "11901", token: later)
        late.transaction(try late.tx("11901", monthly, purchase: at(2, 20), expires: at(3, 20), usd))
        late.transaction(try late.tx("11902", monthly, purchase: at(4, 28), expires: at(5, 28), usd))  // beside tok3's May period
        lives.append(late)
        // A third subscription of that customer, yearly, from June 2 (beside tok3's monthly
        // period to June 12, across a week's end): the token stays shared from May 12.
        var third = Life(pki: pki, name: "third", original: "11951", token: later)
        third.transaction(try third.tx("11951", yearly, purchase: at(6, 2), expires: at(7, 2), usd))
        lives.append(third)
        return lives
    }

    /// The test PKI and the options that accept what it signs; nil without the test PKI or
    /// Apple's payload models (the reason printed).
    static func signing() -> (pki: JWSTestPKI, options: JWSOptions)? {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return nil }
        guard FixtureFiles.read("appstore-api/models/signedTransaction.json") != nil else {
            FixtureFiles.skipNote("Apple's documented payload models (appstore-api/models)")
            return nil
        }
        return (pki, options)
    }

    /// A ledger holding the lives (items shuffled: order never matters); nil without the test
    /// PKI or Apple's payload models (the reason printed).
    static func ledger(_ folder: TemporaryFolder, _ name: String = "metrics.sqlite") throws -> Ledger? {
        guard case let (pki, options)? = Self.signing() else { return nil }
        let ledger = Ledger(store: try TestStores.open(folder.file(name)))
        var items = try lives(pki).flatMap(\.items)
        var rng = SplitMix(seed: 31)
        rng.shuffle(&items)
        for item in items {
            _ = item.kind == "notification" ? try ledger.ingestNotification(Array(item.jws.utf8), options: options)
                                            : try ledger.ingestTransaction(Array(item.jws.utf8), options: options)
        }
        return ledger
    }

    static let scope = LedgerScope(environment: .sandbox, testData: true)
    /// The last millisecond of June 2025.
    static let endOfJune = at(7, 1) - 1

    static func tally(_ ledger: Ledger, from: Int64 = at(1, 1), to: Int64 = at(7, 1), _ granularity: MetricsRequest.Granularity = .month,
                      by dimension: MetricsRequest.Dimension = .all, asOf: Int64 = endOfJune) throws -> MetricsTally {
        try ledger.metricsTally(MetricsRequest(scope: scope, from: from, to: to, granularity: granularity, dimension: dimension, asOf: .asOf(asOf)))
    }

    @Test func monthlySeriesOfTheLives() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        let tally = try Self.tally(ledger)
        #expect(tally.bucketCount == 6)
        guard let all = tally.series[nil] else { Issue.record("no series"); return }
        #expect(tally.series.count == 1)
        let level = { (l: MetricsTally.Level) in tally.levels(all, l) }
        let flow = { (f: MetricsTally.Flow) in tally.flows(all, f) }
        #expect(level(.activeSubscriptions) == [2, 3, 2, 2, 1, 1])
        #expect(level(.activeTrials) == [0, 0, 0, 0, 0, 0])
        #expect(level(.inGracePeriod) == [0, 0, 0, 0, 0, 0])
        #expect(level(.inBillingRetry) == [0, 0, 0, 0, 1, 0])
        #expect(level(.familyShared) == [1, 0, 0, 0, 0, 0])
        // anna and ben are one customer (one app account token).
        #expect(tally.paidSubscribers(all) == [1, 2, 2, 2, 1, 1])
        #expect(flow(.new) == [1, 1, 0, 1, 0, 0])
        #expect(flow(.newTrials) == [1, 0, 0, 0, 0, 0])
        #expect(flow(.conversions) == [1, 0, 0, 0, 0, 0])
        #expect(flow(.renewals) == [0, 2, 1, 1, 0, 0])
        #expect(flow(.recoveries) == [0, 0, 1, 0, 0, 0])
        #expect(flow(.reactivations) == [0, 0, 0, 0, 0, 0])
        #expect(flow(.productChanges) == [0, 0, 0, 1, 0, 0])
        #expect(flow(.expiredVoluntary) == [0, 0, 0, 1, 0, 0])
        #expect(flow(.expiredBilling) == [0, 0, 1, 0, 1, 0])
        #expect(flow(.expiredOther) == [0, 0, 0, 0, 0, 0])
        #expect(flow(.trialsExpired) == [0, 0, 0, 0, 0, 0])
        #expect(flow(.refunded) == [0, 0, 1, 0, 0, 0])
        #expect(flow(.revoked) == [0, 1, 0, 0, 0, 0])
        #expect(all.revenue == ["USD": [19_980, 19_980, 9_990, 109_980, 0, 0], "EUR": [0, 8_990, 8_990, 8_990, 0, 0]])
        #expect(all.refunds == ["USD": [0, 0, 9_990, 0, 0, 0]])
        // A period's price over its length, times 30.436875 days, each period's share rounded to
        // the nearest milliunit, then summed (MRRRoundingTests: the rounding itself).
        #expect(all.mrr.mapValues { runningSum($0.dropLast()) } == ["USD": [19_618, 21_718, 9_809, 8_338, 8_338, 8_338],
                                                                    "EUR": [0, 9_772, 8_827, 9_121, 0, 0]])
        let cohorts = tally.cohorts.map { ($0.key.product, tally.monthBounds[$0.key.month], $0.value.subscribers,
                                           Array(runningSum($0.value.retained.dropLast()).dropFirst($0.key.month))) }
            .sorted { $0.1 < $1.1 }
        #expect(cohorts.map(\.0) == [Self.monthly, Self.monthly, Self.monthly])
        #expect(cohorts.map(\.1) == [Self.at(1, 1), Self.at(2, 1), Self.at(4, 1)])
        #expect(cohorts.map(\.2) == [2, 1, 1])
        #expect(cohorts.map(\.3) == [[2, 2, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 1, 1]])
    }

    @Test func daysOfMarchShowGraceRetryAndRecovery() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        let tally = try Self.tally(ledger, from: Self.at(3, 1), to: Self.at(4, 1), .day)
        #expect(tally.bucketCount == 31)
        guard let all = tally.series[nil] else { Issue.record("no series"); return }
        let active = tally.levels(all, .activeSubscriptions), grace = tally.levels(all, .inGracePeriod), retry = tally.levels(all, .inBillingRetry)
        // Mar 1-16: anna, and cleo in her grace period; Mar 17-19: anna (cleo in billing retry); from Mar 20: both.
        #expect(Array(active[0..<16]) == Array(repeating: 2, count: 16))
        #expect(Array(active[16..<19]) == [1, 1, 1])
        #expect(Array(active[19...]) == Array(repeating: 2, count: 12))
        #expect(Array(grace[0..<16]) == Array(repeating: 1, count: 16) && grace[16...].allSatisfy { $0 == 0 })
        #expect(Array(retry[16..<19]) == [1, 1, 1] && retry.reduce(0, +) == 3)
        let flows = { (f: MetricsTally.Flow) in tally.flows(all, f).enumerated().filter { $0.element > 0 }.map { [$0.offset + 1, $0.element] } }
        #expect(flows(.refunded) == [[1, 1]])
        #expect(flows(.renewals) == [[1, 1]])
        #expect(flows(.expiredBilling) == [[17, 1]])
        #expect(flows(.recoveries) == [[20, 1]])
    }

    /// As of March 10 only what Apple had signed by then counts: April and later are left out,
    /// March is read at the 10th (cleo still in her grace period, not yet recovered).
    @Test func asOfAnInstantCountsOnlyWhatWasSignedByThen() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        let tally = try Self.tally(ledger, asOf: Self.at(3, 10))
        #expect(tally.bucketCount == 3)
        guard let all = tally.series[nil] else { Issue.record("no series"); return }
        #expect(tally.levels(all, .activeSubscriptions) == [2, 3, 2])
        #expect(tally.levels(all, .inGracePeriod) == [0, 0, 1])
        #expect(tally.flows(all, .renewals) == [0, 2, 1])
        #expect(tally.flows(all, .refunded) == [0, 0, 1])
        #expect(tally.flows(all, .expiredBilling) == [0, 0, 0])
        #expect(tally.flows(all, .recoveries) == [0, 0, 0])
        #expect(all.revenue == ["USD": [19_980, 19_980, 9_990], "EUR": [0, 8_990, 0]])
    }

    @Test func seriesByCurrencyProductAndEntitlement() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        let byCurrency = try Self.tally(ledger, by: .currency)
        #expect(Set(byCurrency.series.keys) == ["USD", "EUR"])
        #expect(byCurrency.series["EUR"].map { byCurrency.levels($0, .activeSubscriptions) } == [0, 1, 1, 1, 0, 0])
        #expect(byCurrency.series["EUR"]?.revenue == ["EUR": [0, 8_990, 8_990, 8_990, 0, 0]])
        #expect(byCurrency.series["USD"].map { byCurrency.levels($0, .familyShared) } == [1, 0, 0, 0, 0, 0])

        let byProduct = try Self.tally(ledger, by: .product)
        #expect(byProduct.series[Self.yearly].map { byProduct.levels($0, .activeSubscriptions) } == [0, 0, 0, 1, 1, 1])
        #expect(byProduct.series[Self.yearly].map { byProduct.flows($0, .productChanges) } == [0, 0, 0, 1, 0, 0])
        #expect(byProduct.series[Self.monthly].map { byProduct.levels($0, .activeSubscriptions) } == [2, 3, 2, 1, 0, 0])

        try ledger.declareCatalog(ProductCatalog(json: Array("""
            {"correction": "the lives of 2025 predate this store", "products": {"\(Self.monthly)": {"type": "auto-renewable", "entitlements": ["pro"]},
                          "\(Self.yearly)": {"type": "auto-renewable", "entitlements": ["pro", "cloud"]}}}
            """.utf8)), effectiveMs: Self.at(1, 1))
        let byEntitlement = try Self.tally(ledger, by: .entitlement)
        #expect(Set(byEntitlement.series.keys) == ["pro", "cloud"])
        #expect(byEntitlement.series["pro"].map { byEntitlement.levels($0, .activeSubscriptions) } == [2, 3, 2, 2, 1, 1])
        #expect(byEntitlement.series["cloud"].map { byEntitlement.levels($0, .activeSubscriptions) } == [0, 0, 0, 1, 1, 1])
    }

    @Test func theDocumentIsAlignedWithItsBuckets() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        let json = try ledger.metrics(MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .month,
                                                     asOf: .asOf(Self.endOfJune)))
        guard case let .object(top) = try JSONParser.parse(Array(json.utf8)),
              case let .array(buckets)? = top.first(where: { $0.0 == "buckets" })?.1,
              case let .array(series)? = top.first(where: { $0.0 == "series" })?.1,
              case let .object(first)? = series.first else { Issue.record("unexpected document \(json)"); return }
        #expect(buckets == (1...6).map { .number(Self.at($0, 1)) })
        #expect(first.first { $0.0 == "paidSubscribers" }?.1 == .array([1, 2, 2, 2, 1, 1].map { .number($0) }))
        #expect(first.first { $0.0 == "netRevenue" }?.1 == .object([
            ("EUR", .array([0, 8_990, 8_990, 8_990, 0, 0].map { .number($0) })),
            ("USD", .array([19_980, 19_980, 0, 109_980, 0, 0].map { .number($0) })),
        ]))
    }

    /// Pages of any size give the same answer: subscriptions are never split between pages,
    /// and pages added on the helper thread while the next is read add up as on one thread.
    @Test func pagesOfAnySizeGiveTheSameAnswer() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        for dimension in [MetricsRequest.Dimension.all, .product, .currency] {
            let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .week,
                                             dimension: dimension, asOf: .asOf(Self.endOfJune))
            let whole = JSONWriter.serialize(try ledger.metricsTally(request).json())
            #expect(whole.contains("\"renewals\""))
            for size in [1, 2, 3] {
                #expect(JSONWriter.serialize(try ledger.metricsTally(request, streaming: true, pageSize: size).json()) == whole, "\(dimension) in pages of \(size)")
            }
        }
    }

    /// The day roll-up answers what reading every row answers: items arriving in four shuffled
    /// steps, questions by day, week and month, every split, and as of instants at midnight,
    /// inside a day something happens on, between items and now — from a roll-up left stale
    /// (items newer than it) and from one brought up to date incrementally — 1,638 questions
    /// (630 on PostgreSQL).
    /// With the tokened lives (issue 48): a customer token on each of their subscriptions, one
    /// shared only from May 12, renewals signed days into their periods, and a refund signed in
    /// May of a February period.
    @Test func theRollupAnswersAsEveryRowDoes() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("rollup.sqlite")))
        try ledger.declareCatalog(ProductCatalog(json: Array("""
            {"correction": "the lives of 2025 predate this store", "products": {"\(Self.monthly)": {"type": "auto-renewable", "entitlements": ["pro"]},
                          "\(Self.yearly)": {"type": "auto-renewable", "entitlements": ["pro", "cloud"]}}}
            """.utf8)), effectiveMs: Self.at(1, 1))
        var items = try (Self.lives(pki) + Self.tokenedLives(pki)).flatMap(\.items)
        var rng = SplitMix(seed: 77)
        rng.shuffle(&items)
        let hour: Int64 = 3_600_000
        let every = [Self.endOfJune, Self.at(3, 10) + 12 * hour, Self.at(3, 17) + hour, Self.at(2, 3), Self.at(5, 20) + 5 * hour,
                     Self.at(1, 17), Self.at(4, 15) + 30 * 60_000, Self.at(5, 9) + hour, Self.at(5, 12) + 5 * 60_000, Self.at(5, 13) - 1,
                     Self.at(3, 18) + 30 * 60_000, Self.at(4, 24) + 30 * 60_000, Clock.nowMilliseconds()]
        // The rules are the same Swift on both backends: PostgreSQL (run twice by make test,
        // directly and through the pooler) answers a midnight, an instant inside a day with
        // events, one on a day rows were signed later, one after a token became shared, and now.
        let instants = TestStores.onPostgres ? [every[0], every[1], every[9], every[10], every[12]] : every
        let shapes: [(Int64, Int64, MetricsRequest.Granularity)] = [(Self.at(1, 1), Self.at(7, 1), .month), (Self.at(1, 1), Self.at(7, 1), .week),
                                                                   (Self.at(3, 1), Self.at(4, 1), .day)]
        var compared = 0
        func compare(refresh: Bool) throws {
            compared += try Self.compareRolledUpWithEveryRow(ledger, Self.scope, instants: instants, shapes: shapes, refresh: refresh)
        }
        for (step, chunk) in items.chunks((items.count + 3) / 4).enumerated() {
            for item in chunk {
                _ = item.kind == "notification" ? try ledger.ingestNotification(Array(item.jws.utf8), options: options)
                                                : try ledger.ingestTransaction(Array(item.jws.utf8), options: options)
            }
            // Asked first with the roll-up left as it was (stale: the new items counted from
            // their rows; none yet at the first step), then brought up to date (incrementally
            // after the first step).
            if step > 0 { try compare(refresh: false) }
            try compare(refresh: true)
        }
        #expect(compared == 7 * instants.count * shapes.count * MetricsRequest.Dimension.allCases.count)
        let rows = { () throws -> Int64 in
            try ledger.store.read { (db) throws(GateKitError) -> Int64 in try db.scalar("SELECT count(*) FROM ledger_metric_days") }
        }
        let kept = try rows()
        #expect(kept > 0)
        // What the tokened lives put in the roll-up: changes signed after the days they changed,
        // and the token shared from the instant its second subscription carried it.
        let held = { (sql: String) throws -> Int64 in try ledger.store.read { (db) throws(GateKitError) -> Int64 in try db.scalar(sql) } }
        #expect(try held("SELECT count(*) FROM ledger_metric_late WHERE known_day > day") > 0)
        #expect(try held("SELECT shared_from_ms FROM ledger_metric_shared WHERE token = '9b2e4c1d-5f60-4a7b-8c9d-0e1f2a3b4c5d'") == Self.at(5, 12) + 600_000)
        #expect(try held("SELECT count(*) FROM ledger_metric_tokens WHERE token = 'a1b2c3d4-0000-4000-8000-000000000005'") == 1)
        // Its state removed, the roll-up is rebuilt from nothing to the same sums, not twice
        // them: a build cut short after one chunk of two subscriptions (questions meanwhile are
        // answered from the rows), then carried on by the next refresh.
        try ledger.store.write { (db) throws(GateKitError) in try db.execute("DELETE FROM ledger_metric_state") }
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .month, asOf: .asOf(Self.endOfJune))
        let streamed = JSONWriter.serialize(try ledger.metricsTally(request, streaming: true).json())
        try ledger.refreshRollup(Self.scope, buildChunk: 2, chunks: 1)
        #expect(try ledger.store.read { (db) throws(GateKitError) -> Int64 in
            try db.scalar("SELECT count(*) FROM ledger_metric_state WHERE build_through IS NOT NULL AND build_after IS NOT NULL")
        } == 1)
        #expect(JSONWriter.serialize(try ledger.metricsTally(request, refresh: false).json()) == streamed)
        try ledger.refreshRollup(Self.scope, buildChunk: 2)
        #expect(JSONWriter.serialize(try ledger.metricsTally(request, refresh: false).json()) == streamed)
        #expect(try rows() == kept)
    }

    /// Asks every split of every shape as of every instant from the roll-up (brought up to date
    /// first, or left as it is) and from every row, expecting the same document; how many were
    /// compared.
    static func compareRolledUpWithEveryRow(_ ledger: Ledger, _ scope: LedgerScope, instants: [Int64],
                                            shapes: [(Int64, Int64, MetricsRequest.Granularity)], refresh: Bool) throws -> Int {
        var compared = 0
        for asOf in instants {
            for (from, to, granularity) in shapes {
                for dimension in MetricsRequest.Dimension.allCases {
                    let request = try MetricsRequest(scope: scope, from: from, to: to, granularity: granularity, dimension: dimension, asOf: .asOf(asOf))
                    let rolled = JSONWriter.serialize(try ledger.metricsTally(request, refresh: refresh).json())
                    let streamed = JSONWriter.serialize(try ledger.metricsTally(request, streaming: true).json())
                    #expect(rolled == streamed, "\(granularity) by \(dimension) as of \(asOf)")
                    compared += 1
                }
            }
        }
        return compared
    }

    /// A customer token the roll-up does not yet know as shared (the second subscription's items
    /// are newer than it) still counts its customer once: the first subscription's paid periods
    /// come from its rows; once the roll-up is brought up to date, from the periods it keeps.
    @Test func aTokenSharedOnlyByNewerItemsCountsItsCustomerOnce() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("newer-shared.sqlite")))
        let token = "5e0d6c1b-2a39-4f48-8e57-6d7c8b9a0f12"
        let usd: [(String, JSONValue)] = [("price", .number(9990)), ("currency", .string("USD")), ("storefront", .string("USA"))]
        var first = Life(pki: pki, name: "first", original: "21001", token: token)
        for month in 1...3 { first.transaction(try first.tx("2100\(month)", Self.monthly, purchase: Self.at(month, 1), expires: Self.at(month + 1, 1), usd)) }
        var second = Life(pki: pki, name: "second", original: "22001", token: token)
        second.transaction(try second.tx("22001", Self.monthly, purchase: Self.at(2, 10), expires: Self.at(3, 10), usd))
        second.transaction(try second.tx("22002", Self.monthly, purchase: Self.at(3, 10), expires: Self.at(4, 10), usd))
        func ingest(_ life: Life) throws { for item in life.items { _ = try ledger.ingestTransaction(Array(item.jws.utf8), options: options) } }
        try ingest(first)
        try ledger.refreshRollup(Self.scope)
        try ingest(second)
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(4, 1), granularity: .month, asOf: .asOf(Self.at(4, 1) - 1))
        let streamed = try ledger.metricsTally(request, streaming: true)
        for refresh in [false, true] {
            let rolled = try ledger.metricsTally(request, refresh: refresh)
            guard let all = rolled.series[nil] else { Issue.record("no series"); return }
            #expect(rolled.levels(all, .activeSubscriptions) == [1, 2, 2])
            #expect(rolled.paidSubscribers(all) == [1, 1, 1], "refreshed: \(refresh)")
            #expect(JSONWriter.serialize(rolled.json()) == JSONWriter.serialize(streamed.json()))
        }
        #expect(try ledger.store.read { (db) throws(GateKitError) -> Int64 in
            try db.scalar("SELECT count(DISTINCT original_transaction_id) FROM ledger_metric_paid")
        } == 2)
        // The store opens again: its integrity check passes over the kept periods.
        _ = try TestStores.open(folder.file("newer-shared.sqlite"))
    }

    /// The kept periods' packing gives back what it packed (any text, any instant), and bytes
    /// it could not have made — cut short, an endless number, a text number never handed out —
    /// are refused, never read past their end.
    @Test func keptPeriodsPackAndUnpackExactly() {
        let periods = [RollupPaid.Period(start: .min, end: .max, customer: "5e0d6c1b-2a39-4f48-8e57-6d7c8b9a0f12", product: "pro.ünïcode",
                                         group: "", storefront: "DEU", currency: "EUR", store: "app-store"),
                       RollupPaid.Period(start: 0, end: 1, customer: "", product: "p", group: "21000000", storefront: "", currency: "", store: "play")]
        var texts = RollupTexts()
        let packed = RollupPaid.pack(periods, texts: &texts), firstAlone = RollupPaid.pack([periods[0]], texts: &texts).count
        let unpacked = RollupPaid.unpack(packed, textCount: texts.count)?.map { p in
            RollupPaid.Period(start: p.start, end: p.end, customer: texts.text(p.customer) ?? "?", product: texts.text(p.texts.product) ?? "?",
                              group: texts.text(p.texts.group) ?? "?", storefront: texts.text(p.texts.storefront) ?? "?",
                              currency: texts.text(p.texts.currency) ?? "?", store: texts.text(p.texts.store) ?? "?")
        }
        #expect(unpacked == periods)
        #expect(texts.count == 9)
        #expect(RollupPaid.unpack([], textCount: 0) == [])
        for cut in 1..<packed.count where cut != firstAlone {
            #expect(RollupPaid.unpack(Array(packed.prefix(cut)), textCount: texts.count) == nil, "cut at \(cut)")
        }
        #expect(RollupPaid.unpack(packed, textCount: texts.count - 1) == nil)
        #expect(RollupPaid.unpack(Array(repeating: 0xff, count: 11), textCount: texts.count) == nil)
    }

    /// A day's change packs to its entries and back (a late entry days before its day, a cohort,
    /// any value, any text), and bytes it could not have made — cut short, an endless number, a
    /// text number never handed out — are refused, never read past their end.
    @Test func dayChangesPackAndUnpackExactly() {
        let day: Int64 = 20_284
        let change: [DayRollup.Key: Int64] = [
            DayRollup.Key(day: day, metric: DayRollup.Metric.revenue, product: "pro.ünïcode", group: "g1", storefront: "DEU", currency: "EUR", cohort: 0,
                          store: "stripe"): 8_990,
            DayRollup.Key(day: day - 400, metric: DayRollup.Metric.level(.activeSubscriptions), product: "pro.monthly", group: "", storefront: "",
                          currency: "", cohort: 0): -1,
            DayRollup.Key(day: day, metric: DayRollup.Metric.cohortRetained, product: "pro.monthly", group: "", storefront: "", currency: "",
                          cohort: LedgerMetricsTests.at(3, 1)): .min,
            DayRollup.Key(day: day, metric: DayRollup.Metric.mrr, product: "pro.monthly", group: "g1", storefront: "USA", currency: "USD", cohort: 0): .max,
        ]
        var texts = RollupTexts()
        let packed = RollupDayChange.pack(change, day: day, texts: &texts)
        #expect(RollupDayChange.pack(change, day: day, texts: &texts) == packed)
        let entries = RollupDayChange.unpack(packed, day: day, texts: texts)
        #expect(entries.map { Dictionary($0, uniquingKeysWith: +) } == change)
        #expect(RollupDayChange.unpack([], day: day, texts: texts)?.isEmpty == true)
        for cut in [1, 3, packed.count / 2, packed.count - 1] {
            #expect(RollupDayChange.unpack(Array(packed.prefix(cut)), day: day, texts: texts) == nil, "cut at \(cut)")
        }
        #expect(RollupDayChange.unpack(Array(repeating: 0xff, count: 11) + [0], day: day, texts: texts) == nil)
        #expect(RollupDayChange.unpack(packed, day: day, texts: RollupTexts()) == nil)
    }

    /// A subscription with something on the instant's day both before the instant (a renewal at
    /// 01:00) and after it (its renewal intent changed at 15:00) is counted from its rows — the
    /// day's change would take the renewal out too; before its first instant the change is
    /// taken out, after its last the day's sums answer.
    @Test func aDayWithSomethingBeforeAndAfterTheInstantIsCountedFromTheRows() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("both-sides.sqlite")))
        let hour: Int64 = 3_600_000, day = Self.at(4, 1)
        let usd: [(String, JSONValue)] = [("price", .number(9990)), ("currency", .string("USD")), ("storefront", .string("USA"))]
        var fay = Life(pki: pki, name: "fay", original: "31001")
        fay.transaction(try fay.tx("31001", Self.monthly, purchase: Self.at(3, 1) + hour, expires: day + hour, usd))
        fay.transaction(try fay.tx("31002", Self.monthly, purchase: day + hour, expires: Self.at(5, 1) + hour, usd))
        try fay.notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", day + 15 * hour, renewal: try fay.renewal(day + 15 * hour, Self.monthly, [
            ("autoRenewStatus", .number(0)), ("expirationIntent", .number(1)),
        ]))
        try LedgerLivesTests.ingest(fay.items.map { (kind: $0.kind, jws: $0.jws) }, into: ledger, options: options)
        try ledger.refreshRollup(Self.scope)
        #expect(try ledger.store.read { (db) throws(GateKitError) -> [Int64] in
            let s = try db.statement("SELECT first_ms, last_ms FROM ledger_metric_marks WHERE day = ?1 AND original_transaction_id = '31001'")
            defer { s.reset() }
            s.bind(1, day / Self.day)
            return try s.step() ? [s.int64(0), s.int64(1)] : []
        } == [day + hour, day + 15 * hour])
        for asOf in [day + 30 * 60_000, day + 12 * hour, day + 16 * hour] {
            for granularity in [MetricsRequest.Granularity.day, .month] {
                let request = try MetricsRequest(scope: Self.scope, from: Self.at(3, 1), to: Self.at(5, 1), granularity: granularity, asOf: .asOf(asOf))
                let rolled = JSONWriter.serialize(try ledger.metricsTally(request, refresh: false).json())
                #expect(rolled == JSONWriter.serialize(try ledger.metricsTally(request, streaming: true).json()), "\(granularity) as of \(asOf)")
            }
        }
    }

    /// A damaged day change or numbered text is an error naming what is damaged, never a
    /// wrong answer.
    @Test func aDamagedDayChangeIsRefused() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("damaged-change.sqlite")))
        try LedgerLivesTests.ingest(try (Self.lives(pki) + Self.tokenedLives(pki)).flatMap(\.items).map { (kind: $0.kind, jws: $0.jws) },
                                    into: ledger, options: options)
        try ledger.refreshRollup(Self.scope)
        // A subscription with nothing before an instant of a day it has a change on (and no
        // shared token): as of a millisecond before its first instant that day, the change is
        // taken out.
        let (day, original, first) = try ledger.store.read { (db) throws(GateKitError) -> (Int64, String, Int64) in
            let s = try db.statement("""
                SELECT day, original_transaction_id, first_ms FROM ledger_metric_marks
                WHERE day_change IS NOT NULL AND first_ms > day * 86400000 AND original_transaction_id NOT IN
                    (SELECT original_transaction_id FROM ledger_metric_tokens JOIN ledger_metric_shared USING (environment, test_signed, token))
                ORDER BY day, original_transaction_id LIMIT 1
                """)
            defer { s.reset() }
            guard try s.step(), let original = s.text(1) else { throw GateKitError(.EINTERNAL, "no mark with a change after its day's start") }
            return (s.int64(0), original, s.int64(2))
        }
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .month, asOf: .asOf(first - 1))
        let streamed = JSONWriter.serialize(try ledger.metricsTally(request, streaming: true).json())
        #expect(JSONWriter.serialize(try ledger.metricsTally(request, refresh: false).json()) == streamed)
        func refusal(_ damage: String) throws -> GateKitError.Code? {
            try ledger.store.write { (db) throws(GateKitError) in try db.execute(damage) }
            do { _ = try ledger.metricsTally(request, refresh: false) } catch { return error.code }
            return nil
        }
        // Cut short, in words both backends read: its last byte off, then all but its first.
        let mark = "WHERE day = \(day) AND original_transaction_id = '\(original)'"
        #expect(try refusal("UPDATE ledger_metric_marks SET day_change = substr(day_change, 1, length(day_change) - 1) \(mark)") == .ECORRUPT)
        #expect(try refusal("UPDATE ledger_metric_marks SET day_change = substr(day_change, 1, 1) \(mark)") == .ECORRUPT)
        try ledger.store.write { (db) throws(GateKitError) in try db.execute("DELETE FROM ledger_metric_state") }
        try ledger.refreshRollup(Self.scope)
        #expect(JSONWriter.serialize(try ledger.metricsTally(request, refresh: false).json()) == streamed)
        #expect(try refusal("UPDATE ledger_metric_texts SET number = number + 1000") == .ECORRUPT)
        // A shared customer's kept periods, as of now, cut short.
        let now = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .month,
                                         asOf: .asOf(Clock.nowMilliseconds()))
        try ledger.store.write { (db) throws(GateKitError) in try db.execute("DELETE FROM ledger_metric_state") }
        try ledger.refreshRollup(Self.scope)
        #expect(JSONWriter.serialize(try ledger.metricsTally(now, refresh: false).json())
                == JSONWriter.serialize(try ledger.metricsTally(now, streaming: true).json()))
        try ledger.store.write { (db) throws(GateKitError) in
            try db.execute("UPDATE ledger_metric_paid SET periods = substr(periods, 1, length(periods) - 1)")
        }
        do {
            _ = try ledger.metricsTally(now, refresh: false)
            Issue.record("damaged paid periods were read")
        } catch { #expect(error.code == .ECORRUPT) }
    }

    /// Hardening IV, 19: money sums wrapped in memory, the SQLite roll-up stored a REAL that
    /// disagreed with the rows, and PostgreSQL failed every metrics question for good ("bigint
    /// out of range"). An absurd signed price is left out of money everywhere, counted as
    /// pricesExcluded; a large real price (an IDR year) still makes its MRR (it was dropped when
    /// price × a month in ms passed 64 bits). Both backends, roll-up equal to the rows.
    @Test func absurdPricesAreLeftOutTheSameWayEverywhere() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("absurd.sqlite")))
        let at = Self.at
        var life = Life(pki: pki, name: "absurd", original: "9100")
        for (i, price) in [Int64.max, 9_000_000_000_000_000_000, Int64.max].enumerated() {
            life.transaction(try life.tx("910\(i)", Self.monthly, purchase: at(1, 5 + i), expires: at(2, 5 + i),
                                         [("price", .number(price)), ("currency", .string("USD")), ("storefront", .string("USA"))]))
        }
        life.transaction(try life.tx("9200", Self.monthly, purchase: at(1, 8), expires: at(2, 8),
                                     [("price", .number(9990)), ("currency", .string("USD")), ("storefront", .string("USA"))]))
        var idr = Life(pki: pki, name: "idr", original: "9300")
        idr.transaction(try idr.tx("9300", Self.yearly, purchase: at(1, 1), expires: Int64(Timestamp.days(year: 2026, month: 1, day: 1)) * Self.day,
                                   [("price", .number(150_000_000_000)), ("currency", .string("IDR")), ("storefront", .string("IDN"))]))
        for item in life.items + idr.items { _ = try ledger.ingestTransaction(Array(item.jws.utf8), options: options) }
        for dimension in [MetricsRequest.Dimension.all, .currency] {
            let request = try MetricsRequest(scope: Self.scope, from: at(1, 1), to: at(3, 1), granularity: .month, dimension: dimension,
                                             asOf: .asOf(Self.endOfJune))
            let rolled = try ledger.metricsTally(request)
            let streamed = try ledger.metricsTally(request, streaming: true)
            #expect(JSONWriter.serialize(rolled.json()) == JSONWriter.serialize(streamed.json()), "\(dimension)")
            guard let all = rolled.series[dimension == .all ? nil : "USD"] else { Issue.record("no series"); continue }
            #expect(all.revenue["USD"] == [9990, 0])
            // Three absurd prices: each one's revenue and each one's period's MRR left out.
            #expect(rolled.flows(all, .pricesExcluded) == [6, 0])
            // 150,000,000 IDR a year is 12,508,304.79452 a month: 12508304795 milliunits, rounded.
            let monthly: Int64 = 12_508_304_795
            let idrSeries = rolled.series[dimension == .all ? nil : "IDR"]
            #expect(idrSeries?.mrr["IDR"].map { runningSum($0.dropLast()) } == [monthly, monthly])
        }
    }

    /// MRR rounds to the nearest milliunit, halves away from zero (truncation dropped up to a
    /// milliunit a period: 2 over three months is 0.667, not 0).
    @Test func mrrRoundsToTheNearestMilliunit() {
        let month = MetricsTally.meanMonthMs
        #expect(MetricsMoney.monthly(2, periodMs: 3 * month) == 1)
        #expect(MetricsMoney.monthly(1, periodMs: 3 * month) == 0)
        #expect(MetricsMoney.monthly(1, periodMs: 2 * month) == 1)     // a half: away from zero
        #expect(MetricsMoney.monthly(-1, periodMs: 2 * month) == -1)
        #expect(MetricsMoney.monthly(-2, periodMs: 3 * month) == -1)
        #expect(MetricsMoney.monthly(9990, periodMs: 31 * LedgerMetricsTests.day) == 9809)   // 9808.53
        #expect(MetricsMoney.monthly(9990, periodMs: 28 * LedgerMetricsTests.day) == 10859)  // 10859.42
        #expect(MetricsMoney.monthly(150_000_000_000, periodMs: 365 * LedgerMetricsTests.day) == 12_508_304_795)  // …794.52
    }

    /// The second hour (issue 44): metrics and the report of App Store data from a ledger that
    /// holds only test-signed data say so, as `only-test-signed` answers do — not zeros unexplained.
    @Test func aLedgerOfTestDataSaysSoWhenAskedAboutAppStoreData() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        func request(_ testData: Bool) throws -> MetricsRequest {
            try MetricsRequest(scope: LedgerScope(environment: .sandbox, testData: testData), from: Self.at(1, 1), to: Self.at(7, 1),
                               granularity: .month, asOf: .asOf(Self.endOfJune))
        }
        let appStore = try ledger.metrics(request(false))
        #expect(appStore.contains(#""series":[]"#) && appStore.hasSuffix(#","onlyTestSigned":true}"#), "\(appStore.suffix(80))")
        #expect(!(try ledger.metrics(request(true))).contains("onlyTestSigned"))
        #expect(try ledger.report(request(false)).contains("is test data (test-signed, or a license tester's), and this page shows the stores' real purchases only"))
        #expect(!(try ledger.report(request(true))).contains("is test data (test-signed"))
        // Another environment holding nothing at all: no hint (there is nothing to point to).
        let production = try MetricsRequest(scope: LedgerScope(environment: .production, testData: false), from: Self.at(1, 1),
                                            to: Self.at(7, 1), granularity: .month, asOf: .asOf(Self.endOfJune))
        #expect(!(try ledger.metrics(production)).contains("onlyTestSigned"))
        // One App Store item beside the test data: the App Store figures stand without a hint
        // (the row is written directly: only Apple can sign one).
        try ledger.store.write { (db) throws(GateKitError) in
            try db.statement("""
                INSERT INTO ledger_items(environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body)
                VALUES ('Sandbox', 0, '\(String(repeating: "a", count: 64))', 4, 1, 1, 1, '{}')
                """).run()
        }
        #expect(!(try ledger.metrics(request(false))).contains("onlyTestSigned"))
    }

    @Test func requestsOutOfRangeAreRefused() {
        let scope = Self.scope
        #expect(failure { try MetricsRequest(scope: scope, from: 10, to: 10, granularity: .day) } == .EINVAL)
        #expect(failure { try MetricsRequest(scope: scope, from: -1, to: 10, granularity: .day) } == .EINVAL)
        #expect(failure { try MetricsRequest(scope: scope, from: 0, to: Int64.max, granularity: .month) } == .EINVAL)
        #expect(failure { try MetricsRequest(scope: scope, from: 0, to: 20_000 * Self.day, granularity: .day) } == .EINVAL)
        #expect(failure { try MetricsRequest(scope: scope, from: 0, to: Self.day, granularity: .day, asOf: .asOf(-5)) } == .EINVAL)
        #expect((try? MetricsRequest(scope: scope, from: 0, to: 9_999 * Self.day, granularity: .day)) != nil)
    }

    /// The customer view as of an instant shows only what was signed by then: as of March 10,
    /// cleo's recovery (signed March 20) is neither an event nor an item yet.
    @Test func theCustomerViewAsOfAnInstantLeavesOutLaterItems() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledger(folder) else { return }
        func page(_ asOf: Int64) throws -> String {
            try ledger.customerReport(customer: "7001", request: MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1),
                                                                                  granularity: .month, asOf: .asOf(asOf)))
        }
        let early = try page(Self.at(3, 10)), late = try page(Self.endOfJune)
        #expect(early.contains("Billing failed: grace period until 2025-03-17") && !early.contains("Recovered after a billing failure"))
        #expect(late.contains("Recovered after a billing failure"))
        let items = { (html: String) in html.ranges(of: "<li id=\"item-").count }
        #expect(items(early) == 2 && items(late) == 6)
    }

    /// Signed data is text in the report, never markup: a product id, storefront or currency
    /// made of HTML stays escaped in both views (and in the ids made from it).
    @Test func markupInSignedDataStaysText() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("markup.sqlite")))
        let hostile = "<script>alert(1)</script>\"'&"
        var life = Life(pki: pki, name: "mallory", original: "4001")
        life.transaction(try life.tx("4001", hostile, purchase: Self.at(1, 1), expires: Self.at(2, 1),
                                     [("price", .number(100)), ("currency", .string(hostile)), ("storefront", .string(hostile))]))
        for item in life.items { _ = try ledger.ingestTransaction(Array(item.jws.utf8), options: options) }
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(3, 1), granularity: .month, asOf: .asOf(Self.endOfJune))
        for page in [try ledger.report(request), try ledger.customerReport(customer: "4001", request: request)] {
            #expect(!page.contains("<script") && !page.contains("alert(1)</"))
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"))
        }
        #expect(try ledger.report(request).contains("id=\"mrr-_3cscript_3ealert_281_29_3c_2fscript_3e_22_27_26\""))
    }

    /// Series × buckets is bounded: a split with more series than fit is refused, not allocated.
    @Test func aSplitTooLargeForMemoryIsRefused() throws {
        let request = try MetricsRequest(scope: Self.scope, from: 0, to: 10_000 * Self.day, granularity: .day, dimension: .product)
        var tally = MetricsTally(request: request, asOf: 10_000 * Self.day, catalog: .empty, sharedTokens: [])
        #expect(tally.bucketCount == 10_000 && tally.maximumSeries == 100)
        for n in 0...100 {
            tally.add(transaction: TransactionVersion(
                transactionID: "t\(n)", purchaseID: "o\(n)", appAccountToken: nil, productID: "p\(n)", groupID: nil,
                productType: .consumable, familyShared: false, purchaseMs: Self.day, originalPurchaseMs: nil, expiresMs: nil,
                revocationMs: nil, revocationReason: nil, isUpgraded: false, offer: nil, vouchedMs: Self.day, identity: "i",
                sale: TransactionVersion.Sale(price: 990, currency: "USD")))
            #expect(tally.overflowed == (n == 100))
        }
        #expect(tally.series.count == 100)
    }

    /// Signed dates at the ends of Int64 neither trap nor count: a period outside 1970–9999 is
    /// no period, and money dated there falls in no bucket or day the question reads.
    @Test func datesAtTheEndsOfTheRangeAreLeftOut() throws {
        func version(_ id: String, purchase: Int64, expires: Int64?, revoked: Int64? = nil) -> TransactionVersion {
            TransactionVersion(transactionID: id, purchaseID: "o", appAccountToken: nil, productID: "p", groupID: "g",
                               productType: .autoRenewable, familyShared: false, purchaseMs: purchase, originalPurchaseMs: nil,
                               expiresMs: expires, revocationMs: revoked, revocationReason: nil, isUpgraded: false, offer: nil,
                               vouchedMs: 1, identity: id, sale: TransactionVersion.Sale(price: .max, currency: "USD", trial: false))
        }
        let extremes = [version("a", purchase: .min, expires: .max), version("b", purchase: .max - 1, expires: .max, revoked: .min),
                        version("c", purchase: -5, expires: 10, revoked: .max)]
        #expect(SubscriptionLife(original: "o", newest: extremes, renewals: [], asOf: .max) == nil)
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(2, 1), granularity: .day)
        var tally = MetricsTally(request: request, asOf: Self.at(2, 1), catalog: .empty, sharedTokens: [])
        var rollup = DayRollup()
        tally.add(original: "o", versions: extremes, renewals: [], asOf: Self.at(2, 1))
        rollup.add(original: "o", versions: extremes, renewals: [], asOf: .max)
        #expect(!tally.series.values.contains { tally.holdsAnything($0) })
        #expect(rollup.days.keys.allSatisfy { $0 < 0 || $0 > DayRollup.day(MetricsCalendar.latest) })
    }

    /// Hardening IV, 25: a free trial spanning a bucket's end counts as a trial there, never as
    /// paid; converting in the next month is a conversion then; the cohort is the month of the
    /// first paid period, not the trial's (the hand-worked lives end every trial in a bucket).
    @Test func aTrialAcrossABucketsEndIsATrialAndItsCohortIsTheFirstPaidMonth() throws {
        func version(_ id: String, purchase: Int64, expires: Int64, trial: Bool) -> TransactionVersion {
            TransactionVersion(transactionID: id, purchaseID: "o", appAccountToken: nil, productID: Self.monthly, groupID: "g",
                               productType: .autoRenewable, familyShared: false, purchaseMs: purchase, originalPurchaseMs: Self.at(1, 25),
                               expiresMs: expires, revocationMs: nil, revocationReason: nil, isUpgraded: false, offer: trial ? .introductory : nil,
                               vouchedMs: purchase, identity: id,
                               sale: TransactionVersion.Sale(price: trial ? 0 : 9990, currency: "USD", storefront: "USA", trial: trial))
        }
        let versions = [version("t", purchase: Self.at(1, 25), expires: Self.at(2, 1), trial: true),
                        version("p1", purchase: Self.at(2, 1), expires: Self.at(3, 1), trial: false),
                        version("p2", purchase: Self.at(3, 1), expires: Self.at(4, 1), trial: false)]
        let request = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(5, 1), granularity: .month, asOf: .asOf(Self.endOfJune))
        var tally = MetricsTally(request: request, asOf: Self.endOfJune, catalog: .empty, sharedTokens: [])
        tally.add(original: "o", versions: versions, renewals: [], asOf: Self.endOfJune)
        guard let all = tally.series[nil] else { Issue.record("no series"); return }
        #expect(tally.levels(all, .activeTrials) == [1, 0, 0, 0])          // at the end of January: in the trial
        #expect(tally.levels(all, .activeSubscriptions) == [0, 1, 1, 0])   // paid from February
        #expect(tally.flows(all, .newTrials) == [1, 0, 0, 0] && tally.flows(all, .new) == [0, 0, 0, 0])
        #expect(tally.flows(all, .conversions) == [0, 1, 0, 0] && tally.flows(all, .renewals) == [0, 0, 1, 0])
        #expect(all.revenue["USD"] == [0, 9990, 9990, 0])
        let cohorts = JSONWriter.serialize(.array(tally.json()["cohorts"].map { [$0] } ?? []))
        #expect(cohorts.contains(#""month":\#(Self.at(2, 1))"#) && !cohorts.contains(#""month":\#(Self.at(1, 1))"#), "\(cohorts)")
    }

    @Test func calendarBucketsAreUTCDaysMondayWeeksAndMonths() {
        // 2025-01-01 is a Wednesday: its week starts Monday 2024-12-30.
        #expect(MetricsCalendar.start(of: Self.at(1, 1) + 5, .week) == Int64(Timestamp.days(year: 2024, month: 12, day: 30)) * Self.day)
        #expect(MetricsCalendar.start(of: Self.at(2, 28) + 1, .month) == Self.at(2, 1))
        #expect(MetricsCalendar.next(after: Int64(Timestamp.days(year: 2024, month: 12, day: 1)) * Self.day, .month) == Self.at(1, 1))
        #expect(MetricsCalendar.boundaries(from: Self.at(1, 15), to: Self.at(3, 1), .month) == [Self.at(1, 1), Self.at(2, 1), Self.at(3, 1)])
        #expect(MetricsCalendar.bucketCount(from: Self.at(1, 15), to: Self.at(3, 1), .month) == 2)
        #expect(MetricsCalendar.bucketCount(from: Self.at(1, 1), to: Self.at(1, 8), .week) == 2)
    }

    /// The rows a GateKit before migration 11 wrote (its columns, by table; "#" marks an integer).
    static let previousRows: [(table: String, columns: [String])] = [
        ("ledger_jws_headers", ["#id", "header"]),
        ("ledger_items", ["#id", "environment", "#test_signed", "identity", "#kind", "notification_uuid", "notification_type", "subtype",
                          "#signed_ms", "#ingested_ms", "#outcome", "#header_id", "body"]),
        ("ledger_transactions", ["#id", "environment", "#test_signed", "transaction_id", "original_transaction_id", "app_account_token",
                                 "product_id", "group_id", "#product_type", "#family_shared", "#purchase_ms", "#original_purchase_ms",
                                 "#expires_ms", "#revocation_ms", "#revocation_reason", "#is_upgraded", "#offer_type", "#signed_ms",
                                 "identity", "#item_id", "#header_id", "body"]),
    ]

    /// The ledger's rows the metrics read, as version 18 held them (its sales and Play columns).
    static let version18Rows: [(table: String, columns: [String])] = [
        previousRows[0],
        (previousRows[1].table, previousRows[1].columns + ["store_kind"]),
        (previousRows[2].table, previousRows[2].columns + ["#price", "currency", "storefront", "#trial", "revocation_type",
                                                           "#revocation_percentage", "store", "replaces", "#pending", "#acknowledged",
                                                           "store_state"]),
        ("ledger_renewals", ["#id", "environment", "#test_signed", "original_transaction_id", "product_id", "auto_renew_product_id",
                             "#auto_renew_status", "#is_in_billing_retry", "#grace_period_expires_ms", "#expiration_intent", "#renewal_ms",
                             "#signed_ms", "identity", "#item_id", "#header_id", "body", "#paused_until_ms"]),
        ("ledger_item_subjects", ["original_transaction_id", "#item_id"]),
    ]

    /// Migration 19 from the previous version: the kept paid periods' table is made anew, by the
    /// last day of each run (what an older roll-up kept there, in its older packing, goes with
    /// the old table), and the first question builds the roll-up again, answering as the rows do.
    @Test func aStoreOfTheDayChangeSchemaKeepsPaidPeriodsByDay() throws {
        guard case let (pki, options)? = Self.signing() else { return }
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "ledger-paid-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(18)))
        do {
            // The lives recorded by today's code, then copied as version 18 held them.
            let current = Ledger(store: try TestStores.open(folder.file("current.sqlite")))
            try LedgerLivesTests.ingest(try (Self.lives(pki) + Self.tokenedLives(pki)).flatMap(\.items).map { (kind: $0.kind, jws: $0.jws) },
                                        into: current, options: options)
            let old = Ledger(store: try Store(schema: previous, path: path, appID: appID))
            try TestStores.copy(Self.version18Rows, from: current.store, to: old.store)
            try old.store.write { (db) throws(GateKitError) in
                // One period as version 18 packed it: start and end in 8 bytes each, five empty
                // texts in a 4-byte length each.
                try db.statement("""
                    INSERT INTO ledger_metric_paid(environment, test_signed, original_transaction_id, from_day, through_day, periods)
                    VALUES (?1, ?2, 'kept-by-version-18', 0, 9223372036854775807, ?3)
                    """).bind(1, text: Self.scope.environment).bind(2, Self.scope.testFlag).bind(3, blob: Array(repeating: 0, count: 16 + 5 * 4)).run()
                try db.statement("INSERT INTO ledger_metric_state(environment, test_signed, last_item) VALUES (?1, ?2, 1)")
                    .bind(1, text: Self.scope.environment).bind(2, Self.scope.testFlag).run()
            }
        }
        let upgraded = Ledger(store: try Store(schema: .gatekit, path: path, appID: appID))
        let now = try MetricsRequest(scope: Self.scope, from: Self.at(1, 1), to: Self.at(7, 1), granularity: .month,
                                     asOf: .asOf(Clock.nowMilliseconds()))
        #expect(JSONWriter.serialize(try upgraded.metricsTally(now).json()) == JSONWriter.serialize(try upgraded.metricsTally(now, streaming: true).json()))
        let kept = try upgraded.store.read { (db) throws(GateKitError) -> [Int64] in
            [try db.scalar("SELECT count(*) FROM ledger_metric_paid WHERE original_transaction_id = 'kept-by-version-18'"),
             try db.scalar("SELECT count(*) FROM ledger_metric_paid")]
        }
        #expect(kept[0] == 0)
        #expect(kept[1] > 0)
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }

    /// Migration 11 from the previous version: the lives' rows as a store of schema 10 holds
    /// them (copied column by column from a current store) gain their sale from the signed text
    /// they were stored with, the table stays append-only, and the metrics read them.
    @Test func aStoreOfTheConsentSchemaGainsItsSales() throws {
        let folder = TemporaryFolder()
        guard let current = try Self.ledger(folder, "current.sqlite") else { return }
        let (path, appID) = TestStores.previous(in: folder, "ledger-sales-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(10)))
        do {
            let old = try Store(schema: previous, path: path, appID: appID)
            try TestStores.copy(Self.previousRows, from: current.store, to: old)
        }
        let upgraded = Ledger(store: try Store(schema: .gatekit, path: path, appID: appID))
        let sales = try upgraded.store.read { (db) throws(GateKitError) -> [String] in
            let s = try db.statement("""
                SELECT transaction_id, price, currency, storefront, trial, revocation_type FROM ledger_transactions
                WHERE transaction_id IN ('6001', '6003', '7001', '8001') ORDER BY transaction_id, signed_ms, revocation_type
                """)
            defer { s.reset() }
            var out: [String] = []
            while try s.step() {
                out.append((0..<6).map { s.isNull($0) ? "-" : s.text($0) ?? String(s.int64($0)) }.joined(separator: " "))
            }
            return out
        }
        // 7001 once: the failed renewal's notification carried the same signed purchase.
        #expect(sales == ["6001 0 USD USA 1 -", "6003 9990 USD USA 0 -", "6003 9990 USD USA 0 REFUND_FULL",
                          "7001 8990 EUR DEU 0 -", "8001 9990 USD USA 0 -", "8001 9990 USD USA 0 FAMILY_REVOKE"])
        let tally = try Self.tally(upgraded)
        #expect(tally.series[nil]?.revenue == ["USD": [19_980, 19_980, 9_990, 109_980, 0, 0], "EUR": [0, 8_990, 8_990, 8_990, 0, 0]])
        #expect(tally.series[nil]?.refunds == ["USD": [0, 0, 9_990, 0, 0, 0]])
        #expect(failure {
            try upgraded.store.write { (db) throws(GateKitError) in try db.execute("UPDATE ledger_transactions SET price = 1") }
        } != nil)
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }
}
