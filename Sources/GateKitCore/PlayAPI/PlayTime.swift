import GateKitSupport

/// Google's timestamps (protobuf Timestamp in JSON): RFC 3339 in UTC, "Z", with 0 to 9
/// fractional digits ("2026-01-01T00:00:00.123456789Z"), read as Unix milliseconds (the
/// digits past the millisecond are dropped toward the past). Nil for anything else: a
/// timestamp GateKit cannot read exactly is not guessed at.
package enum PlayTime {
    package static func milliseconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 30, b.last == UInt8(ascii: "Z"), b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for c in b[range] {
                guard (0x30...0x39).contains(c) else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        let days = Timestamp.days(year: year, month: month, day: day)
        guard Timestamp.civilDate(days: days) == (year, month, day) else { return nil }  // no 31 February
        var millisecond = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count - 21 >= 1, b.count - 21 <= 9, let fraction = number(20..<(b.count - 1)) else { return nil }
            let digits = b.count - 21
            var scaled = fraction
            for _ in digits..<9 { scaled *= 10 }
            millisecond = scaled / 1_000_000
        }
        return (Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millisecond)
    }
}
