import GateKitStore
import GateKitSupport

/// The paid periods of the subscriptions whose customer token another subscription shares, as
/// they became known (migration 17). The day sums cannot count such a customer once — only
/// the customer's periods together tell where they overlap — so a question used to read those
/// subscriptions' rows; it now reads their periods: per subscription, the periods its rows
/// signed by each of its signing days made (one step per signing day, as `RollupChain`), steps
/// that made the same periods kept as one run of days. A question as of day T reads the run
/// holding T; a subscription with something signed on T is counted from its rows instead.
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

        static func < (a: Period, b: Period) -> Bool {
            (a.start, a.end, a.customer) != (b.start, b.end, b.customer) ? (a.start, a.end, a.customer) < (b.start, b.end, b.customer)
                : (a.product, a.group, a.storefront, a.currency) < (b.product, b.group, b.storefront, b.currency)
        }
    }

    /// The periods of a run of signing days, `fromDay` through `throughDay`.
    struct Run: Equatable {
        let fromDay: Int64
        var throughDay: Int64
        let periods: [Period]
    }

    /// One subscription's runs: its paid periods as of each of its signing days, in order.
    static func runs(original: String, versions: [TransactionVersion], renewals: [RenewalVersion]) -> [Run] {
        var runs: [Run] = []
        for day in RollupChain.signingDays(versions, renewals) {
            var paid = PaidCustomerPeriods()
            let known = versions.filter { DayRollup.day($0.signedMs) <= day }
            if !known.isEmpty {
                paid.add(original: original, versions: known, renewals: renewals.filter { DayRollup.day($0.signedMs) <= day }, asOf: .max)
            }
            let periods = paid.periods.map { p in
                Period(start: p.start, end: p.end, customer: p.customer, product: p.version.productID, group: p.version.groupID ?? "",
                       storefront: p.version.sale.storefront ?? "", currency: p.version.sale.currency ?? "")
            }.sorted()
            if let last = runs.last, last.periods == periods { continue }
            if !runs.isEmpty { runs[runs.count - 1].throughDay = day - 1 }
            runs.append(Run(fromDay: day, throughDay: .max, periods: periods))
        }
        return runs.filter { !$0.periods.isEmpty }
    }

    /// Writes the runs of `subscriptions` (their rows up to the roll-up's item), replacing what
    /// was kept of them.
    static func record(_ db: any DatabaseConnection, scope: LedgerScope,
                       _ subscriptions: [(original: String, versions: [TransactionVersion], renewals: [RenewalVersion])]) throws(GateKitError) {
        guard !subscriptions.isEmpty else { return }
        let env = RowInserts.Value.text(scope.environment), test = RowInserts.Value.integer(scope.testFlag)
        try Ledger.inChunks(db, scope: scope, subscriptions.map(\.original), of: Ledger.rollupChunk, {
            "DELETE FROM ledger_metric_paid WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id IN (\($0.joined(separator: ", ")))"
        }) { _ in }
        var rows = RowInserts(into: "ledger_metric_paid(environment, test_signed, original_transaction_id, from_day, through_day, periods)",
                              values: Array(repeating: "?", count: 6))
        for (original, versions, renewals) in subscriptions {
            for run in runs(original: original, versions: versions, renewals: renewals) {
                try rows.append([env, test, .text(original), .integer(run.fromDay), .integer(run.throughDay), .blob(pack(run.periods))])
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
    /// (none of them has anything signed on it).
    static func count(_ db: any DatabaseConnection, scope: LedgerScope, day: Int64, _ originals: Set<String>,
                      into tally: inout MetricsTally) throws(GateKitError) {
        guard !originals.isEmpty else { return }
        let s = try db.statement("""
            SELECT original_transaction_id, periods FROM ledger_metric_paid
            WHERE environment = ?1 AND test_signed = ?2 AND from_day <= ?3 AND through_day >= ?3
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, day)
        while try s.step() {
            guard let original = s.text(0), originals.contains(original) else { continue }
            guard let periods = unpack(s.blob(1) ?? []) else {
                throw GateKitError(.ECORRUPT, "the metrics roll-up's paid periods of subscription \(original) are malformed")
            }
            for p in periods {
                tally.paidCustomer(p.customer, p.start, p.end, product: p.product, group: p.group, storefront: p.storefront, currency: p.currency)
            }
        }
    }

    // MARK: packing

    /// Periods as bytes: per period its start and end (8 bytes each, little-endian), then its
    /// customer, product, group, storefront and currency, each a 4-byte length and UTF-8.
    static func pack(_ periods: [Period]) -> [UInt8] {
        var out: [UInt8] = []
        func integer(_ n: Int64) { withUnsafeBytes(of: n.littleEndian) { out.append(contentsOf: $0) } }
        func text(_ s: String) {
            let bytes = Array(s.utf8)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: bytes)
        }
        for p in periods {
            integer(p.start)
            integer(p.end)
            for s in [p.customer, p.product, p.group, p.storefront, p.currency] { text(s) }
        }
        return out
    }

    /// The periods `pack` made; nil for bytes it could not have made.
    static func unpack(_ bytes: [UInt8]) -> [Period]? {
        var at = 0, periods: [Period] = []
        func integer(_ size: Int) -> UInt64? {
            guard bytes.count - at >= size else { return nil }
            var n: UInt64 = 0
            for k in 0..<size { n |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            at += size
            return n
        }
        func text() -> String? {
            guard let length = integer(4), bytes.count - at >= Int(length) else { return nil }
            defer { at += Int(length) }
            return String(decoding: bytes[at..<(at + Int(length))], as: UTF8.self)
        }
        while at < bytes.count {
            guard let start = integer(8), let end = integer(8), let customer = text(), let product = text(), let group = text(),
                  let storefront = text(), let currency = text() else { return nil }
            periods.append(Period(start: Int64(bitPattern: start), end: Int64(bitPattern: end), customer: customer, product: product,
                                  group: group, storefront: storefront, currency: currency))
        }
        return periods
    }
}
