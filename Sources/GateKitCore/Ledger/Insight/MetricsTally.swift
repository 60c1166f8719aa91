import GateKitSupport

/// The metrics being counted: subscriptions (`SubscriptionLife`) and single transactions are
/// added one at a time, in any order, into per-bucket arrays per series key; `json` writes them.
/// Levels (how many at a bucket's end) are kept as difference arrays, so a period adds two
/// numbers whatever its length.
struct MetricsTally: MetricsSink {
    /// Events counted in the bucket they happened in; the case's name is the document's member
    /// name, its number the row of `Series.flows`.
    enum Flow: Int, CaseIterable {
        case new, newTrials, conversions, renewals, recoveries, reactivations, productChanges
        case expiredVoluntary, expiredBilling, expiredOther, trialsExpired, refunded, revoked
        /// Signed prices left out of money as absurd (`MetricsMoney.maximumPrice`).
        case pricesExcluded
    }

    /// How many at the bucket's end (or at the as-of instant, for the bucket holding it); named
    /// and numbered as `Flow`.
    enum Level: Int, CaseIterable {
        case activeSubscriptions, activeTrials, inGracePeriod, inBillingRetry, familyShared
    }

    struct Series {
        var flows: [[Int]]
        var levels: [[Int]]
        var revenue: [String: [Int64]] = [:]
        var refunds: [String: [Int64]] = [:]
        var mrr: [String: [Int64]] = [:]
        /// Subscriptions of customers holding more than one, per customer: the instants each
        /// paid period covers (indices into `instants`), to count each customer once.
        var sharedCustomers: [String: [Range<Int>]] = [:]

        init(buckets: Int) {
            flows = Array(repeating: Array(repeating: 0, count: buckets), count: Flow.allCases.count)
            levels = Array(repeating: Array(repeating: 0, count: buckets + 1), count: Level.allCases.count)
        }
    }

    struct Cohort {
        var subscribers = 0
        /// Difference array over the months after the cohort's.
        var retained: [Int]
    }

    let request: MetricsRequest
    let asOf: Int64
    /// Bucket starts, then the last bucket's end (only buckets starting by `asOf`).
    let bounds: [Int64]
    /// The instant each bucket's levels are read at: its last millisecond, or `asOf`.
    let instants: [Int64]
    /// The same for cohort months, from the first month of the interval to the month of `asOf`.
    let monthBounds: [Int64]
    let monthInstants: [Int64]
    /// The catalog in effect at `asOf`: the entitlement names of a split by entitlement.
    let catalog: ProductCatalog
    /// Customers (app account tokens) with more than one subscription.
    let sharedTokens: Set<String>
    private(set) var series: [String?: Series] = [:]
    /// Series a question may hold: about 160 MB of counters (some 20 numbers per bucket each).
    let maximumSeries: Int
    private(set) var overflowed = false
    /// Empty values of each shape, the defaults of new entries.
    private let blank: Series
    private let blankMoney: [Int64]
    private let blankLevel: [Int64]
    private(set) var cohorts: [CohortKey: Cohort] = [:]

    struct CohortKey: Hashable {
        let product: String
        let month: Int
    }

    /// The one key of an unsplit question (made once: this is asked for every row).
    static let whole: [String?] = [nil]

    /// A month of days: MRR is a period's price scaled to 30.436875 days (the Gregorian mean).
    static let meanMonthMs: Int64 = 2_629_746_000

    init(request: MetricsRequest, asOf: Int64, catalog: ProductCatalog, sharedTokens: Set<String>) {
        self.request = request
        self.asOf = asOf
        self.sharedTokens = sharedTokens
        var bounds = MetricsCalendar.boundaries(from: request.from, to: request.to, request.granularity)
        while bounds.count > 1, bounds[bounds.count - 2] > asOf { bounds.removeLast() }
        if bounds.count == 1 { bounds = [] }
        self.bounds = bounds
        instants = bounds.count > 1 ? bounds.dropFirst().map { min($0, asOf + 1) - 1 } : []
        var months = MetricsCalendar.boundaries(from: request.from, to: min(asOf, MetricsCalendar.latest - 1) + 1, .month)
        if months.first.map({ $0 > asOf }) ?? true { months = [] }
        monthBounds = months
        monthInstants = months.count > 1 ? months.dropFirst().map { min($0, asOf + 1) - 1 } : []
        self.catalog = catalog
        let n = instants.count
        maximumSeries = max(1, 1_000_000 / max(1, n))
        blank = Series(buckets: n)
        blankMoney = Array(repeating: 0, count: n)
        blankLevel = Array(repeating: 0, count: n + 1)
    }

    var bucketCount: Int { instants.count }

    // MARK: adding

    // The sink's primitives: where each thing a subscription contributes is counted.

    mutating func event(_ flow: Flow, at ms: Int64, _ v: TransactionVersion) {
        count(flow, at: ms, keys: keys(v))
    }

    mutating func span(_ level: Level, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        cover(level, a, b, keys: keys(v))
    }

    mutating func money(_ kind: MetricsMoney, _ amount: Int64, currency: String, at ms: Int64, _ v: TransactionVersion) {
        guard let k = bucket(of: ms) else { return }
        let zero = blankMoney
        for key in keys(v) {
            update(key) {
                switch kind {
                case .revenue: $0.revenue[currency, default: zero].withBucket(k) { $0 &+= amount }
                case .refunds: $0.refunds[currency, default: zero].withBucket(k) { $0 &+= amount }
                }
            }
        }
    }

    mutating func mrr(_ amount: Int64, currency: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        addMRR(amount, currency: currency, a, b, keys: keys(v))
    }

    mutating func paidCustomer(_ customer: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        if sharedTokens.contains(customer) { coverCustomer(customer, a, b, keys: keys(v)) }
    }

    /// A customer's paid periods the roll-up kept (`RollupPaid`), each with the keys of its
    /// series: handed over together, the customer is looked up once per run of periods with the
    /// same keys instead of once per period.
    mutating func paidCustomer(_ customer: String, _ periods: [(start: Int64, end: Int64, keys: [String?])]) {
        guard sharedTokens.contains(customer) else { return }
        var next = 0
        while next < periods.count {
            let keys = periods[next].keys
            var spans: [Range<Int>] = []
            while next < periods.count, periods[next].keys == keys {
                let (i, j) = span(periods[next].start, periods[next].end, in: instants)
                if i < j { spans.append(i..<j) }
                next += 1
            }
            guard !spans.isEmpty else { continue }
            for key in keys { update(key) { $0.sharedCustomers[customer, default: []] += spans } }
        }
    }

    /// Cohorts: months starting in the interval (from its first month) and by the as-of instant.
    mutating func cohort(_ first: SubscriptionLife.Period, paid: [(Int64, Int64)]) {
        guard !monthInstants.isEmpty, MetricsCalendar.start(of: first.start, .month) < request.to,
              let month = monthIndex(of: first.start) else { return }
        let key = CohortKey(product: first.version.productID, month: month)
        var cohort = cohorts[key] ?? Cohort(retained: Array(repeating: 0, count: monthInstants.count + 1))
        cohort.subscribers += 1
        for (a, b) in paid {
            let (i, j) = span(a, b, in: monthInstants)
            guard i < j else { continue }
            cohort.retained[i] += 1
            cohort.retained[j] -= 1
        }
        cohorts[key] = cohort
    }

    /// A day's sum of the store's roll-up (`DayRollup`), `value` times (negative: taken out).
    /// Only days before the as-of instant's day, or of subscriptions the roll-up holds exactly.
    mutating func add(_ key: DayRollup.Key, _ value: Int64) {
        let dayStart = key.day &* MetricsCalendar.day
        let keys = keys(stored: key.product, group: key.group, storefront: key.storefront, currency: key.currency, store: key.store)
        switch key.metric {
        case 0..<20:
            guard let flow = Flow(rawValue: key.metric), let k = bucket(of: dayStart) else { return }
            for series in keys { update(series) { $0.flows[flow.rawValue][k] += Int(truncatingIfNeeded: value) } }
        case 20..<30:
            guard let level = Level(rawValue: key.metric - 20) else { return }
            let i = firstIndex(in: instants, atLeast: dayStart)
            for series in keys { update(series) { $0.levels[level.rawValue][i] += Int(truncatingIfNeeded: value) } }
        case DayRollup.Metric.revenue, DayRollup.Metric.refunds:
            guard let k = bucket(of: dayStart), !key.currency.isEmpty else { return }
            let zero = blankMoney, revenue = key.metric == DayRollup.Metric.revenue
            for series in keys {
                update(series) {
                    if revenue { $0.revenue[key.currency, default: zero].withBucket(k) { $0 &+= value } }
                    else { $0.refunds[key.currency, default: zero].withBucket(k) { $0 &+= value } }
                }
            }
        case DayRollup.Metric.mrr:
            guard !key.currency.isEmpty else { return }
            let i = firstIndex(in: instants, atLeast: dayStart), zero = blankLevel
            for series in keys { update(series) { $0.mrr[key.currency, default: zero].withBucket(i) { $0 &+= value } } }
        case DayRollup.Metric.cohortSubscribers, DayRollup.Metric.cohortRetained:
            guard !monthInstants.isEmpty, key.cohort < request.to, let month = monthIndex(of: key.cohort) else { return }
            let cohortKey = CohortKey(product: key.product, month: month)
            var cohort = cohorts[cohortKey] ?? Cohort(retained: Array(repeating: 0, count: monthInstants.count + 1))
            if key.metric == DayRollup.Metric.cohortSubscribers {
                cohort.subscribers += Int(truncatingIfNeeded: value)
            } else {
                cohort.retained[firstIndex(in: monthInstants, atLeast: dayStart)] += Int(truncatingIfNeeded: value)
            }
            cohorts[cohortKey] = cohort
        default:
            return
        }
    }

    // MARK: keys and buckets

    /// The series a version counts in: one, or one per entitlement its product grants.
    func keys(_ v: TransactionVersion) -> [String?] {
        keys(product: v.productID, group: v.groupID, storefront: v.sale.storefront, currency: v.sale.currency, store: v.store.name)
    }

    /// The series of a roll-up row's columns (an empty column: none).
    func keys(stored product: String, group: String, storefront: String, currency: String, store: String) -> [String?] {
        keys(product: product, group: group.isEmpty ? nil : group, storefront: storefront.isEmpty ? nil : storefront,
             currency: currency.isEmpty ? nil : currency, store: store.isEmpty ? nil : store)
    }

    /// `store`: the store's name (`PurchaseStore.name`).
    func keys(product: String, group: String?, storefront: String?, currency: String?, store: String?) -> [String?] {
        switch request.dimension {
        case .store: return [store]
        case .all: return MetricsTally.whole
        case .product: return [product]
        case .group: return [group]
        case .storefront: return [storefront.map(Storefront.alpha3)]
        case .currency: return [currency]
        case .entitlement:
            let names = catalog.product(product)?.entitlements ?? []
            return names.isEmpty ? [nil] : names
        }
    }

    /// The bucket an event at `ms` falls in; nil outside the buckets or after `asOf`.
    func bucket(of ms: Int64) -> Int? {
        guard ms <= asOf, let first = bounds.first, let last = bounds.last, ms >= first, ms < last else { return nil }
        return bounds.partitionIndex { $0 <= ms } - 1
    }

    private func monthIndex(of ms: Int64) -> Int? {
        guard let first = monthBounds.first, ms >= first, let last = monthBounds.last, ms < last else { return nil }
        return firstIndex(in: monthBounds, atLeast: ms + 1) - 1
    }

    /// The indices of `instants` inside [a, b).
    private func span(_ a: Int64, _ b: Int64, in instants: [Int64]) -> (Int, Int) {
        (firstIndex(in: instants, atLeast: a), firstIndex(in: instants, atLeast: b))
    }

    private func firstIndex(in sorted: [Int64], atLeast x: Int64) -> Int {
        sorted.partitionIndex { $0 < x }
    }

    /// Changes the series of `key`, made on first use; past `maximumSeries` nothing is kept
    /// and `overflowed` says so (the question is refused: it would not fit in memory).
    private mutating func update(_ key: String?, _ change: (inout Series) -> Void) {
        // One hash of the key for a series already made: this runs for every row and sum.
        if let index = series.index(forKey: key) {
            change(&series.values[index])
            return
        }
        guard series.count < maximumSeries else {
            overflowed = true
            return
        }
        var made = blank
        change(&made)
        series[key] = made
    }

    private mutating func count(_ flow: Flow, at ms: Int64, keys: [String?]) {
        guard let k = bucket(of: ms) else { return }
        let f = flow.rawValue
        for key in keys { update(key) { $0.flows[f][k] += 1 } }
    }

    private mutating func cover(_ level: Level, _ a: Int64, _ b: Int64, keys: [String?]) {
        let (i, j) = span(a, b, in: instants)
        guard i < j else { return }
        let l = level.rawValue
        for key in keys {
            update(key) {
                $0.levels[l][i] += 1
                $0.levels[l][j] -= 1
            }
        }
    }

    private mutating func addMRR(_ amount: Int64, currency: String, _ a: Int64, _ b: Int64, keys: [String?]) {
        let (i, j) = span(a, b, in: instants)
        guard i < j else { return }
        for key in keys {
            let zero = blankLevel
            update(key) {
                $0.mrr[currency, default: zero].withBucket(i) { $0 &+= amount }
                $0.mrr[currency, default: zero].withBucket(j) { $0 &-= amount }
            }
        }
    }

    private mutating func coverCustomer(_ customer: String, _ a: Int64, _ b: Int64, keys: [String?]) {
        let (i, j) = span(a, b, in: instants)
        guard i < j else { return }
        for key in keys { update(key) { $0.sharedCustomers[customer, default: []].append(i..<j) } }
    }
}

extension Array where Element == Int64 {
    /// Changes one bucket's value when the index is in range (it always is: indices come from
    /// `bucket(of:)` and `span`, bounded by the arrays' sizes).
    mutating func withBucket(_ index: Int, _ change: (inout Int64) -> Void) {
        guard indices.contains(index) else { return }
        change(&self[index])
    }
}

/// The rows of one page of subscriptions as read (grouped by the thread that adds them).
struct MetricsPage {
    var versions: [TransactionVersion] = []
    var renewals: [RenewalVersion] = []
    /// By purchase, where its store answers payments apart.
    var payments: [String: PaymentAnswers] = [:]
}
