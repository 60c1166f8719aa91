import GateKitSupport

/// The response headers the clients read as numbers, parsed here rather than by libcurl so
/// that an absurd value is seen as absurd, not as absent: `Date` (when the server answered,
/// the clock the ledger's sync trusts over the host's), `Retry-After`, and `Cache-Control`'s
/// max-age (how long a key set may be kept).
package enum HTTPHeaderValues {
    /// `max-age` of a Cache-Control value in seconds (RFC 9111 §5.2.2.1), or nil when it has
    /// none or says no-store / no-cache (then nothing may be kept).
    package static func maxAge(_ text: String) -> Int64? {
        var age: Int64?
        for directive in text.split(separator: ",") {
            let d = String(directive.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()).lowercased()
            if d == "no-store" || d == "no-cache" { return nil }
            guard d.hasPrefix("max-age=") else { continue }
            var digits = d.dropFirst("max-age=".count)
            if digits.hasPrefix("\""), digits.hasSuffix("\""), digits.count >= 2 { digits = digits.dropFirst().dropLast() }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            age = Int64(digits) ?? .max  // more digits than 64 bits: "forever", capped by the caller
        }
        return age
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7, "Sun, 06 Nov 1994 08:49:37 GMT", what every current
    /// server sends) as Unix milliseconds; nil for anything else.
    package static func date(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20,
              b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20, b[26...] == Array("GMT".utf8)[...] else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for c in b[range] {
                guard (0x30...0x39).contains(c) else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(decoding: b[8..<11], as: UTF8.self)),
              let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
              let minute = number(20..<22), let second = number(23..<25),
              (1...Timestamp.daysInMonth(year: year, month: month + 1)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = Int64(Timestamp.days(year: year, month: month + 1, day: day))
        return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(min(second, 59)) * 1000
    }

    /// `Retry-After` in seconds: delta-seconds (saturated: 10^24 is "longer than any wait",
    /// never "absent"), or an HTTP date, counted from `serverDate` (else the host's clock).
    /// Nil when absent or unreadable.
    package static func retryAfterSeconds(_ text: String, serverDate: Int64?) -> Int64? {
        let digits = text.utf8
        if !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) {
            var value: Int64 = 0
            for c in digits {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(Int64(c - 0x30))
                if o1 || o2 { return .max }
                value = plus
            }
            return value
        }
        guard let at = date(text) else { return nil }
        return max(0, (at - (serverDate ?? Clock.nowMilliseconds())) / 1000)
    }
}
