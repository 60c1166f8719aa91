import GateKitSupport

/// verifyReceipt's three renderings of an instant: `2020-07-14 19:36:40` (UTC), its epoch
/// milliseconds, and the same instant's wall clock in America/Los_Angeles. Written without
/// Strings, and remembered for the two instants rendered last: a renewal starts when the one
/// before it expired and repeats its original purchase date, so two of a purchase's three dates
/// were usually just rendered (a 187-purchase receipt writes ~560 dates).
struct VerifyReceiptDates {
    /// One instant's renderings, in 64 bytes: UTC (19), milliseconds (at most 20), Pacific (19).
    struct Text {
        fileprivate(set) var milliseconds = Int64.min
        fileprivate var storage = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        fileprivate var digits = 0

        /// The three renderings, borrowed for `body`.
        func withParts<R>(_ body: (_ utc: UnsafeRawBufferPointer, _ milliseconds: UnsafeRawBufferPointer,
                                   _ pacific: UnsafeRawBufferPointer) -> R) -> R {
            withUnsafeBytes(of: storage) { b in
                body(UnsafeRawBufferPointer(rebasing: b[0..<19]), UnsafeRawBufferPointer(rebasing: b[19..<(19 + digits)]),
                     UnsafeRawBufferPointer(rebasing: b[(19 + digits)..<(38 + digits)]))
            }
        }
    }

    private var newest = Text(), older = Text()
    /// The last civil day converted, and its `YYYY-MM-DD` (ASCII in a UInt64 and a UInt16).
    private var day = Int64.min
    private var dayYear = 0
    private var dayText: (UInt64, UInt16) = (0, 0)
    /// The Pacific daylight window of the last year asked for.
    private var pacificYear = Int.min
    private var pacificWindow: (Int64, Int64)?

    /// The renderings of `ms`; nil for years outside 0…9999 (the caller writes those with
    /// `Timestamp.spaced`).
    mutating func text(_ ms: Int64) -> Text? {
        if newest.milliseconds == ms { return newest }
        if older.milliseconds == ms {
            // Most recently used first: the original purchase date, asked for by every renewal,
            // then outlives the expiry dates that pass through.
            swap(&newest, &older)
            return newest
        }
        var t = Text()
        let rendered: Bool = withUnsafeMutableBytes(of: &t.storage) { b in
            guard let base = b.baseAddress?.assumingMemoryBound(to: UInt8.self), spaced(ms, into: base) else { return false }
            t.digits = ByteWriter.writeDecimal(ms, into: base + 19)
            return spaced(ms &+ pacificOffset(ms), into: base + 19 + t.digits)
        }
        guard rendered else { return nil }
        t.milliseconds = ms
        older = newest
        newest = t
        return t
    }

    private mutating func pacificOffset(_ ms: Int64) -> Int64 {
        let year = civilDay(ms).year
        if year != pacificYear {
            pacificYear = year
            pacificWindow = PacificTime.daylightWindow(year: year)
        }
        guard let (start, end) = pacificWindow, ms >= start, ms < end else { return PacificTime.standardOffset }
        return PacificTime.daylightOffset
    }

    /// Milliseconds into the day of `ms`, and its year; the day's text is then in `dayText`
    /// when the year is in 0…9999.
    private mutating func civilDay(_ ms: Int64) -> (rest: Int, year: Int) {
        let msPerDay: Int64 = 86_400_000
        var number = ms / msPerDay
        var rest = ms % msPerDay
        if rest < 0 { rest += msPerDay; number -= 1 }
        if number != day {
            let c = Timestamp.civilDate(days: Int(number))
            day = number
            dayYear = c.year
            if (0...9999).contains(c.year) {
                let y = c.year, m = c.month, d = c.day
                let text = UInt64(0x30 + y / 1000) | UInt64(0x30 + y / 100 % 10) << 8 | UInt64(0x30 + y / 10 % 10) << 16
                    | UInt64(0x30 + y % 10) << 24 | UInt64(0x2D) << 32 | UInt64(0x30 + m / 10) << 40 | UInt64(0x30 + m % 10) << 48 | UInt64(0x2D) << 56
                dayText = (text, UInt16(0x30 + d / 10) | UInt16(0x30 + d % 10) << 8)
            }
        }
        return (Int(rest), dayYear)
    }

    /// `2020-07-14 19:36:40` into the 19 bytes at `b`; false for years outside 0…9999.
    private mutating func spaced(_ ms: Int64, into b: UnsafeMutablePointer<UInt8>) -> Bool {
        let (rest, year) = civilDay(ms)
        guard (0...9999).contains(year) else { return false }
        UnsafeMutableRawPointer(b).storeBytes(of: dayText.0.littleEndian, as: UInt64.self)
        UnsafeMutableRawPointer(b + 8).storeBytes(of: dayText.1.littleEndian, as: UInt16.self)
        let hour = rest / 3_600_000, minute = rest / 60_000 % 60, second = rest / 1000 % 60
        b[10] = 0x20
        b[11] = UInt8(truncatingIfNeeded: 0x30 + hour / 10); b[12] = UInt8(truncatingIfNeeded: 0x30 + hour % 10); b[13] = 0x3A
        b[14] = UInt8(truncatingIfNeeded: 0x30 + minute / 10); b[15] = UInt8(truncatingIfNeeded: 0x30 + minute % 10); b[16] = 0x3A
        b[17] = UInt8(truncatingIfNeeded: 0x30 + second / 10); b[18] = UInt8(truncatingIfNeeded: 0x30 + second % 10)
        return true
    }
}
