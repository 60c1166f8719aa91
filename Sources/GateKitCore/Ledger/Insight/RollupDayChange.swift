/// What a marked day added to one subscription's sums (`RollupChain.changes`), as the roll-up
/// keeps it beside the day's mark (migration 18): a question as of an instant inside the day,
/// before anything of the subscription happened or was signed on it, takes the change out
/// instead of reading the subscription's rows and working out its life twice.
///
/// Packed small, since every marked day of every subscription has one: per entry its key (how
/// many days before the marked day, metric, cohort, the numbers of its texts in `RollupTexts`:
/// product, group, storefront, currency and store)
/// and its value, each an unsigned LEB128 number (signed ones zigzag-encoded).
enum RollupDayChange {
    static func pack(_ change: [DayRollup.Key: Int64], day: Int64, texts: inout RollupTexts) -> [UInt8] {
        var out = RollupBytes()
        for (key, value) in change {
            out.unsigned(UInt64(bitPattern: day &- key.day))
            out.unsigned(UInt64(truncatingIfNeeded: key.metric))
            out.signed(key.cohort)
            for text in [key.product, key.group, key.storefront, key.currency, key.store] { out.unsigned(texts.number(text)) }
            out.signed(value)
        }
        return out.bytes
    }

    /// The change `pack` made for `day`; nil for bytes it could not have made.
    static func unpack(_ bytes: [UInt8], day: Int64, texts: RollupTexts) -> [(DayRollup.Key, Int64)]? {
        var reader = RollupBytes.Reader(bytes)
        func text() -> String? { reader.unsigned().flatMap { texts.text($0) } }
        var entries: [(DayRollup.Key, Int64)] = []
        while !reader.atEnd {
            guard let before = reader.unsigned(), before <= UInt64(Int64.max), let metric = reader.unsigned(), metric < 100,
                  let cohort = reader.signed(), let product = text(), let group = text(), let storefront = text(), let currency = text(), let store = text(),
                  let value = reader.signed() else { return nil }
            let (keyDay, overflow) = day.subtractingReportingOverflow(Int64(before))
            guard !overflow else { return nil }
            entries.append((DayRollup.Key(day: keyDay, metric: Int(metric), product: product, group: group, storefront: storefront,
                                          currency: currency, cohort: cohort, store: store), value))
        }
        return entries
    }
}
