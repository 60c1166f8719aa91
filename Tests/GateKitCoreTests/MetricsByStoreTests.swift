import Testing
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The day roll-up split by store (migration 30): a split by store is answered from the sums,
/// and answers as reading every row does — Google Play's and Stripe's lives in one ledger
/// (the Apple lives' own equivalence, `LedgerMetricsTests.theRollupAnswersAsEveryRowDoes`,
/// covers the App Store's series), every split, every bucket size, as of instants inside the
/// lives and now, with the roll-up stale and brought up to date after each store's answers.
@Suite struct MetricsByStoreTests {
    static let scope = LedgerScope(environment: .production, testData: false)
    static let hour: Int64 = 3_600_000

    @Test func theRollupSplitsByStoreAsEveryRowDoes() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("by-store.sqlite")))
        let (play, stripe) = (PlayMetricsTests.at, StripeLedgerLivesTests.t0)
        let day = StripeLedgerLivesTests.day
        let every = [play(3, 15) + 12 * Self.hour, play(4, 15) + 1, play(7, 1) - 1, stripe + 15 * day + 12 * Self.hour,
                     stripe + 40 * day + 5 * Self.hour, stripe + 95 * day, Clock.nowMilliseconds()]
        let instants = TestStores.onPostgres ? [every[0], every[3], every[6]] : every
        let shapes: [(Int64, Int64, MetricsRequest.Granularity)] = [(play(1, 1), stripe + 200 * day, .month),
                                                                   (stripe, stripe + 120 * day, .week), (play(2, 1), play(5, 1), .day)]
        var compared = 0
        func compare(refresh: Bool) throws {
            compared += try LedgerMetricsTests.compareRolledUpWithEveryRow(ledger, Self.scope, instants: instants, shapes: shapes, refresh: refresh)
        }
        try PlayMetricsTests.ingestLives(into: ledger)
        // Brought up to date ahead of any question (`ledger_metrics_refresh`): counted once,
        // then current; a question then has nothing to count.
        #expect(try ledger.refreshMetrics(Self.scope))
        #expect(try !ledger.refreshMetrics(Self.scope))
        if TestStores.onPostgres {  // the first build gathered its tables' statistics (never analyzed: -1)
            #expect(try ledger.store.read { (db) throws(GateKitError) -> Int64 in
                try db.scalar("SELECT count(*) FROM pg_class WHERE oid = 'ledger_metric_days'::regclass AND reltuples >= 0")
            } == 1)
        }
        try compare(refresh: true)
        var answers = StripeLedgerLivesTests.lives().0
        var rng = SplitMix(seed: 30)
        rng.shuffle(&answers)
        for half in answers.chunks((answers.count + 1) / 2) {
            try StripeLedgerLivesTests.ingest(Array(half), into: ledger)
            try compare(refresh: false)  // the new answers counted from their rows
            try compare(refresh: true)
        }
        #expect(compared == 5 * instants.count * shapes.count * MetricsRequest.Dimension.allCases.count)
        // Both stores' series, from the sums: each store's subscribers and money under its name.
        let request = try MetricsRequest(scope: Self.scope, from: play(1, 1), to: stripe + 200 * day, granularity: .month, dimension: .store,
                                         asOf: .asOf(stripe + 200 * day - 1))
        let byStore = try ledger.metricsTally(request, refresh: false)
        #expect(Set(byStore.series.keys) == ["play", "stripe"])
        #expect(byStore.series["play"]?.revenue["USD"]?.prefix(6) == [9_980, 4_990, 4_990, 9_980, 0, 0])
        #expect(try ledger.store.read { (db) throws(GateKitError) -> [String] in
            let s = try db.statement("SELECT DISTINCT store FROM ledger_metric_days WHERE store <> '' ORDER BY store")
            defer { s.reset() }
            var out: [String] = []
            while try s.step() { out.append(s.text(0) ?? "") }
            return out
        } == ["play", "stripe"])
    }
}
