/// A bar chart as inline SVG: one bar per bucket and series (stacked or side by side), each a
/// `rect class="mark"` with its value in a `<title>` (a tooltip, and what assistive technology
/// reads); bars of zero are not drawn. The same numbers go in a table beside it (`LedgerReport`).
struct SVGBarChart {
    struct Series {
        let name: String
        /// A CSS class giving the bars their colour (the report's style sheet).
        let style: String
        let values: [Int64]
    }

    let id: String
    let title: String
    let labels: [String]
    let series: [Series]
    var stacked = false
    var format: (Int64) -> String = { String($0) }

    static let width = 720, height = 260
    static let left = 72, right = 12, top = 12, bottom = 40

    var svg: String {
        let plotWidth = SVGBarChart.width - SVGBarChart.left - SVGBarChart.right
        let plotHeight = SVGBarChart.height - SVGBarChart.top - SVGBarChart.bottom
        let count = max(1, labels.count)
        let slot = Double(plotWidth) / Double(count)
        // The scale: the tallest bar (or stack), never below 1 so an empty chart still draws.
        var peak: Int64 = 1
        for k in 0..<labels.count {
            let column = series.map { k < $0.values.count ? max(0, $0.values[k]) : 0 }
            peak = max(peak, stacked ? column.reduce(0, &+) : column.max() ?? 0)
        }
        func y(_ value: Int64) -> Double { Double(plotHeight) * (1 - Double(value) / Double(peak)) + Double(SVGBarChart.top) }
        var out = """
            <svg id="\(id)" class="chart" role="img" aria-labelledby="\(id)-title" viewBox="0 0 \(SVGBarChart.width) \(SVGBarChart.height)" \
            width="\(SVGBarChart.width)" height="\(SVGBarChart.height)" xmlns="http://www.w3.org/2000/svg">
            <title id="\(id)-title">\(HTML.escape(title))</title>

            """
        // Axis: zero, half and the peak.
        for tick in [0, peak / 2, peak] {
            let ty = y(tick)
            out += "<line class=\"grid\" x1=\"\(SVGBarChart.left)\" x2=\"\(SVGBarChart.width - SVGBarChart.right)\" y1=\"\(fixed(ty))\" y2=\"\(fixed(ty))\"/>"
            out += "<text class=\"axis\" x=\"\(SVGBarChart.left - 6)\" y=\"\(fixed(ty + 4))\" text-anchor=\"end\">\(HTML.escape(format(tick)))</text>\n"
        }
        let every = max(1, (labels.count + 11) / 12)
        for (k, label) in labels.enumerated() where k % every == 0 {
            let x = Double(SVGBarChart.left) + slot * (Double(k) + 0.5)
            out += "<text class=\"axis\" x=\"\(fixed(x))\" y=\"\(SVGBarChart.height - SVGBarChart.bottom + 16)\" text-anchor=\"middle\">\(HTML.escape(label))</text>\n"
        }
        let bars = stacked ? 1 : max(1, series.count)
        let barWidth = slot * 0.8 / Double(bars)
        for k in 0..<labels.count {
            var base: Int64 = 0
            for (s, line) in series.enumerated() {
                guard k < line.values.count, line.values[k] > 0 else { continue }
                let value = line.values[k]
                let x = Double(SVGBarChart.left) + slot * Double(k) + slot * 0.1 + (stacked ? 0 : barWidth * Double(s))
                let top = y(base &+ value), bottom = y(base)
                out += "<rect class=\"mark \(line.style)\" x=\"\(fixed(x))\" y=\"\(fixed(top))\" width=\"\(fixed(barWidth))\" height=\"\(fixed(max(0.5, bottom - top)))\">"
                out += "<title>\(HTML.escape("\(labels[k]): \(line.name) \(format(value))"))</title></rect>\n"
                if stacked { base &+= value }
            }
        }
        return out + "</svg>\n"
    }

    /// The legend: each series' colour and name.
    var legend: String {
        guard series.count > 1 else { return "" }
        return "<ul class=\"legend\">" + series.map { "<li><span class=\"swatch \($0.style)\" aria-hidden=\"true\"></span>\(HTML.escape($0.name))</li>" }.joined() + "</ul>\n"
    }

    /// The chart's numbers as a table (the same data, for reading and copying).
    var table: String {
        var out = "<details><summary>The numbers</summary><table class=\"data\"><thead><tr><th scope=\"col\">Period</th>"
        out += series.map { "<th scope=\"col\">\(HTML.escape($0.name))</th>" }.joined() + "</tr></thead><tbody>\n"
        for (k, label) in labels.enumerated() {
            out += "<tr><th scope=\"row\">\(HTML.escape(label))</th>"
            out += series.map { "<td>\(HTML.escape(format(k < $0.values.count ? $0.values[k] : 0)))</td>" }.joined() + "</tr>\n"
        }
        return out + "</tbody></table></details>\n"
    }

    private func fixed(_ value: Double) -> String { HTML.coordinate(value) }
}
