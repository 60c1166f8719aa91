import Testing
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// Google Play in the metrics (docs/ledger.md, "Metrics"), three lives of 2025 worked out by
/// hand, each answer as Google documents it (`PlayLedgerLivesTests.subscription`):
/// - renew: 4.99 USD monthly from Jan 1, renewed Feb 1 and Mar 1 (each order's period begins
///   where the previous ended: Google answers the subscription's start, not the order's),
///   canceled by the user Mar 15: lapses Apr 1 (voluntary).
/// - trial: a free trial Jan 10 to Jan 17, paid to Feb 17, grace to Feb 20, account hold, expired
///   by the system Mar 20: lapses Feb 20 (billing), in billing retry until Mar 20.
/// - upgrade: basic from Apr 1, replaced Apr 15 by a premium token naming it (4.99 each): a
///   product change, no churn; the premium token hears no renewal, lapses May 15.
@Suite struct PlayMetricsTests {
    typealias Item = PlayLedgerLivesTests.Item
    static func at(_ month: Int, _ day: Int) -> Int64 { LedgerMetricsTests.at(month, day) }
    static let scope = LedgerScope(environment: .production, testData: false)

    static func ledger(_ folder: TemporaryFolder) throws -> Ledger {
        let ledger = Ledger(store: try TestStores.open(folder.file("play-metrics.sqlite")))
        try ingestLives(into: ledger)
        return ledger
    }

    /// The three lives' answers, in the order Google gave them.
    static func ingestLives(into ledger: Ledger) throws {
        func sub(_ token: String, _ answered: Int64, _ state: String, start: Int64, _ items: [Item], linked: String? = nil, canceled: String? = nil) throws {
            let bytes = PlayLedgerLivesTests.subscription(state, start: start, items, linked: linked, account: nil, canceled: canceled)
            _ = try ledger.ingestPlaySubscription(Ledger.PlayAnswer(packageName: PlayLedgerLivesTests.package, purchaseToken: token,
                                                                    bytes: bytes, answeredMs: answered))
        }
        let at = PlayMetricsTests.at
        try sub("renew", at(1, 1), "ACTIVE", start: at(1, 1), [Item(product: "pro", expiry: at(2, 1), order: "GPA.1")])
        try sub("renew", at(2, 1), "ACTIVE", start: at(1, 1), [Item(product: "pro", expiry: at(3, 1), order: "GPA.1..0")])
        try sub("renew", at(3, 1), "ACTIVE", start: at(1, 1), [Item(product: "pro", expiry: at(4, 1), order: "GPA.1..1")])
        try sub("renew", at(3, 15), "CANCELED", start: at(1, 1), [Item(product: "pro", expiry: at(4, 1), autoRenew: false, order: "GPA.1..1")],
                canceled: "userInitiatedCancellation")
        try sub("trial", at(1, 10), "ACTIVE", start: at(1, 10), [Item(product: "pro", expiry: at(1, 17), order: "GPA.2", phase: "freeTrial")])
        try sub("trial", at(1, 17), "ACTIVE", start: at(1, 10), [Item(product: "pro", expiry: at(2, 17), order: "GPA.2..0")])
        try sub("trial", at(2, 17), "IN_GRACE_PERIOD", start: at(1, 10), [Item(product: "pro", expiry: at(2, 20), order: "GPA.2..0")])
        try sub("trial", at(2, 20), "ON_HOLD", start: at(1, 10), [Item(product: "pro", expiry: at(2, 20), order: "GPA.2..0")])
        try sub("trial", at(3, 20), "EXPIRED", start: at(1, 10), [Item(product: "pro", expiry: at(2, 20), autoRenew: false, order: "GPA.2..0")],
                canceled: "systemInitiatedCancellation")
        let basic = Item(product: "basic", basePlan: "monthly", expiry: at(5, 1), autoRenew: true, order: "GPA.3")
        try sub("up-old", at(4, 1), "ACTIVE", start: at(4, 1), [basic])
        try sub("up-new", at(4, 15), "ACTIVE", start: at(4, 15), [Item(product: "premium", expiry: at(5, 15), order: "GPA.4")], linked: "up-old")
        try sub("up-old", at(4, 15) + 1, "EXPIRED", start: at(4, 1), [Item(product: "basic", expiry: at(4, 15), autoRenew: false, order: "GPA.3")],
                canceled: "replacementCancellation")
    }

    static func tally(_ ledger: Ledger, by dimension: MetricsRequest.Dimension = .all, streaming: Bool = false) throws -> MetricsTally {
        try ledger.metricsTally(MetricsRequest(scope: scope, from: at(1, 1), to: at(7, 1), granularity: .month, dimension: dimension,
                                               asOf: .asOf(at(7, 1) - 1)), streaming: streaming)
    }

    @Test func playLivesCountAsTheDefinitionsSay() throws {
        let folder = TemporaryFolder()
        let ledger = try Self.ledger(folder)
        for streaming in [false, true] {  // the day roll-up and every row agree
            let tally = try Self.tally(ledger, streaming: streaming)
            guard let all = tally.series[nil] else { Issue.record("no series"); return }
            let flow = { (f: MetricsTally.Flow) in tally.flows(all, f) }
            let level = { (l: MetricsTally.Level) in tally.levels(all, l) }
            #expect(flow(.new) == [1, 0, 0, 1, 0, 0])
            #expect(flow(.newTrials) == [1, 0, 0, 0, 0, 0])
            #expect(flow(.conversions) == [1, 0, 0, 0, 0, 0])
            #expect(flow(.renewals) == [0, 1, 1, 0, 0, 0], "each order's period begins where the previous one ended")
            #expect(flow(.productChanges) == [0, 0, 0, 1, 0, 0], "a token that replaced another: no new subscriber")
            #expect(flow(.expiredVoluntary) == [0, 0, 0, 1, 0, 0])
            #expect(flow(.expiredBilling) == [0, 1, 0, 0, 0, 0])
            #expect(flow(.expiredOther) == [0, 0, 0, 0, 1, 0], "the replaced token never churns; the premium one lapses unheard of")
            #expect(level(.activeSubscriptions) == [2, 1, 1, 1, 0, 0])
            #expect(level(.inBillingRetry) == [0, 1, 0, 0, 0, 0])
            #expect(all.revenue == ["USD": [9_980, 4_990, 4_990, 9_980, 0, 0]], "each order paid when its period began")
        }
        let byStore = try Self.tally(ledger, by: .store)
        #expect(Set(byStore.series.keys) == ["play"])
        #expect(byStore.series["play"]?.revenue == ["USD": [9_980, 4_990, 4_990, 9_980, 0, 0]])
    }
}
