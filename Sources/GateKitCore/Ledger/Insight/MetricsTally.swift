import GateKitSupport

/// The metrics being counted: subscriptions (`SubscriptionLife`) and single transactions are
/// added one at a time, in any order, into per-bucket arrays per series key; `json` writes them.
/// Levels (how many at a bucket's end) are kept as difference arrays, so a period adds two
/// numbers whatever its length.
struct MetricsTally {
    /// Events counted in the bucket they happened in; the case's name is the document's member
    /// name, its number the row of `Series.flows`.
    enum Flow: Int, CaseIterable {
        case new, newTrials, conversions, renewals, recoveries, reactivations, productChanges
        case expiredVoluntary, expiredBilling, expiredOther, trialsExpired, refunded, revoked
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
        /// Subscriptions of customers holding more than one, per customer: their paid
        /// coverage per bucket, to count each customer once.
        var sharedCustomers: [String: [Int]] = [:]

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
    let entitlements: [String: [String]]
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
    private let blankCount: [Int]
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
        entitlements = catalog.products.mapValues(\.entitlements)
        let n = instants.count
        maximumSeries = max(1, 1_000_000 / max(1, n))
        blank = Series(buckets: n)
        blankMoney = Array(repeating: 0, count: n)
        blankLevel = Array(repeating: 0, count: n + 1)
        blankCount = Array(repeating: 0, count: n + 1)
    }

    var bucketCount: Int { instants.count }

    // MARK: adding

    /// A page of subscriptions, each added whole: its transactions' money, then its life.
    mutating func add(_ page: MetricsPage) {
        var versions: [String: [TransactionVersion]] = [:]
        for v in page.versions { versions[v.originalTransactionID, default: []].append(v) }
        var renewals: [String: [RenewalVersion]] = [:]
        for r in page.renewals { renewals[r.originalTransactionID, default: []].append(r) }
        for (original, all) in versions {
            let newest = SubscriptionLife.newest(all)
            for v in newest { add(transaction: v) }
            let signed = (renewals[original] ?? []).sorted { $0.signedMs != $1.signedMs ? $0.signedMs < $1.signedMs : $0.identity < $1.identity }
            if let life = SubscriptionLife(original: original, newest: newest, renewals: signed, asOf: asOf) { add(life) }
        }
    }

    /// A transaction's money and refund, whatever its product type (the newest version).
    mutating func add(transaction v: TransactionVersion) {
        let keys = keys(v)
        if let at = v.revocationMs, !v.isUpgraded {
            if v.familyShared || v.sale.revocationType == "FAMILY_REVOKE" {
                count(.revoked, at: at, keys: keys)
            } else {
                count(.refunded, at: at, keys: keys)
                if let price = v.sale.price, let currency = v.sale.currency, let k = bucket(of: at) {
                    let share = v.sale.revocationType == "REFUND_PRORATED" ? (v.sale.revocationPercentage ?? 100_000) : 100_000
                    let (product, overflow) = price.multipliedReportingOverflow(by: share)
                    let amount = overflow ? price : product / 100_000
                    let zero = blankMoney
                    for key in keys { update(key) { $0.refunds[currency, default: zero].withBucket(k) { $0 &+= amount } } }
                }
            }
        }
        // Family Sharing pays nothing: the organizer's purchase carries the revenue.
        if !v.familyShared, let at = v.purchaseMs, let price = v.sale.price, let currency = v.sale.currency, let k = bucket(of: at) {
            let zero = blankMoney
            for key in keys { update(key) { $0.revenue[currency, default: zero].withBucket(k) { $0 &+= price } } }
        }
    }

    /// A subscription's periods: how each began and ended, and what it held at each bucket's end.
    mutating func add(_ life: SubscriptionLife) {
        var firstPaid: SubscriptionLife.Period?
        for p in life.periods {
            let keys = keys(p.version)
            if life.familyShared {
                cover(.familyShared, p.start, p.coveredUntil, keys: keys)
                continue
            }
            if !p.trial, firstPaid == nil { firstPaid = p }
            switch p.began {
            case .new: count(.new, at: p.start, keys: keys)
            case .newTrial: count(.newTrials, at: p.start, keys: keys)
            case .conversion: count(.conversions, at: p.start, keys: keys)
            case .renewal: count(.renewals, at: p.start, keys: keys)
            case .recovery: count(.recoveries, at: p.start, keys: keys)
            case .reactivation: count(.reactivations, at: p.start, keys: keys)
            case .productChange: count(.productChanges, at: p.start, keys: keys)
            }
            if case let (.expired(cause), at)? = p.end {
                let flow: Flow = p.trial ? .trialsExpired : (cause == .voluntary ? .expiredVoluntary : cause == .billing ? .expiredBilling : .expiredOther)
                count(flow, at: at, keys: keys)
            }
            let paidEnd = p.graceUntil.map { max($0, p.coveredUntil) } ?? p.coveredUntil
            cover(p.trial ? .activeTrials : .activeSubscriptions, p.start, paidEnd, keys: keys)
            if let grace = p.graceUntil, let expires = p.version.expiresMs { cover(.inGracePeriod, expires, grace, keys: keys) }
            if let retry = p.retryUntil { cover(.inBillingRetry, p.graceUntil ?? p.version.expiresMs ?? p.start, retry, keys: keys) }
            if !p.trial {
                if let price = p.version.sale.price, let currency = p.version.sale.currency, let expires = p.version.expiresMs {
                    let (scaled, overflow) = price.multipliedReportingOverflow(by: MetricsTally.meanMonthMs)
                    if !overflow { addMRR(scaled / (expires - p.start), currency: currency, p.start, p.coveredUntil, keys: keys) }
                }
                if sharedTokens.contains(life.customer) { coverCustomer(life.customer, p.start, paidEnd, keys: keys) }
            }
        }
        guard let first = firstPaid, !monthInstants.isEmpty,
              first.start >= request.from, first.start < request.to, let month = monthIndex(of: first.start) else { return }
        let key = CohortKey(product: first.version.productID, month: month)
        var cohort = cohorts[key] ?? Cohort(retained: Array(repeating: 0, count: monthInstants.count + 1))
        cohort.subscribers += 1
        for p in life.periods where !p.trial {
            let (a, b) = span(p.start, p.graceUntil.map { max($0, p.coveredUntil) } ?? p.coveredUntil, in: monthInstants)
            guard a < b else { continue }
            cohort.retained[a] += 1
            cohort.retained[b] -= 1
        }
        cohorts[key] = cohort
    }

    // MARK: keys and buckets

    /// The series a version counts in: one, or one per entitlement its product grants.
    func keys(_ v: TransactionVersion) -> [String?] {
        switch request.dimension {
        case .all: return MetricsTally.whole
        case .product: return [v.productID]
        case .group: return [v.groupID]
        case .storefront: return [v.sale.storefront]
        case .currency: return [v.sale.currency]
        case .entitlement:
            let names = entitlements[v.productID] ?? []
            return names.isEmpty ? [nil] : names
        }
    }

    /// The bucket an event at `ms` falls in; nil outside the buckets or after `asOf`.
    func bucket(of ms: Int64) -> Int? {
        guard ms <= asOf, let first = bounds.first, let last = bounds.last, ms >= first, ms < last else { return nil }
        var low = 0, high = bounds.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if bounds[mid] <= ms { low = mid } else { high = mid }
        }
        return low
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
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Changes the series of `key`, made on first use; past `maximumSeries` nothing is kept
    /// and `overflowed` says so (the question is refused: it would not fit in memory).
    private mutating func update(_ key: String?, _ change: (inout Series) -> Void) {
        if series[key] == nil {
            guard series.count < maximumSeries else {
                overflowed = true
                return
            }
            series[key] = blank
        }
        change(&series[key, default: blank])
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
        for key in keys {
            let zero = blankCount
            update(key) {
                $0.sharedCustomers[customer, default: zero][i] += 1
                $0.sharedCustomers[customer, default: zero][j] -= 1
            }
        }
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
}
