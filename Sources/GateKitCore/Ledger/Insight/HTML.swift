import GateKitSupport

/// Writing the report's HTML: text escaped once, in one place (every value in the report comes
/// from signed data or the host, and is text, never markup).
enum HTML {
    /// `text` safe in element content and in double-quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline are not allowed in HTML text.
                if scalar.value < 0x20 && scalar != "\t" && scalar != "\n" || (0x7F...0x9F).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A UTC date (and time, when not midnight) for people.
    static func date(_ ms: Int64) -> String {
        let c = Timestamp.civil(milliseconds: ms)
        let day = "\(Timestamp.pad(c.year, 4))-\(Timestamp.pad(c.month, 2))-\(Timestamp.pad(c.day, 2))"
        return c.hour == 0 && c.minute == 0 && c.second == 0 && c.millisecond == 0 ? day
            : day + " \(Timestamp.pad(c.hour, 2)):\(Timestamp.pad(c.minute, 2)) UTC"
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// A bucket's label: "2025-03-05", "week of 2025-03-03", "Mar 2025".
    static func bucket(_ start: Int64, _ granularity: MetricsRequest.Granularity) -> String {
        let c = Timestamp.civil(milliseconds: start)
        switch granularity {
        case .day: return date(start)
        case .week: return "week of " + date(start)
        case .month: return "\(monthNames[max(0, min(11, c.month - 1))]) \(c.year)"
        }
    }

    /// Milliunits as a decimal amount: 9990 → "9.99", -10859 → "-10.859".
    static func money(_ milli: Int64, _ currency: String) -> String {
        let negative = milli < 0
        let magnitude = milli.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + "\(magnitude / 1000).\(fraction) \(currency)"
    }

    /// An SVG coordinate to a tenth: "12", "12.5", "-0.5".
    static func coordinate(_ value: Double) -> String {
        let scaled = (value * 10).rounded()
        guard scaled.isFinite, abs(scaled) < 1e12 else { return "0" }
        let tenths = Int64(scaled), sign = tenths < 0 ? "-" : ""
        let whole = tenths.magnitude / 10, tenth = tenths.magnitude % 10
        return tenth == 0 ? sign + String(whole) : "\(sign)\(whole).\(tenth)"
    }
}
