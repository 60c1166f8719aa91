import GateKitSupport

/// America/Los_Angeles wall-clock time for verifyReceipt's `*_pst` dates, from the US daylight
/// saving rules (as in the tz database) rather than a zone file:
/// - 2007 onward: second Sunday of March 02:00 PST → first Sunday of November 02:00 PDT;
/// - 1987–2006: first Sunday of April → last Sunday of October;
/// - 1976–1986 and 1967–1973: last Sunday of April → last Sunday of October;
/// - 1974: January 6 → last Sunday of October; 1975: February 23 → last Sunday of October;
/// - before 1967: standard time all year (Apple's dates start in 2008).
enum PacificTime {
    static let standardOffset: Int64 = -8 * 3_600_000
    static let daylightOffset: Int64 = -7 * 3_600_000

    /// UTC offset in milliseconds at the instant `ms`.
    static func offset(at ms: Int64) -> Int64 {
        let year = Timestamp.civil(milliseconds: ms).year
        guard let (start, end) = daylightWindow(year: year) else { return standardOffset }
        return ms >= start && ms < end ? daylightOffset : standardOffset
    }

    /// DST start/end instants (UTC ms) of a year: both transitions happen at 02:00 local time,
    /// i.e. 10:00 UTC (from PST) and 09:00 UTC (from PDT).
    static func daylightWindow(year: Int) -> (Int64, Int64)? {
        let startDay: Int
        let endDay: Int
        switch year {
        case 2007...:
            startDay = nthSunday(year: year, month: 3, n: 2)
            endDay = nthSunday(year: year, month: 11, n: 1)
        case 1987...2006:
            startDay = nthSunday(year: year, month: 4, n: 1)
            endDay = lastSunday(year: year, month: 10)
        case 1976...1986, 1967...1973:
            startDay = lastSunday(year: year, month: 4)
            endDay = lastSunday(year: year, month: 10)
        case 1974:
            startDay = Timestamp.days(year: 1974, month: 1, day: 6)
            endDay = lastSunday(year: year, month: 10)
        case 1975:
            startDay = Timestamp.days(year: 1975, month: 2, day: 23)
            endDay = lastSunday(year: year, month: 10)
        default:
            return nil
        }
        let hour: Int64 = 3_600_000
        return (Int64(startDay) * 86_400_000 + 10 * hour, Int64(endDay) * 86_400_000 + 9 * hour)
    }

    static func nthSunday(year: Int, month: Int, n: Int) -> Int {
        let first = Timestamp.days(year: year, month: month, day: 1)
        let toSunday = (7 - Timestamp.weekday(days: first)) % 7
        return first + toSunday + 7 * (n - 1)
    }

    static func lastSunday(year: Int, month: Int) -> Int {
        let last = Timestamp.days(year: year, month: month, day: Timestamp.daysInMonth(year: year, month: month))
        return last - Timestamp.weekday(days: last)
    }
}
