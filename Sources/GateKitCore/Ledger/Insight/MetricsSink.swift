/// What one subscription contributes to the metrics, decided once (docs/ledger.md, "Metrics")
/// and handed to a sink: the question's buckets (`MetricsTally`) or the day roll-up a store
/// keeps (`DayRollup`). The sink decides where each thing counts; this decides what there is.
protocol MetricsSink {
    /// An event at an instant.
    mutating func event(_ flow: MetricsTally.Flow, at ms: Int64, _ v: TransactionVersion)
    /// A level held over [a, b).
    mutating func span(_ level: MetricsTally.Level, _ a: Int64, _ b: Int64, _ v: TransactionVersion)
    /// Money at an instant, in milliunits of `currency`.
    mutating func money(_ kind: MetricsMoney, _ amount: Int64, currency: String, at ms: Int64, _ v: TransactionVersion)
    /// Monthly recurring revenue held over [a, b).
    mutating func mrr(_ amount: Int64, currency: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion)
    /// A paid period of a customer (paid subscribers count each customer once).
    mutating func paidCustomer(_ customer: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion)
    /// The subscription's first paid period and every paid span it held (cohorts).
    mutating func cohort(_ first: SubscriptionLife.Period, paid: [(Int64, Int64)])
}

enum MetricsMoney {
    case revenue, refunds

    /// The largest price counted, in milliunits: 10^13, ten billion units, above every App
    /// Store price in every currency. A signed price beyond it is absurd: its money is left out
    /// and counted as `pricesExcluded` (per currency when split by it), so one item can never
    /// drive a sum past 64 bits, and every path (row by row, roll-up, either backend) agrees.
    static let maximumPrice: Int64 = 10_000_000_000_000

    static func counts(_ price: Int64) -> Bool { price >= -maximumPrice && price <= maximumPrice }

    /// A period's price as MRR: price × 30.436875 days ÷ the period, rounded to the nearest
    /// milliunit (halves away from zero), in 128 bits. `periodMs` > 0.
    static func monthly(_ price: Int64, periodMs: Int64) -> Int128 {
        let scaled = Int128(price) * Int128(MetricsTally.meanMonthMs), period = Int128(periodMs)
        return (scaled + (scaled < 0 ? -period / 2 : period / 2)) / period
    }
}

extension MetricsSink {
    /// A page of subscriptions, each added whole: its transactions' money, then its life.
    mutating func add(_ page: MetricsPage, asOf: Int64) {
        var versions: [String: [TransactionVersion]] = [:]
        for v in page.versions { versions[v.purchaseID, default: []].append(v) }
        var renewals: [String: [RenewalVersion]] = [:]
        for r in page.renewals { renewals[r.purchaseID, default: []].append(r) }
        for (original, all) in versions {
            add(original: original, versions: all, renewals: renewals[original] ?? [], payments: page.payments[original] ?? PaymentAnswers(),
                asOf: asOf)
        }
    }

    /// One subscription's versions, renewal infos and payment answers (any order), as of `asOf`.
    mutating func add(original: String, versions given: [TransactionVersion], renewals: [RenewalVersion],
                      payments: PaymentAnswers = PaymentAnswers(), asOf: Int64) {
        // What nobody paid for (a support grant) is no sale: not revenue, not a subscriber, and
        // its revocation no refund.
        let versions = given.allSatisfy(\.store.rules.isSale) ? given : given.filter(\.store.rules.isSale)
        guard !versions.isEmpty else { return }
        var newest = SubscriptionLife.newest(versions)
        if !payments.isEmpty { addPaymentsTakenBack(payments.known(by: asOf), newest: &newest, versions: versions) }
        for v in newest { add(transaction: v) }
        let signed = renewals.sorted { $0.vouchedMs != $1.vouchedMs ? $0.vouchedMs < $1.vouchedMs : $0.identity < $1.identity }
        if let life = SubscriptionLife(original: original, newest: newest, renewals: signed, asOf: asOf) { add(life) }
    }

    /// Payments taken back (a refund, a chargeback), where the store answers them apart: they
    /// revoke the newest versions they paid for, as in answers (then counted with them); one
    /// that paid for an earlier period counts its refund at the price that period's own answer
    /// named. Money given back in part counts its amount at its instant, under what its payment
    /// paid for — unless the payment is taken back whole, whose price then counts instead.
    private mutating func addPaymentsTakenBack(_ known: (links: [PaymentLink], revocations: [PaymentRevocation]),
                                               newest: inout [TransactionVersion], versions: [TransactionVersion]) {
        PaymentRevocation.revoke(&newest, links: known.links, revocations: known.revocations)
        for r in known.revocations {
            guard let at = r.revocationMs else { continue }
            for link in known.links where link.payment == r.payment && !newest.contains(where: link.paidFor) {
                guard var paid = versions.filter({ link.paidFor($0) }).max(by: { $1.isNewer(than: $0) }),
                      at < (paid.revocationMs ?? .max) else { continue }
                paid.revocationMs = at
                paid.revocationReason = r.reason
                paid.sale.refund = r.refund
                add(revocation: paid)
            }
        }
        let takenBackWhole = Set(known.revocations.filter { $0.revocationMs != nil }.map(\.payment))
        var counted = Set<String>()  // one refund, known by its payment intent and its charge: once
        for r in known.revocations {
            guard let back = r.moneyBack, !takenBackWhole.contains(r.payment), !counted.contains(r.sourceID),
                  let link = known.links.filter({ $0.payment == r.payment }).min(by: { ($0.purchaseID, $0.transactionID ?? "") < ($1.purchaseID, $1.transactionID ?? "") }),
                  let paid = versions.filter({ link.paidFor($0) }).max(by: { $1.isNewer(than: $0) }) else { continue }
            counted.insert(r.sourceID)
            guard MetricsMoney.counts(back.milliunits) else { event(.pricesExcluded, at: back.atMs, paid); continue }
            money(.refunds, back.milliunits, currency: back.currency, at: back.atMs, paid)
        }
    }

    /// A transaction's money and refund, whatever its product type (the newest version).
    mutating func add(transaction v: TransactionVersion) {
        add(revocation: v)
        // Family Sharing pays nothing: the organizer's purchase carries the revenue. A Play
        // subscription's order is paid when its period begins (`add(_ life:)`), not at the
        // subscription's start its answer names.
        if v.store.rules.periodsFollowEachOther && v.productType == .autoRenewable { return }
        if !v.familyShared, let at = v.purchaseMs, let price = v.sale.price, let currency = v.sale.currency {
            if MetricsMoney.counts(price) { money(.revenue, price, currency: currency, at: at, v) } else { event(.pricesExcluded, at: at, v) }
        }
    }

    /// A revoked version's refund (its share of the price) or, Family Sharing's, its revocation.
    private mutating func add(revocation v: TransactionVersion) {
        guard let at = v.revocationMs, !v.isUpgraded else { return }
        if v.familyShared || v.sale.refund == .familyRevoked {
            event(.revoked, at: at, v)
            return
        }
        event(.refunded, at: at, v)
        guard let price = v.sale.price, let currency = v.sale.currency else { return }
        guard MetricsMoney.counts(price) else { return event(.pricesExcluded, at: at, v) }
        let share = Int128(v.sale.refund == .prorated ? (v.sale.revocationPercentage ?? 100_000) : 100_000)
        money(.refunds, Int64(Int128(price) * min(max(share, 0), 100_000) / 100_000), currency: currency, at: at, v)
    }

    /// A subscription's periods: how each began and ended, and what it held when.
    mutating func add(_ life: SubscriptionLife) {
        var firstPaid: SubscriptionLife.Period?
        var paid: [(Int64, Int64)] = []
        for p in life.periods {
            let v = p.version
            if life.familyShared {
                span(.familyShared, p.start, p.coveredUntil, v)
                continue
            }
            if !p.trial, firstPaid == nil { firstPaid = p }
            if v.store.rules.periodsFollowEachOther, let price = v.sale.price, let currency = v.sale.currency {
                if MetricsMoney.counts(price) { money(.revenue, price, currency: currency, at: p.start, v) } else { event(.pricesExcluded, at: p.start, v) }
            }
            switch p.began {
            case .new: event(.new, at: p.start, v)
            case .newTrial: event(.newTrials, at: p.start, v)
            case .conversion: event(.conversions, at: p.start, v)
            case .renewal: event(.renewals, at: p.start, v)
            case .recovery: event(.recoveries, at: p.start, v)
            case .reactivation: event(.reactivations, at: p.start, v)
            case .productChange: event(.productChanges, at: p.start, v)
            }
            if case let (.expired(cause), at)? = p.end {
                event(p.trial ? .trialsExpired : (cause == .voluntary ? .expiredVoluntary : cause == .billing ? .expiredBilling : .expiredOther), at: at, v)
            }
            let paidEnd = p.graceUntil.map { max($0, p.coveredUntil) } ?? p.coveredUntil
            span(p.trial ? .activeTrials : .activeSubscriptions, p.start, paidEnd, v)
            if let grace = p.graceUntil, let expires = v.expiresMs { span(.inGracePeriod, expires, grace, v) }
            if let retry = p.retryUntil { span(.inBillingRetry, p.graceUntil ?? v.expiresMs ?? p.start, retry, v) }
            if !p.trial {
                // 128-bit: a price in a currency of large numbers times a month in ms passes 64 bits
                // (an IDR yearly price did, and its MRR was dropped without a word).
                // A period of absurd length (a millisecond) makes an absurd MRR: left out the same way.
                if let price = v.sale.price, let currency = v.sale.currency, let expires = v.expiresMs, expires > p.start {
                    let monthly = MetricsMoney.monthly(price, periodMs: expires - p.start)
                    if MetricsMoney.counts(price), let amount = Int64(exactly: monthly), MetricsMoney.counts(amount) {
                        mrr(amount, currency: currency, p.start, p.coveredUntil, v)
                    } else {
                        event(.pricesExcluded, at: p.start, v)
                    }
                }
                paidCustomer(life.customer, p.start, paidEnd, v)
                paid.append((p.start, paidEnd))
            }
        }
        if let first = firstPaid { cohort(first, paid: paid) }
    }
}

/// Only a subscription's paid periods with its customer: what the roll-up cannot sum for a
/// customer holding several subscriptions (`MetricsTally.paidCustomer` counts it once).
struct PaidCustomerPeriods: MetricsSink {
    struct Period {
        let customer: String
        let start: Int64
        let end: Int64
        let version: TransactionVersion
    }

    private(set) var periods: [Period] = []

    mutating func event(_ flow: MetricsTally.Flow, at ms: Int64, _ v: TransactionVersion) {}
    mutating func span(_ level: MetricsTally.Level, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {}
    mutating func money(_ kind: MetricsMoney, _ amount: Int64, currency: String, at ms: Int64, _ v: TransactionVersion) {}
    mutating func mrr(_ amount: Int64, currency: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {}
    mutating func cohort(_ first: SubscriptionLife.Period, paid: [(Int64, Int64)]) {}
    mutating func paidCustomer(_ customer: String, _ a: Int64, _ b: Int64, _ v: TransactionVersion) {
        periods.append(Period(customer: customer, start: a, end: b, version: v))
    }
}
