/// What a marked day added to one subscription's sums (`RollupChain.changes`), as the roll-up
/// keeps it beside the day's mark (migration 18): a question as of an instant inside the day,
/// before anything of the subscription happened or was signed on it, takes the change out
/// instead of reading the subscription's rows and working out its life twice.
///
/// Packed small, since every marked day of every subscription has one: per entry its key (how
/// many days before the marked day, metric, cohort, the numbers of its texts in `RollupTexts`)
/// and its value, each an unsigned LEB128 number (signed ones zigzag-encoded).
enum RollupDayChange {
    static func pack(_ change: [DayRollup.Key: Int64], day: Int64, texts: inout RollupTexts) -> [UInt8] {
        var out: [UInt8] = []
        for (key, value) in change {
            unsigned(UInt64(bitPattern: day &- key.day), &out)
            unsigned(UInt64(truncatingIfNeeded: key.metric), &out)
            signed(key.cohort, &out)
            for text in [key.product, key.group, key.storefront, key.currency] { unsigned(texts.number(text), &out) }
            signed(value, &out)
        }
        return out
    }

    /// The change `pack` made for `day`; nil for bytes it could not have made.
    static func unpack(_ bytes: [UInt8], day: Int64, texts: RollupTexts) -> [(DayRollup.Key, Int64)]? {
        var at = 0
        func number() -> UInt64? {
            var n: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 64, by: 7) {
                guard at < bytes.count else { return nil }
                let byte = bytes[at]
                at += 1
                n |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return n }
            }
            return nil
        }
        func integer() -> Int64? { number().map { Int64(bitPattern: ($0 >> 1) ^ (0 &- ($0 & 1))) } }
        func text() -> String? { number().flatMap { texts.text($0) } }
        var entries: [(DayRollup.Key, Int64)] = []
        while at < bytes.count {
            guard let before = number(), before <= UInt64(Int64.max), let metric = number(), metric < 100, let cohort = integer(),
                  let product = text(), let group = text(), let storefront = text(), let currency = text(), let value = integer() else { return nil }
            let (keyDay, overflow) = day.subtractingReportingOverflow(Int64(before))
            guard !overflow else { return nil }
            entries.append((DayRollup.Key(day: keyDay, metric: Int(metric), product: product, group: group, storefront: storefront,
                                          currency: currency, cohort: cohort), value))
        }
        return entries
    }

    private static func unsigned(_ n: UInt64, _ out: inout [UInt8]) {
        var n = n
        while n >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: n) | 0x80)
            n >>= 7
        }
        out.append(UInt8(n))
    }

    private static func signed(_ n: Int64, _ out: inout [UInt8]) {
        unsigned(UInt64(bitPattern: (n << 1) ^ (n >> 63)), &out)
    }
}
