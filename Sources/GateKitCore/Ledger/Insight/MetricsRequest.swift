import GateKitSupport

/// A question for the ledger's subscription metrics (`LedgerMetrics`): one environment, an
/// interval cut into UTC days, ISO weeks or calendar months, split by one dimension, from what
/// Apple had signed by `asOf` (docs/ledger.md, "Metrics").
public struct MetricsRequest: Sendable {
    public enum Granularity: String, Sendable, CaseIterable {
        case day, week, month
    }

    /// What the series are split by. Revenue and MRR are always per currency besides.
    public enum Dimension: String, Sendable, CaseIterable {
        /// `storefront`: one spelling of a country across stores (`Storefront`); `store`: the
        /// store that sold it.
        case all, product, group, entitlement, storefront, currency, store
    }

    public let scope: LedgerScope
    /// The interval's bounds (Unix ms): `from` is moved back to the start of its bucket, `to`
    /// is exclusive; buckets starting after `asOf` are left out (nothing can be known of them).
    public let from: Int64
    public let to: Int64
    public let granularity: Granularity
    public let dimension: Dimension
    public let asOf: LedgerInstant

    /// More buckets than this is a mistake (ten years of days is 3,653).
    public static let maximumBuckets = 10_000

    public init(scope: LedgerScope, from: Int64, to: Int64, granularity: Granularity, dimension: Dimension = .all,
                asOf: LedgerInstant = .now) throws(GateKitError) {
        guard from >= 0, to > from else { throw .invalid("the interval must have 0 <= from < to (Unix ms); it is \(from) to \(to)") }
        guard to <= MetricsCalendar.latest else { throw .invalid("the interval ends after the year 9999") }
        if case let .asOf(ms) = asOf, ms < 0 { throw .invalid("the as-of instant is negative") }
        self.scope = scope
        self.from = from
        self.to = to
        self.granularity = granularity
        self.dimension = dimension
        self.asOf = asOf
        let count = MetricsCalendar.bucketCount(from: from, to: to, granularity)
        guard count <= MetricsRequest.maximumBuckets else {
            throw .invalid("\(count) \(granularity.rawValue)s asked; at most \(MetricsRequest.maximumBuckets) buckets per question")
        }
    }
}

/// Bucket boundaries in UTC: days from midnight, weeks from Monday (ISO 8601), months from
/// the first.
enum MetricsCalendar {
    static let day: Int64 = 86_400_000
    /// 10000-01-01T00:00:00Z.
    static let latest = Int64(Timestamp.days(year: 10_000, month: 1, day: 1)) * day

    static func floorDay(_ ms: Int64) -> Int64 { ms - ((ms % day) + day) % day }

    /// The start of the bucket holding `ms`.
    static func start(of ms: Int64, _ granularity: MetricsRequest.Granularity) -> Int64 {
        let midnight = floorDay(ms)
        switch granularity {
        case .day: return midnight
        case .week:
            // weekday: 0 Sunday … 6 Saturday; Monday starts the week.
            let back = (Timestamp.weekday(days: Int(midnight / day)) + 6) % 7
            return midnight - Int64(back) * day
        case .month:
            let c = Timestamp.civilDate(days: Int(midnight / day))
            return Int64(Timestamp.days(year: c.year, month: c.month, day: 1)) * day
        }
    }

    /// The start of the bucket after the one starting at `start`.
    static func next(after start: Int64, _ granularity: MetricsRequest.Granularity) -> Int64 {
        switch granularity {
        case .day: return start + day
        case .week: return start + 7 * day
        case .month:
            let c = Timestamp.civilDate(days: Int(start / day))
            return Int64(c.month == 12 ? Timestamp.days(year: c.year + 1, month: 1, day: 1)
                : Timestamp.days(year: c.year, month: c.month + 1, day: 1)) * day
        }
    }

    static func bucketCount(from: Int64, to: Int64, _ granularity: MetricsRequest.Granularity) -> Int {
        let first = start(of: from, granularity)
        switch granularity {
        case .day: return Int((to - first + day - 1) / day)
        case .week: return Int((to - first + 7 * day - 1) / (7 * day))
        case .month:
            let a = Timestamp.civilDate(days: Int(first / day)), b = Timestamp.civilDate(days: Int((to - 1) / day))
            return (b.year - a.year) * 12 + (b.month - a.month) + 1
        }
    }

    /// The starts of the buckets covering [from, to), and the end of the last.
    static func boundaries(from: Int64, to: Int64, _ granularity: MetricsRequest.Granularity) -> [Int64] {
        var out = [start(of: from, granularity)]
        while let last = out.last, last < to { out.append(next(after: last, granularity)) }
        return out
    }
}
