/// Calendar arithmetic and RFC 3339 text for Unix-epoch milliseconds, without Foundation.
///
/// Proleptic Gregorian calendar, UTC. Days/civil conversions follow H. Hinnant's
/// `days_from_civil` / `civil_from_days` algorithms.
public enum Timestamp {
    public struct Civil: Equatable, Sendable {
        public var year: Int, month: Int, day: Int
        public var hour: Int, minute: Int, second: Int, millisecond: Int
    }

    /// Days since 1970-01-01 for a civil date.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day number (days since 1970-01-01).
    public static func civilDate(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 = Sunday … 6 = Saturday.
    public static func weekday(days: Int) -> Int {
        let w = (days + 4) % 7
        return w < 0 ? w + 7 : w
    }

    public static func civil(milliseconds ms: Int64) -> Civil {
        let msPerDay: Int64 = 86_400_000
        var dayNumber = ms / msPerDay
        var rest = ms % msPerDay
        if rest < 0 { rest += msPerDay; dayNumber -= 1 }
        let date = civilDate(days: Int(dayNumber))
        let r = Int(rest)
        return Civil(year: date.year, month: date.month, day: date.day,
                     hour: r / 3_600_000, minute: r / 60_000 % 60, second: r / 1000 % 60,
                     millisecond: r % 1000)
    }

    /// `2020-07-14T19:36:40.123Z`
    public static func rfc3339Milliseconds(_ ms: Int64) -> String {
        let c = civil(milliseconds: ms)
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(c.millisecond, 3))Z"
    }

    /// `2020-07-14 19:36:40` (the layout of verifyReceipt's date strings, without the zone).
    public static func spaced(_ ms: Int64) -> String {
        let c = civil(milliseconds: ms)
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2)) \(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
    }

    public static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value < 0 ? -value : value)
        let sign = value < 0 ? "-" : ""
        return digits.count >= width ? sign + digits : sign + String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses RFC 3339 / ISO 8601 date-times as Apple writes them:
    /// `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±hh:mm|±hhmm)`. Returns epoch milliseconds, or nil
    /// for anything else (including out-of-range fields).
    public static func parseRFC3339<C: Collection>(_ text: C) -> Int64? where C.Element == UInt8 {
        let b = Array(text)
        var i = 0
        func number(_ width: Int) -> Int? {
            guard i + width <= b.count else { return nil }
            var v = 0
            for k in i..<(i + width) {
                let c = b[k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += width
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")),
              let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2) else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2) else { return nil }
        var millis = 0
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if digits < 3 { millis = millis * 10 + Int(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetMinutes = 0
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let negative = b[i] == UInt8(ascii: "-")
            i += 1
            guard let oh = number(2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let om = number(2), oh <= 23, om <= 59 else { return nil }
            offsetMinutes = (oh * 60 + om) * (negative ? -1 : 1)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let dayNumber = Int64(days(year: year, month: month, day: day))
        let seconds = dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    public static func isLeapYear(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
