import GateKitStore
import GateKitSupport

/// The paid periods of the subscriptions whose customer token another subscription shares, as
/// they became known (migration 17). The day sums cannot count such a customer once — only
/// the customer's periods together tell where they overlap — so a question used to read those
/// subscriptions' rows; it now reads their periods: per subscription, the periods its rows
/// signed by each of its signing days made (one step per signing day, as `RollupChain`), steps
/// that made the same periods kept as one run of days, keyed by the run's last day (migration
/// 19). A question as of day T reads the runs holding T — only those lasting to T or later
/// (as of now, each subscription's last run); a subscription with something signed on T is
/// counted from its rows instead.
enum RollupPaid {
    /// A paid period as the tally counts it: the customer, the span, the keys a split uses.
    struct Period: Hashable, Comparable {
        var start: Int64
        var end: Int64
        var customer: String
        var product: String
        var group: String
        var storefront: String
        var currency: String
        var store: String

        static func < (a: Period, b: Period) -> Bool {
            (a.start, a.end, a.customer) != (b.start, b.end, b.customer) ? (a.start, a.end, a.customer) < (b.start, b.end, b.customer)
                : (a.product, a.group, a.storefront, a.currency, a.store) < (b.product, b.group, b.storefront, b.currency, b.store)
        }
    }

    /// The periods of a run of signing days, `fromDay` through `throughDay`.
    struct Run: Equatable {
        let fromDay: Int64
        var throughDay: Int64
        let periods: [Period]
    }

    /// One subscription's runs: its paid periods as of each of its signing days, in order.
    static func runs(original: String, versions: [TransactionVersion], renewals: [RenewalVersion],
                     payments: PaymentAnswers = PaymentAnswers()) -> [Run] {
        var runs: [Run] = []
        for day in RollupChain.signingDays(versions, renewals, payments) {
            var paid = PaidCustomerPeriods()
            let known = versions.filter { DayRollup.day($0.vouchedMs) <= day }
            if !known.isEmpty {
                paid.add(original: original, versions: known, renewals: renewals.filter { DayRollup.day($0.vouchedMs) <= day },
                         payments: payments.signed(throughDay: day), asOf: .max)
            }
            let periods = paid.periods.map { p in
                Period(start: p.start, end: p.end, customer: p.customer, product: p.version.productID, group: p.version.groupID ?? "",
                       storefront: p.version.sale.storefront ?? "", currency: p.version.sale.currency ?? "", store: p.version.store.name)
            }.sorted()
            if let last = runs.last, last.periods == periods { continue }
            if !runs.isEmpty { runs[runs.count - 1].throughDay = day - 1 }
            runs.append(Run(fromDay: day, throughDay: .max, periods: periods))
        }
        return runs.filter { !$0.periods.isEmpty }
    }

    /// Writes the runs of `subscriptions` (their rows up to the roll-up's item), replacing what
    /// was kept of them; their texts numbered in `texts`.
    static func record(_ db: any DatabaseConnection, scope: LedgerScope, texts: inout RollupTexts,
                       _ subscriptions: [(original: String, versions: [TransactionVersion], renewals: [RenewalVersion], payments: PaymentAnswers)]) throws(GateKitError) {
        guard !subscriptions.isEmpty else { return }
        let env = RowInserts.Value.text(scope.environment), test = RowInserts.Value.integer(scope.testFlag)
        try Ledger.inChunks(db, scope: scope, subscriptions.map(\.original), of: Ledger.rollupChunk, {
            "DELETE FROM ledger_metric_paid WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id IN (\($0.joined(separator: ", ")))"
        }) { _ in }
        var rows = RowInserts(into: "ledger_metric_paid(environment, test_signed, through_day, original_transaction_id, from_day, periods)",
                              values: Array(repeating: "?", count: 6))
        for (original, versions, renewals, payments) in subscriptions {
            for run in runs(original: original, versions: versions, renewals: renewals, payments: payments) {
                try rows.append([env, test, .integer(run.throughDay), .text(original), .integer(run.fromDay), .blob(pack(run.periods, texts: &texts))])
            }
        }
        try rows.flush(db)
    }

    /// The subscriptions holding a token of `tokens` that another subscription shares.
    static func holders(_ db: any DatabaseConnection, scope: LedgerScope, ofSharedAmong tokens: Set<String>) throws(GateKitError) -> Set<String> {
        var shared: [String] = []
        try Ledger.inChunks(db, scope: scope, tokens.sorted(), of: Ledger.rollupChunk, { parameters in """
            SELECT v.column1 FROM (VALUES \(parameters.map { "(\($0))" }.joined(separator: ", "))) AS v
            WHERE EXISTS (SELECT 1 FROM ledger_metric_shared s WHERE s.environment = ?1 AND s.test_signed = ?2 AND s.token = v.column1)
            """ }) { shared.append($0) }
        return try RollupTokens.holders(db, scope: scope, of: shared)
    }

    /// Counts into `tally` the kept periods of `originals` for a question as of day `day`
    /// (none of them has anything signed on it), each customer's periods handed over together.
    static func count(_ db: any DatabaseConnection, scope: LedgerScope, day: Int64, _ originals: Set<String>, texts: RollupTexts,
                      into tally: inout MetricsTally) throws(GateKitError) {
        guard !originals.isEmpty else { return }
        let s = try db.statement("""
            SELECT original_transaction_id, periods FROM ledger_metric_paid
            WHERE environment = ?1 AND test_signed = ?2 AND through_day >= ?3 AND from_day <= ?3
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day)
        // By the customer's text number: texts are few, and a number is its own index.
        var byCustomer: [[Numbered]] = Array(repeating: [], count: texts.count)
        while try s.step() {
            guard let original = s.text(0), originals.contains(original) else { continue }
            guard let periods = unpack(s.blob(1) ?? [], textCount: texts.count) else {
                throw GateKitError(.ECORRUPT, "the metrics roll-up's paid periods of subscription \(original) are malformed")
            }
            for p in periods { byCustomer[Int(p.customer)].append(p) }
        }
        var keys: [Numbered.Texts: [String?]] = [:]
        for (number, periods) in byCustomer.enumerated() where !periods.isEmpty {
            tally.paidCustomer(texts.text(UInt64(number)) ?? "", periods.map { p in
                let series = keys[p.texts] ?? tally.keys(stored: texts.text(p.texts.product) ?? "", group: texts.text(p.texts.group) ?? "",
                                                         storefront: texts.text(p.texts.storefront) ?? "", currency: texts.text(p.texts.currency) ?? "",
                                                         store: texts.text(p.texts.store) ?? "")
                keys[p.texts] = series
                return (p.start, p.end, series)
            })
        }
    }

    // MARK: packing

    /// A kept period as packed: its texts by number (`RollupTexts`).
    struct Numbered: Equatable {
        var start: Int64
        var end: Int64
        var customer: UInt64
        var texts: Texts

        struct Texts: Hashable {
            var product: UInt64
            var group: UInt64
            var storefront: UInt64
            var currency: UInt64
            var store: UInt64
        }
    }

    /// Periods as bytes (`RollupBytes`): per period its start, its length, and the numbers of
    /// its customer, product, group, storefront, currency and store.
    static func pack(_ periods: [Period], texts: inout RollupTexts) -> [UInt8] {
        var out = RollupBytes()
        for p in periods {
            out.signed(p.start)
            out.signed(p.end &- p.start)
            for text in [p.customer, p.product, p.group, p.storefront, p.currency, p.store] { out.unsigned(texts.number(text)) }
        }
        return out.bytes
    }

    /// The periods `pack` made with `textCount` texts numbered; nil for bytes it could not have
    /// made (cut short, a number never handed out).
    static func unpack(_ bytes: [UInt8], textCount: Int) -> [Numbered]? {
        var reader = RollupBytes.Reader(bytes), periods: [Numbered] = []
        func text() -> UInt64? { reader.unsigned().flatMap { $0 < UInt64(textCount) ? $0 : nil } }
        while !reader.atEnd {
            guard let start = reader.signed(), let length = reader.signed(), let customer = text(), let product = text(), let group = text(),
                  let storefront = text(), let currency = text(), let store = text() else { return nil }
            periods.append(Numbered(start: start, end: start &+ length, customer: customer,
                                    texts: .init(product: product, group: group, storefront: storefront, currency: currency, store: store)))
        }
        return periods
    }
}
