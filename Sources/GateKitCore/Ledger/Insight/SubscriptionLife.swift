/// One auto-renewable subscription (an original transaction id) as the metrics see it: its
/// periods in order, how each began and how access ended, from the versions Apple had signed by
/// the instant asked (docs/ledger.md, "Metrics", defines every term used here).
struct SubscriptionLife {
    enum Start: Equatable {
        /// The subscription's first period: paid, or a free trial.
        case new, newTrial
        /// A paid period right after a trial.
        case conversion
        /// A paid period starting by the previous one's expiry.
        case renewal
        /// A period after the previous one expired while Apple was retrying the payment (in
        /// the grace period or after it).
        case recovery
        /// A period after the previous one lapsed with no retry: the customer came back.
        case reactivation
        /// A period replacing the previous one before its expiry (upgrade or crossgrade).
        case productChange
    }

    enum Cause: String {
        case voluntary, billing, other
    }

    enum End: Equatable {
        /// Access lapsed at `at` (expiry, or the grace period's end).
        case expired(Cause)
        /// Refunded (Apple revoked it with a refund): its price leaves the revenue.
        case refunded
        /// Family Sharing access revoked.
        case revoked
    }

    struct Period {
        let version: TransactionVersion
        let trial: Bool
        let start: Int64
        /// Access from this period's payment (or trial) ends: expiry, a revocation, or the
        /// next period's start when that is earlier (an upgrade).
        let coveredUntil: Int64
        /// Billing grace: access past expiry while Apple retries, until this instant.
        let graceUntil: Int64?
        /// Billing retry without access, until this instant (recovery, the retry's end, or 60 days).
        let retryUntil: Int64?
        let began: Start
        /// How and when access ended; nil while it has not (or continued into the next period).
        let end: (End, at: Int64)?
    }

    let original: String
    /// The customer paid subscribers are counted by: the newest version's app account token,
    /// else the original transaction id.
    let customer: String
    let familyShared: Bool
    let periods: [Period]

    /// Apple retries a failed renewal for up to 60 days.
    static let retryWindow: Int64 = 60 * 86_400_000

    /// Each transaction's newest version among `versions` (as entitlement answers pick it).
    static func newest(_ versions: [TransactionVersion]) -> [TransactionVersion] {
        var newest: [String: TransactionVersion] = [:]
        for v in versions {
            if let held = newest[v.transactionID], !v.isNewer(than: held) { continue }
            newest[v.transactionID] = v
        }
        return Array(newest.values)
    }

    /// `newest`: each transaction's newest version signed by `asOf` (`newest(_:)`);
    /// `renewals`: the original's renewal versions signed by `asOf`, oldest first. Nil when it
    /// has no auto-renewable period.
    init?(original: String, newest: [TransactionVersion], renewals: [RenewalVersion], asOf: Int64) {
        let ordered = SubscriptionLife.periods(newest).compactMap { (start, v) -> (Int64, Int64, TransactionVersion)? in
            // Periods inside the calendar the metrics count (1970 to 9999): no sum of signed
            // dates below can overflow, whatever a payload says.
            guard v.productType == .autoRenewable, let start, let expires = v.expiresMs, start >= 0, expires > start,
                  expires <= MetricsCalendar.latest else { return nil }
            return (start, expires, v)
        }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.2.transactionID < $1.2.transactionID }
        guard let first = ordered.first?.2 else { return nil }
        let latest = ordered.reduce(first) { $1.2.isNewer(than: $0) ? $1.2 : $0 }
        self.original = original
        customer = latest.appAccountToken?.lowercased() ?? original
        familyShared = latest.familyShared
        var periods: [Period] = []
        for (index, (start, expires, v)) in ordered.enumerated() {
            let next = index + 1 < ordered.count ? ordered[index + 1].0 : nil
            let revoked = v.revocationMs
            let familyRevoke = revoked != nil && (v.familyShared || v.sale.refund == .familyRevoked)
            // Renewal infos of this period: signed from its start until the next one's.
            let own = renewals.filter { r in r.vouchedMs >= start && (next.map { r.vouchedMs < $0 } ?? true) }
            let retried = own.contains { $0.isInBillingRetryPeriod }
            var coveredUntil = min(expires, revoked ?? .max)
            if let next, next > start { coveredUntil = min(coveredUntil, next) }
            var graceUntil: Int64?
            if revoked == nil, let grace = own.filter({ $0.isInBillingRetryPeriod }).compactMap({ $0.gracePeriodExpiresMs }).max(), grace > expires {
                graceUntil = min(grace, next ?? .max)
            }
            let lapse = graceUntil ?? expires
            var retryUntil: Int64?
            if revoked == nil, retried, next.map({ $0 > lapse }) ?? true {
                let cleared = own.first { !$0.isInBillingRetryPeriod && $0.vouchedMs > lapse }?.vouchedMs
                retryUntil = min(next ?? .max, cleared ?? .max, expires + SubscriptionLife.retryWindow)
                if let until = retryUntil, until <= lapse { retryUntil = nil }
            }
            let trial = v.sale.trial ?? (v.offer == .introductory && v.sale.price == nil)
            let began: Start
            if let previous = periods.last {
                let previousLapse = previous.graceUntil ?? previous.version.expiresMs ?? start
                if trial {
                    began = .newTrial
                } else if previous.version.isUpgraded || (start < (previous.version.expiresMs ?? start) && v.productID != previous.version.productID) {
                    began = .productChange
                } else if start <= (previous.version.expiresMs ?? start) {
                    began = previous.trial ? .conversion : .renewal
                } else if start <= previousLapse || previous.retryUntil != nil {
                    began = previous.trial ? .conversion : .recovery
                } else {
                    began = .reactivation
                }
            } else if v.replaces != nil {
                began = .productChange  // a Play token that replaced another: the same subscriber goes on
            } else {
                began = trial ? .newTrial : .new
            }
            var end: (End, at: Int64)?
            if let revoked, !v.isUpgraded {
                end = (familyRevoke ? .revoked : .refunded, revoked)
            } else if !v.isUpgraded, next.map({ $0 > lapse }) ?? true, lapse <= asOf {
                end = (.expired(SubscriptionLife.cause(own)), lapse)
            }
            periods.append(Period(version: v, trial: trial, start: start, coveredUntil: coveredUntil, graceUntil: graceUntil,
                                  retryUntil: retryUntil, began: began, end: end))
        }
        self.periods = periods
    }

    /// Each version with the start of the period it paid for. Apple signs each period's
    /// purchase date; Google answers a subscription's start, not each order's: a Play order's
    /// period begins where the token's previous order (by expiry) ended.
    static func periods(_ versions: [TransactionVersion]) -> [(Int64?, TransactionVersion)] {
        guard versions.contains(where: { $0.store.rules.periodsFollowEachOther }) else { return versions.map { ($0.purchaseMs, $0) } }
        let byExpiry = versions.sorted { ($0.expiresMs ?? .min, $0.transactionID) < ($1.expiresMs ?? .min, $1.transactionID) }
        var previousEnd: Int64?
        return byExpiry.map { v in
            defer { if let e = v.expiresMs { previousEnd = max(previousEnd ?? e, e) } }
            guard let start = v.purchaseMs else { return (nil, v) }
            return (max(start, previousEnd ?? start), v)
        }
    }

    /// Why access lapsed: the newest expiration cause the store signed for the period (a
    /// cancellation or a declined price increase is the customer's choice), else billing when
    /// the store was retrying the payment.
    static func cause(_ renewals: [RenewalVersion]) -> Cause {
        guard let cause = renewals.last(where: { $0.expirationCause != nil })?.expirationCause else {
            return renewals.contains { $0.isInBillingRetryPeriod } ? .billing : .other
        }
        return cause.isCustomersChoice ? .voluntary : cause == .billingError ? .billing : .other
    }
}
