import GateKitSupport

/// The ledger's report: one self-contained HTML page (no script, no network, inline SVG), the
/// app view of the metrics (`LedgerMetrics`) or a customer's view (`CustomerReport`).
/// docs/ledger.md, "The report", shows both.
extension Ledger {
    /// The app view: now, MRR, revenue, active subscriptions, trials, churn by cause, cohorts.
    public func report(_ request: MetricsRequest) throws(GateKitError) -> String {
        let tally = try metricsTally(request)
        // A series at all means App Store data in the scope: only an empty page asks the store.
        let onlyTestSigned = tally.series.isEmpty ? try holdsOnlyTestSignedData(request.scope) : false
        let hint = onlyTestSigned ? ReportPage.onlyTestSigned(request.scope) : ""
        // Split by store only where more than one sold in the scope (the split reads every row).
        let byStore = try storesSelling(request.scope).count > 1
            ? try metricsTally(try MetricsRequest(scope: request.scope, from: request.from, to: request.to, granularity: request.granularity,
                                                  dimension: .store, asOf: request.asOf))
            : nil
        let webhooks = try store.read { (db) throws(GateKitError) in try WebhookOutbox.standing(db) }
        return ReportPage.page(title: "Subscriptions · \(ReportPage.scopeName(request.scope))",
                               subtitle: ReportPage.interval(request, asOf: tally.asOf),
                               body: hint + AppView(tally: tally, byStore: byStore).body + ReportPage.webhooks(webhooks, now: Clock.nowMilliseconds()))
    }

    /// The stores the scope holds purchases of (two indexed look-ups).
    func storesSelling(_ scope: LedgerScope) throws(GateKitError) -> [PurchaseStore] {
        try store.read { (db) throws(GateKitError) -> [PurchaseStore] in
            var selling: [PurchaseStore] = []
            for sold in PurchaseStore.known {
                let s = try db.statement("""
                    SELECT 1 FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2
                    AND \(sold.code == nil ? "store IS NULL" : "store = ?3") LIMIT 1
                    """)
                defer { s.reset() }
                s.bind(1, text: scope.environment).bind(2, scope.testFlag)
                if let code = sold.code { s.bind(3, text: code) }
                if try s.step() { selling.append(sold) }
            }
            return selling
        }
    }
}

/// The page around a view: its head, the style sheet, the heading.
enum ReportPage {
    static func scopeName(_ scope: LedgerScope) -> String {
        scope.environment + (scope.testData ? " (test-signed data)" : "")
    }

    /// The note on a page of App Store data from a ledger that holds only test-signed data.
    static func onlyTestSigned(_ scope: LedgerScope) -> String {
        "<p class=\"note warning\">Every item this ledger holds for \(HTML.escape(scope.environment)) is test data (test-signed, or a "
            + "license tester's), and this page shows the stores' real purchases only: ask for test data (<code>--test-signed</code>, "
            + "GATEKIT_LEDGER_TEST_SIGNED) to see it.</p>\n"
    }

    static func interval(_ request: MetricsRequest, asOf: Int64) -> String {
        "\(HTML.date(MetricsCalendar.start(of: request.from, request.granularity))) to \(HTML.date(request.to)), by \(request.granularity.rawValue), "
            + "as of \(HTML.date(asOf)): from what the stores had said by then."
    }

    /// How each webhook endpoint's deliveries stand now (docs/webhooks.md); nothing without endpoints.
    static func webhooks(_ standing: [WebhookOutbox.Standing], now: Int64) -> String {
        guard !standing.isEmpty else { return "" }
        var out = "<section aria-labelledby=\"webhooks\"><h2 id=\"webhooks\">Webhook delivery (now)</h2>\n<div class=\"scroll\"><table>"
        out += "<thead><tr><th scope=\"col\">Endpoint</th><th scope=\"col\">Enabled</th><th scope=\"col\">Pending</th>"
        out += "<th scope=\"col\">Oldest pending</th><th scope=\"col\">Delivered</th><th scope=\"col\">Dead</th>"
        out += "<th scope=\"col\">Last success</th><th scope=\"col\">Last failure</th></tr></thead><tbody>\n"
        for e in standing {
            let age = e.oldestPendingMs.map { "\(max(now - $0, 0) / 1000) s" } ?? ""
            let enabled = e.enabled ? "<span class=\"yes\">yes</span>" : "<span class=\"no\">no</span>" + (e.disabledReason.map { ": " + HTML.escape($0) } ?? "")
            out += "<tr><th scope=\"row\">\(HTML.escape(e.url))</th><td class=\"text\">\(enabled)</td><td>\(e.pending)</td><td>\(age)</td>"
            out += "<td>\(e.delivered)</td><td>\(e.dead)</td><td class=\"text\">\(e.lastSuccessMs.map { HTML.escape(HTML.date($0)) } ?? "")</td>"
            out += "<td class=\"text\">\(HTML.escape(e.lastFailure ?? ""))</td></tr>\n"
        }
        return out + "</tbody></table></div></section>\n"
    }

    static func page(title: String, subtitle: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="GateKit \(GateKitVersion.string)">
        <title>\(HTML.escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>
        <header><h1>\(HTML.escape(title))</h1><p>\(HTML.escape(subtitle))</p></header>
        <main>
        \(body)
        </main>
        <footer><p>Written by GateKit \(HTML.escape("\(GateKitVersion.string)")) from the entitlement ledger: what each store signed or answered. Times are UTC; money is as each store stated it, per currency, never converted.</p></footer>
        </body>
        </html>

        """
    }

    /// Colours chosen for contrast: text is near-black on white or on light tints.
    static let style = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#fff;margin:0 auto;max-width:780px;padding:0 16px 32px}
        h1{font-size:1.6em;margin:24px 0 4px}h2{font-size:1.25em;margin:32px 0 8px;border-bottom:1px solid #d0d7de}h3{font-size:1.05em;margin:20px 0 6px}
        header p,footer p,.note{color:#3d444d}.warning{border-left:4px solid #d4a72c;padding:4px 10px;background:#fff8c5}footer{margin-top:40px;border-top:1px solid #d0d7de;font-size:.9em}
        .tiles{display:flex;flex-wrap:wrap;gap:12px;margin:0;padding:0}.tiles div{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;min-width:140px}
        .tiles dt{font-size:.85em;color:#3d444d}.tiles dd{margin:0;font-size:1.35em;font-weight:600}
        svg.chart,svg.timeline{max-width:100%;height:auto;display:block}
        .grid{stroke:#d0d7de;stroke-width:1}.axis{font-size:11px;fill:#3d444d}
        .paid{fill:#1f6feb}.trial{fill:#2da44e}.grace{fill:#d4a72c}.retry{fill:#cf222e}.family{fill:#8250df}
        .voluntary{fill:#bf8700}.billing{fill:#cf222e}.other{fill:#6e7781}.refund{fill:#8250df}.renewal{fill:#0a3069}.revenue{fill:#1f6feb}
        .event{fill:#fff;stroke:#1b1f24;stroke-width:1.5}.now{stroke:#1b1f24;stroke-dasharray:4 3}
        .legend{list-style:none;display:flex;flex-wrap:wrap;gap:14px;padding:0;margin:4px 0}.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:-1px}
        .swatch.paid{background:#1f6feb}.swatch.trial{background:#2da44e}.swatch.grace{background:#d4a72c}.swatch.retry{background:#cf222e}
        .swatch.voluntary{background:#bf8700}.swatch.billing{background:#cf222e}.swatch.other{background:#6e7781}.swatch.refund{background:#8250df}
        .swatch.renewal{background:#0a3069}.swatch.revenue{background:#1f6feb}.swatch.family{background:#8250df}
        .scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:8px 0;font-size:.92em}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right}th[scope=row],td.text{text-align:left}
        figure{margin:16px 0 4px}figcaption{font-weight:600;margin-bottom:4px}details{margin:6px 0}summary{cursor:pointer;color:#0a3069}pre{white-space:pre-wrap;word-break:break-all;font-size:.85em;background:#f6f8fa;padding:8px}
        a{color:#0a3069}.yes{color:#116329;font-weight:600}.no{color:#a40e26;font-weight:600}
        """
}

/// The app view's sections, from the tally of the whole environment (one series), and a
/// table by store when more than one sold in it.
struct AppView {
    let tally: MetricsTally
    var byStore: MetricsTally? = nil

    var body: String {
        let labels = tally.bounds.dropLast().map { HTML.bucket($0, tally.request.granularity) }
        guard !labels.isEmpty else {
            return "<p class=\"note\">No bucket of the interval starts by the as-of instant: nothing to show.</p>"
        }
        let series = tally.series[nil] ?? MetricsTally.Series(buckets: labels.count)
        let level = { (l: MetricsTally.Level) in tally.levels(series, l).map(Int64.init) }
        let flow = { (f: MetricsTally.Flow) in tally.flows(series, f).map(Int64.init) }
        var out = summary(series, last: labels.count - 1)
        if let byStore { out += stores(byStore, last: labels.count - 1) }

        out += "<section aria-labelledby=\"mrr\"><h2 id=\"mrr\">Monthly recurring revenue</h2>\n"
        out += "<p class=\"note\">Each paid period's price × 30.436875 days (the mean month) ÷ the period's length, to the nearest milliunit, summed at the end of each period shown; per currency.</p>\n"
        let mrr = series.mrr.keys.sorted()
        if mrr.isEmpty { out += "<p class=\"note\">No paid subscription with a signed price.</p>\n" }
        for currency in mrr {
            let values = runningSum((series.mrr[currency] ?? []).dropLast())
            out += chart(SVGBarChart(id: "mrr-\(ReportIDs.token(currency))", title: "MRR in \(currency)", labels: labels,
                                     series: [.init(name: "MRR", style: "revenue", values: values)], format: { HTML.money($0, currency) }))
        }
        out += "</section>\n"

        out += "<section aria-labelledby=\"revenue\"><h2 id=\"revenue\">Revenue and refunds</h2>\n"
        for currency in Set(series.revenue.keys).union(series.refunds.keys).sorted() {
            out += chart(SVGBarChart(id: "revenue-\(ReportIDs.token(currency))", title: "Revenue and refunds in \(currency)", labels: labels, series: [
                .init(name: "Revenue", style: "revenue", values: series.revenue[currency] ?? []),
                .init(name: "Refunds", style: "refund", values: series.refunds[currency] ?? []),
            ], format: { HTML.money($0, currency) }))
        }
        out += "</section>\n"

        out += section("active", "Active subscriptions", SVGBarChart(id: "active", title: "Active subscriptions and trials at the end of each period", labels: labels, series: [
            .init(name: "Paid subscriptions", style: "paid", values: level(.activeSubscriptions)),
            .init(name: "Free trials", style: "trial", values: level(.activeTrials)),
            .init(name: "In billing retry", style: "retry", values: level(.inBillingRetry)),
        ]))
        out += section("trials", "Trials and conversions", SVGBarChart(id: "trials", title: "Free trials started, converted and lapsed", labels: labels, series: [
            .init(name: "Trials started", style: "trial", values: flow(.newTrials)),
            .init(name: "Converted to paid", style: "paid", values: flow(.conversions)),
            .init(name: "Lapsed", style: "other", values: flow(.trialsExpired)),
        ]))
        out += section("growth", "New, renewed and returning", SVGBarChart(id: "growth", title: "Paid periods begun, by how", labels: labels, series: [
            .init(name: "New", style: "paid", values: flow(.new)),
            .init(name: "Renewed", style: "renewal", values: flow(.renewals)),
            .init(name: "Recovered", style: "grace", values: flow(.recoveries)),
            .init(name: "Reactivated", style: "trial", values: flow(.reactivations)),
        ], stacked: true))
        out += section("churn", "Churn by cause", SVGBarChart(id: "churn", title: "Paid subscriptions lost, by cause", labels: labels, series: [
            .init(name: "Cancelled by the customer", style: "voluntary", values: flow(.expiredVoluntary)),
            .init(name: "Billing failed", style: "billing", values: flow(.expiredBilling)),
            .init(name: "Other", style: "other", values: flow(.expiredOther)),
            .init(name: "Refunded", style: "refund", values: flow(.refunded)),
        ], stacked: true))
        out += cohorts()
        return out
    }

    private func summary(_ series: MetricsTally.Series, last: Int) -> String {
        func at(_ values: [Int]) -> String { last < values.count ? String(values[last]) : "0" }
        var tiles: [(String, String)] = [
            ("Paid subscriptions", at(tally.levels(series, .activeSubscriptions))),
            ("Paid subscribers", at(tally.paidSubscribers(series))),
            ("Free trials", at(tally.levels(series, .activeTrials))),
            ("In grace period", at(tally.levels(series, .inGracePeriod))),
            ("In billing retry", at(tally.levels(series, .inBillingRetry))),
        ]
        for currency in series.mrr.keys.sorted() {
            let values = runningSum((series.mrr[currency] ?? []).dropLast())
            tiles.append(("MRR, \(currency)", HTML.money(last < values.count ? values[last] : 0, currency)))
        }
        let when = last < tally.instants.count ? HTML.date(tally.instants[last]) : ""
        return "<section aria-labelledby=\"now\"><h2 id=\"now\">At \(HTML.escape(when))</h2><dl class=\"tiles\">"
            + tiles.map { "<div><dt>\(HTML.escape($0.0))</dt><dd>\(HTML.escape($0.1))</dd></div>" }.joined() + "</dl></section>\n"
    }

    /// One row per store: what it holds at the last bucket's end, and its revenue over the interval.
    private func stores(_ split: MetricsTally, last: Int) -> String {
        func at(_ values: [Int]) -> Int { last < values.count ? values[last] : 0 }
        let currencies = Set(split.series.values.flatMap { Array($0.revenue.keys) + Array($0.mrr.keys) }).sorted()
        var out = "<section aria-labelledby=\"stores\"><h2 id=\"stores\">By store</h2>\n"
        out += "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"By store\"><table id=\"store-table\"><thead><tr><th scope=\"col\">Store</th>"
        out += "<th scope=\"col\">Paid subscriptions</th><th scope=\"col\">Free trials</th><th scope=\"col\">In billing retry</th>"
        out += currencies.map { "<th scope=\"col\">MRR, \(HTML.escape($0))</th><th scope=\"col\">Revenue, \(HTML.escape($0))</th>" }.joined()
        out += "</tr></thead><tbody>\n"
        for key in split.series.keys.compactMap({ $0 }).sorted() {
            guard let series = split.series[key] else { continue }
            out += "<tr><th scope=\"row\">\(HTML.escape(PurchaseStore(name: key)?.displayName ?? key))</th><td>\(at(split.levels(series, .activeSubscriptions)))</td>"
            out += "<td>\(at(split.levels(series, .activeTrials)))</td><td>\(at(split.levels(series, .inBillingRetry)))</td>"
            for currency in currencies {
                let mrr = runningSum((series.mrr[currency] ?? []).dropLast())
                let revenue = (series.revenue[currency] ?? []).reduce(0, &+)
                out += "<td>\(HTML.money(last < mrr.count ? mrr[last] : 0, currency))</td><td>\(HTML.money(revenue, currency))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody></table></div></section>\n"
    }

    private func section(_ id: String, _ heading: String, _ chart: SVGBarChart) -> String {
        "<section aria-labelledby=\"\(id)-heading\"><h2 id=\"\(id)-heading\">\(HTML.escape(heading))</h2>\n" + self.chart(chart) + "</section>\n"
    }

    private func chart(_ chart: SVGBarChart) -> String {
        "<figure>\n<figcaption>\(HTML.escape(chart.title))</figcaption>\n" + chart.svg + chart.legend + "</figure>\n" + chart.table
    }

    /// Retention of each month's new paid subscribers, per product: a table shaded by share.
    private func cohorts() -> String {
        var out = "<section aria-labelledby=\"cohorts\"><h2 id=\"cohorts\">Cohorts</h2>\n"
        out += "<p class=\"note\">Subscriptions by the month of their first paid period and its product; each cell: how many still held a paid period (or grace) at the end of that month after.</p>\n"
        let keys = tally.cohorts.filter { $0.value.subscribers != 0 }.keys.sorted { $0.product != $1.product ? $0.product < $1.product : $0.month < $1.month }
        guard !keys.isEmpty else { return out + "<p class=\"note\">No paid subscription began in the interval.</p></section>\n" }
        let width = keys.map { tally.monthInstants.count - $0.month }.max() ?? 0
        // A year of months is wider than the page: the table scrolls within it (keyboard too).
        out += "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Cohorts table\">"
        out += "<table class=\"cohorts\" id=\"cohort-table\"><thead><tr><th scope=\"col\">Product</th><th scope=\"col\">Started</th><th scope=\"col\">Subscribers</th>"
        out += (0..<width).map { "<th scope=\"col\">Month \($0)</th>" }.joined() + "</tr></thead><tbody>\n"
        for key in keys {
            guard let cohort = tally.cohorts[key], key.month < tally.monthBounds.count else { continue }
            let retained = Array(runningSum(cohort.retained.dropLast()).dropFirst(key.month))
            out += "<tr><td class=\"text\">\(HTML.escape(key.product))</td><th scope=\"row\">\(HTML.escape(HTML.bucket(tally.monthBounds[key.month], .month)))</th><td>\(cohort.subscribers)</td>"
            for j in 0..<width {
                guard j < retained.count else { out += "<td></td>"; continue }
                let share = cohort.subscribers > 0 ? Double(retained[j]) / Double(cohort.subscribers) : 0
                let percent = Int((share * 100).rounded())
                out += "<td class=\"cell\" style=\"background:rgba(31,111,235,\(Double(Int(share * 45)) / 100))\">\(retained[j]) · \(percent)%</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody></table></div></section>\n"
    }
}

/// Ids for elements named after data (a currency, an original transaction id): letters and
/// digits kept, the rest as hex, so any value gives a valid, unique id.
enum ReportIDs {
    static func token(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "_" + String(byte, radix: 16)
            }
        }
        return out
    }
}
