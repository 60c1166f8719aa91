import GateKitSupport

/// The metrics as the JSON document `ledger_metrics()` returns: every metric an array aligned
/// with "buckets" (chart-ready), money per currency in milliunits as Apple signs prices.
extension MetricsTally {
    func json() -> JSONValue {
        let buckets = bounds.isEmpty ? [] : Array(bounds.dropLast())
        let ordered = series.keys.sorted { ($0 ?? "") < ($1 ?? "") || ($0 == nil && $1 != nil) }
        return .object([
            ("version", .number(JSONDocument.version)),
            ("environment", .string(request.scope.environment)),
            ("testSigned", .bool(request.scope.testData)),
            ("asOf", .number(asOf)),
            ("granularity", .string(request.granularity.rawValue)),
            ("dimension", .string(request.dimension.rawValue)),
            ("buckets", .array(buckets.map { .number($0) })),
            ("end", bounds.last.map { .number($0) } ?? .null),
            ("series", .array(ordered.compactMap { key in series[key].flatMap { holdsAnything($0) ? document(key, $0) : nil } })),
            ("cohorts", .array(cohortDocuments())),
        ])
    }

    /// Whether a series has any number other than zero (one whose contributions cancel out, or
    /// only a free trial's price of 0, is left out of the document).
    func holdsAnything(_ s: Series) -> Bool {
        Level.allCases.contains { levels(s, $0).contains { $0 != 0 } } || s.flows.contains { $0.contains { $0 != 0 } }
            || [s.revenue, s.refunds].contains { $0.values.contains { $0.contains { $0 != 0 } } }
            || s.mrr.keys.contains { runningSum((s.mrr[$0] ?? []).dropLast()).contains { $0 != 0 } }
    }

    /// Level `level` at each bucket's end (the running sum of its difference array).
    func levels(_ s: Series, _ level: Level) -> [Int] {
        runningSum(s.levels[level.rawValue].dropLast())
    }

    /// Paid subscriptions counted once per customer: a customer holding several at a bucket's
    /// end counts once.
    func paidSubscribers(_ s: Series) -> [Int] {
        var counts = levels(s, .activeSubscriptions)
        // Where a customer holds k > 1 at once, k - 1 are too many: per customer, its periods'
        // edges in order, into one difference array over the instants.
        var excess = Array(repeating: 0, count: counts.count + 1)
        for periods in s.sharedCustomers.values {
            let edges = (periods.map { ($0.lowerBound, 1) } + periods.map { ($0.upperBound, -1) }).sorted { $0.0 < $1.0 }
            var held = 0, next = 0
            while next < edges.count {
                let at = edges[next].0
                while next < edges.count, edges[next].0 == at {
                    held += edges[next].1
                    next += 1
                }
                let until = min(next < edges.count ? edges[next].0 : counts.count, counts.count)
                if held > 1, at < until {
                    excess[at] += held - 1
                    excess[until] -= held - 1
                }
            }
        }
        var running = 0
        for k in counts.indices {
            running += excess[k]
            counts[k] -= running
        }
        return counts
    }

    func flows(_ s: Series, _ flow: Flow) -> [Int] {
        s.flows[flow.rawValue]
    }

    private func document(_ key: String?, _ s: Series) -> JSONValue {
        var members: [(String, JSONValue)] = [("key", key.map { .string($0) } ?? .null)]
        for level in Level.allCases { members.append(("\(level)", numbers(levels(s, level)))) }
        members.append(("paidSubscribers", numbers(paidSubscribers(s))))
        for flow in Flow.allCases { members.append(("\(flow)", numbers(flows(s, flow)))) }
        // A currency is listed when it has money in the buckets (a free trial's price of 0
        // alone, or amounts that cancel out, list nothing).
        let nonzero = { (values: [Int64]?) in values?.contains { $0 != 0 } ?? false }
        let currencies = Set(s.revenue.keys).union(s.refunds.keys).filter { nonzero(s.revenue[$0]) || nonzero(s.refunds[$0]) }.sorted()
        let zero = Array(repeating: Int64(0), count: bucketCount)
        members.append(("revenue", money(currencies.map { ($0, s.revenue[$0] ?? zero) })))
        members.append(("refunds", money(currencies.map { ($0, s.refunds[$0] ?? zero) })))
        members.append(("netRevenue", money(currencies.map { c in
            (c, zip(s.revenue[c] ?? zero, s.refunds[c] ?? zero).map { $0 &- $1 })
        })))
        members.append(("mrr", money(s.mrr.keys.sorted().map { ($0, runningSum(s.mrr[$0, default: []].dropLast())) }.filter { nonzero($0.1) })))
        return .object(members)
    }

    private func cohortDocuments() -> [JSONValue] {
        cohorts.keys.sorted { $0.product != $1.product ? $0.product < $1.product : $0.month < $1.month }.compactMap { key in
            guard let cohort = cohorts[key], cohort.subscribers != 0, key.month < monthBounds.count else { return nil }
            let retained = runningSum(cohort.retained.dropLast()).dropFirst(key.month)
            return .object([
                ("product", .string(key.product)),
                ("month", .number(monthBounds[key.month])),
                ("subscribers", .number(cohort.subscribers)),
                ("retained", numbers(Array(retained))),
            ])
        }
    }

    private func numbers(_ values: [Int]) -> JSONValue { .array(values.map { .number($0) }) }

    private func money(_ byCurrency: [(String, [Int64])]) -> JSONValue {
        .object(byCurrency.map { ($0.0, .array($0.1.map { .number($0) })) })
    }
}

func runningSum<C: Collection>(_ values: C) -> [C.Element] where C.Element: FixedWidthInteger {
    var total: C.Element = 0
    return values.map { total &+= $0; return total }
}
