import GateKitStore
import GateKitSupport

/// The texts of the roll-up's keys (products, groups, storefronts, currencies) and of the
/// shared customers' tokens, numbered once per scope (migration 18): every marked day of every
/// subscription keeps a change (`RollupDayChange`) naming them, and every kept paid period
/// (`RollupPaid`), by number. Numbers are handed out only by a refresh, which
/// holds off every other refresh of the scope, in the transaction that writes the changes
/// using them.
struct RollupTexts {
    private var numbers: [String: UInt64] = [:]
    private var texts: [String] = []
    /// How many of `texts` the store already holds.
    private var stored = 0

    /// The scope's numbered texts.
    static func load(_ db: any DatabaseConnection, scope: LedgerScope) throws(GateKitError) -> RollupTexts {
        let s = try db.statement("SELECT number, content FROM ledger_metric_texts WHERE environment = ?1 AND test_signed = ?2 ORDER BY number")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag)
        var loaded = RollupTexts()
        while try s.step() {
            // Numbered 0, 1, 2, ... by `save`: anything else is not a table this code wrote.
            guard s.int64(0) == Int64(loaded.texts.count), let text = s.text(1), loaded.numbers[text] == nil else {
                throw GateKitError(.ECORRUPT, "the metrics roll-up's numbered texts are malformed (number \(s.int64(0)))")
            }
            loaded.numbers[text] = UInt64(loaded.texts.count)
            loaded.texts.append(text)
        }
        loaded.stored = loaded.texts.count
        return loaded
    }

    /// How many texts are numbered: every number is below it.
    var count: Int { texts.count }

    /// `text`'s number, a new one the first time.
    mutating func number(_ text: String) -> UInt64 {
        if let n = numbers[text] { return n }
        numbers[text] = UInt64(texts.count)
        texts.append(text)
        return UInt64(texts.count - 1)
    }

    /// The text numbered `number`; nil for a number never handed out.
    func text(_ number: UInt64) -> String? { number < UInt64(texts.count) ? texts[Int(number)] : nil }

    /// Writes the texts numbered since `load`.
    mutating func save(_ db: any DatabaseConnection, scope: LedgerScope) throws(GateKitError) {
        var rows = RowInserts(into: "ledger_metric_texts(environment, test_signed, number, content)", values: ["?", "?", "?", "?"])
        for (number, text) in texts.enumerated().dropFirst(stored) {
            try rows.append([.text(scope.environment), .integer(scope.testFlag), .integer(Int64(number)), .text(text)])
        }
        try rows.flush(db)
        stored = texts.count
    }
}
