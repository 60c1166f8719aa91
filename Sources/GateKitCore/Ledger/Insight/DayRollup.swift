/// What subscriptions contribute, summed per UTC day (the store's roll-up, `MetricsRollup`): a
/// level held over [a, b) is +1 on day(a) and −1 on day(b), so it is exact at every day's last
/// millisecond — where every bucket ends. Keyed by everything a question can split by (product,
/// group, storefront, currency, store) and, for cohorts, the cohort's month. Also which days the
/// subscriptions touch, each with its first and last instant: a question whose as-of instant
/// falls inside one of those days, before the last of them, corrects for those subscriptions.
struct DayRollup: MetricsSink {
    struct Key: Hashable {
        var day: Int64
        var metric: Int
        var product: String
        var group: String
        var storefront: String
        var currency: String
        /// The cohort's month (its first millisecond); 0 for every other metric.
        var cohort: Int64
        /// The store's name (`PurchaseStore.name`); empty for cohorts, which no split divides.
        var store = ""
    }

    /// Metric numbers as stored: flows 0-19, levels 20-29, money 30-39, cohorts 40-49.
    enum Metric {
        static func flow(_ f: MetricsTally.Flow) -> Int { f.rawValue }
        static func level(_ l: MetricsTally.Level) -> Int { 20 + l.rawValue }
        static let revenue = 30, refunds = 31, mrr = 32
        static let cohortSubscribers = 40, cohortRetained = 41
    }

    /// The first and the last instant something happens at on a day.
    struct Instants: Equatable {
        var first: Int64
        var last: Int64
    }

    private(set) var sums: [Key: Int64] = [:]
    /// Each day anything happens on, with its first and last instant: a question as of an
    /// instant of that day corrects for the subscription only when something comes after it.
    private(set) var days: [Int64: Instants] = [:]

    static func day(_ ms: Int64) -> Int64 {
        let d = ms / MetricsCalendar.day
        return ms < 0 && ms % MetricsCalendar.day != 0 ? d - 1 : d
    }

    private mutating func add(_ metric: Int, at ms: Int64, _ v: TransactionVersion, currency: String? = nil, _ value: Int64) {
        let day = DayRollup.day(ms)
        DayRollup.mark(&days, ms)
        let key = Key(day: day, metric: metric, product: v.productID, group: v.groupID ?? "", storefront: v.sale.storefront ?? "",
                      currency: currency ?? v.sale.currency ?? "", cohort: 0, store: v.store.name)
        sums[key, default: 0] &+= value
    }

    mutating func event(_ flow: MetricsTally.Flow, at ms: Int64, _ v: TransactionVersion) {
        add(Metric.flow(flow), at: ms, v, 1)
    }

    mutating func span(_ level: MetricsTally.Level, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        guard b > a else { return }
        add(Metric.level(level), at: a, v, 1)
        add(Metric.level(level), at: b, v, -1)
    }

    mutating func money(_ kind: MetricsMoney, _ amount: Int64, currency: String, at ms: Int64, _ v: TransactionVersion) {
        add(kind == .revenue ? Metric.revenue : Metric.refunds, at: ms, v, currency: currency, amount)
    }

    mutating func mrr(_ amount: Int64, currency: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        guard b > a else { return }
        add(Metric.mrr, at: a, v, currency: currency, amount)
        add(Metric.mrr, at: b, v, currency: currency, 0 &- amount)
    }

    /// Customers with several subscriptions are counted exactly at question time.
    mutating func paidCustomer(_ customer: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {}

    mutating func cohort(_ first: SubscriptionLife.Period, paid: [(Int64, Int64)]) {
        let month = MetricsCalendar.start(of: first.start, .month)
        func add(_ metric: Int, at ms: Int64, _ value: Int64) {
            let day = DayRollup.day(ms)
            DayRollup.mark(&days, ms)
            sums[Key(day: day, metric: metric, product: first.version.productID, group: "", storefront: "", currency: "", cohort: month),
                 default: 0] &+= value
        }
        add(Metric.cohortSubscribers, at: first.start, 1)
        for (a, b) in paid where b > a {
            add(Metric.cohortRetained, at: a, 1)
            add(Metric.cohortRetained, at: b, -1)
        }
    }

    /// `other` added to this one (its days too).
    mutating func add(_ other: DayRollup) {
        for (key, value) in other.sums { sums[key, default: 0] &+= value }
        DayRollup.merge(&days, other.days)
    }

    /// `other` subtracted from this one (days are the union: a day touched by either).
    mutating func subtract(_ other: DayRollup) {
        for (key, value) in other.sums { sums[key, default: 0] &-= value }
        DayRollup.merge(&days, other.days)
    }

    /// Marks `ms`'s day in `days`, keeping the day's first and last instant.
    static func mark(_ days: inout [Int64: Instants], _ ms: Int64) {
        merge(&days, day(ms), Instants(first: ms, last: ms))
    }

    /// `other`'s days marked in `days`.
    static func merge(_ days: inout [Int64: Instants], _ other: [Int64: Instants]) {
        for (day, instants) in other { merge(&days, day, instants) }
    }

    private static func merge(_ days: inout [Int64: Instants], _ day: Int64, _ instants: Instants) {
        guard let held = days[day] else { days[day] = instants; return }
        days[day] = Instants(first: min(held.first, instants.first), last: max(held.last, instants.last))
    }

    /// The nonzero sums.
    var changes: [(Key, Int64)] { sums.filter { $0.value != 0 }.map { ($0.key, $0.value) } }
}
