import GateKitSupport

/// What one subscription contributes to the day roll-up as it became known: its rows in the
/// order Apple (or Google) signed them, one step per signing day. A question as of an instant
/// counts only what was signed by then, so the roll-up keeps, besides the sums of everything
/// known (`full`), the steps that changed an earlier day than their own (`late`: a refund signed
/// in March of a February renewal); a question as of day T takes out the steps signed after T
/// that changed days up to T. Steps that change only their own day or later ones need no
/// record: a question as of T never reads a day after T. A question as of an instant inside a
/// day, before anything of the subscription happened or was signed on it, takes out what the
/// day added (`changes`).
struct RollupChain {
    /// A late step's change: signed on `known` (a UTC day), to a sum of an earlier day.
    struct LateKey: Hashable {
        var known: Int64
        var key: DayRollup.Key
    }

    /// The contribution of every row.
    private(set) var full = DayRollup()
    private(set) var late: [LateKey: Int64] = [:]
    /// Every day any step touched, and every day a row was signed on, each with its first and
    /// last instant: a question whose instant falls inside one of them, before the last, takes
    /// out the day's change when the instant is before the first, else counts the
    /// subscription from its rows.
    private(set) var days: [Int64: DayRollup.Instants] = [:]
    /// Per marked day, what it added to the sums of the days up to it, as known at its end, over
    /// the sums of the days before it as known the day before (nonzero entries; no entry for a
    /// day that added nothing).
    private(set) var changes: [Int64: [DayRollup.Key: Int64]] = [:]

    init() {}

    /// The chain of `original`'s `versions`, `renewals` and `payments` (rows of one subscription).
    init(original: String, versions: [TransactionVersion], renewals: [RenewalVersion], payments: PaymentAnswers = PaymentAnswers()) {
        let signingDays = RollupChain.signingDays(versions, renewals, payments)
        for signed in versions.map(\.vouchedMs) + renewals.map(\.vouchedMs) + payments.answeredMs { DayRollup.mark(&days, signed) }
        var previous = DayRollup()
        // Per step, its sums of its own day and later ones ordered by day, and the change it
        // made to the days before its own (its late changes).
        var steps: [(day: Int64, ahead: [(key: DayRollup.Key, value: Int64)], behind: [DayRollup.Key: Int64])] = []
        for known in signingDays {
            let step = RollupChain.contribution(original: original, versions: versions, renewals: renewals, payments: payments,
                                                signedThroughDay: known)
            var ahead: [(key: DayRollup.Key, value: Int64)] = [], behind: [DayRollup.Key: Int64] = [:]
            for (key, value) in step.sums {
                if key.day >= known {
                    if value != 0 { ahead.append((key, value)) }
                    continue
                }
                let change = value &- (previous.sums[key] ?? 0)
                if change != 0 { behind[key, default: 0] &+= change }
            }
            ahead.sort { $0.key.day < $1.key.day }
            for (key, value) in previous.sums where key.day < known && step.sums[key] == nil && value != 0 {
                behind[key, default: 0] &-= value
            }
            for (key, change) in behind { late[LateKey(known: known, key: key), default: 0] &+= change }
            DayRollup.merge(&days, step.days)
            steps.append((known, ahead, behind))
            previous = step
        }
        full = previous
        // A day's change: the step known at its end, its sums of that day, and when the step
        // was signed that day, what it changed of the days before.
        for day in days.keys {
            guard let step = steps.last(where: { $0.day <= day }) else { continue }
            var change = step.day == day ? step.behind : [:]
            var at = step.ahead.partitionIndex { $0.key.day < day }
            while at < step.ahead.count, step.ahead[at].key.day == day {
                change[step.ahead[at].key] = step.ahead[at].value
                at += 1
            }
            if !change.isEmpty { changes[day] = change }
        }
    }

    /// The UTC days rows of a subscription were signed on, oldest first: its steps.
    static func signingDays(_ versions: [TransactionVersion], _ renewals: [RenewalVersion],
                            _ payments: PaymentAnswers = PaymentAnswers()) -> [Int64] {
        Set(versions.map { DayRollup.day($0.vouchedMs) } + renewals.map { DayRollup.day($0.vouchedMs) }
            + payments.answeredMs.map(DayRollup.day)).sorted()
    }

    /// What the rows signed on or before the UTC day `signedThroughDay` contribute, from
    /// everything they say (no as-of instant): what the roll-up holds of the subscription for a
    /// question as of that day.
    static func contribution(original: String, versions: [TransactionVersion], renewals: [RenewalVersion],
                             payments: PaymentAnswers = PaymentAnswers(), signedThroughDay day: Int64 = .max) -> DayRollup {
        var rollup = DayRollup()
        let known = versions.filter { DayRollup.day($0.vouchedMs) <= day }
        guard !known.isEmpty else { return rollup }
        rollup.add(original: original, versions: known, renewals: renewals.filter { DayRollup.day($0.vouchedMs) <= day },
                   payments: payments.signed(throughDay: day), asOf: .max)
        return rollup
    }

    /// This chain's late changes less `other`'s.
    func lateChanges(since other: RollupChain) -> [LateKey: Int64] {
        var changes = late
        for (key, value) in other.late { changes[key, default: 0] &-= value }
        return changes.filter { $0.value != 0 }
    }
}
