/// An amount as Stripe writes it: an integer in the currency's smallest unit
/// (docs.stripe.com/currencies): 1000 is 10.00 USD, 500 is ¥500, 5120 is 5.120 KWD.
package struct StripeMoney: Sendable, Equatable {
    /// Lowercase, as Stripe writes it.
    package let currency: String
    package let minorUnits: Int64

    package init(currency: String, minorUnits: Int64) {
        self.currency = currency
        self.minorUnits = minorUnits
    }

    /// Currencies Stripe charges in whole units. UGX is zero-decimal too, but Stripe takes and
    /// gives its amounts with two decimals (like ISK), so it is not among them here.
    private static let zeroDecimal: Set<String> = ["bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "vnd",
                                                   "vuv", "xaf", "xof", "xpf"]
    private static let threeDecimal: Set<String> = ["bhd", "jod", "kwd", "omr", "tnd"]

    /// How many decimals Stripe's integer carries for `currency`.
    package static func decimals(_ currency: String) -> Int {
        let c = currency.lowercased()
        return zeroDecimal.contains(c) ? 0 : threeDecimal.contains(c) ? 3 : 2
    }

    /// Thousandths of the currency's unit (the ledger's price unit: 9990 is 9.99), exact; nil
    /// on overflow.
    package var milliunits: Int64? {
        let scale: Int64
        switch StripeMoney.decimals(currency) {
        case 0: scale = 1000
        case 3: scale = 1
        default: scale = 10
        }
        let (result, overflow) = minorUnits.multipliedReportingOverflow(by: scale)
        return overflow ? nil : result
    }

    /// ISO 4217, uppercase (as the ledger's other stores write it).
    package var isoCurrency: String { currency.uppercased() }
}
