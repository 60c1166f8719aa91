/// What one subscription contributes to the day roll-up as it became known: its rows in the
/// order Apple (or Google) signed them, one step per signing day. A question as of an instant
/// counts only what was signed by then, so the roll-up keeps, besides the sums of everything
/// known (`full`), the steps that changed an earlier day than their own (`late`: a refund signed
/// in March of a February renewal); a question as of day T takes out the steps signed after T
/// that changed days up to T. Steps that change only their own day or later ones need no
/// record: a question as of T never reads a day after T.
struct RollupChain {
    /// A late step's change: signed on `known` (a UTC day), to a sum of an earlier day.
    struct LateKey: Hashable {
        var known: Int64
        var key: DayRollup.Key
    }

    /// The contribution of every row.
    private(set) var full = DayRollup()
    private(set) var late: [LateKey: Int64] = [:]
    /// Every day any step touched, and every day a row was signed on, each with its latest
    /// instant: a question whose instant falls inside one of them, before that latest instant,
    /// counts the subscription from its rows instead.
    private(set) var days: [Int64: Int64] = [:]

    init() {}

    /// The chain of `original`'s `versions` and `renewals` (rows of one subscription).
    init(original: String, versions: [TransactionVersion], renewals: [RenewalVersion]) {
        let signingDays = RollupChain.signingDays(versions, renewals)
        for signed in versions.map(\.signedMs) + renewals.map(\.signedMs) { DayRollup.mark(&days, signed) }
        var previous = DayRollup()
        for known in signingDays {
            let step = RollupChain.contribution(original: original, versions: versions, renewals: renewals, signedThroughDay: known)
            for (key, value) in step.sums where key.day < known {
                let change = value &- (previous.sums[key] ?? 0)
                if change != 0 { late[LateKey(known: known, key: key), default: 0] &+= change }
            }
            for (key, value) in previous.sums where key.day < known && step.sums[key] == nil && value != 0 {
                late[LateKey(known: known, key: key), default: 0] &-= value
            }
            DayRollup.merge(&days, step.days)
            previous = step
        }
        full = previous
    }

    /// The UTC days rows of a subscription were signed on, oldest first: its steps.
    static func signingDays(_ versions: [TransactionVersion], _ renewals: [RenewalVersion]) -> [Int64] {
        Set(versions.map { DayRollup.day($0.signedMs) } + renewals.map { DayRollup.day($0.signedMs) }).sorted()
    }

    /// What the rows signed on or before the UTC day `signedThroughDay` contribute, from
    /// everything they say (no as-of instant): what the roll-up holds of the subscription for a
    /// question as of that day.
    static func contribution(original: String, versions: [TransactionVersion], renewals: [RenewalVersion],
                             signedThroughDay day: Int64 = .max) -> DayRollup {
        var rollup = DayRollup()
        let known = versions.filter { DayRollup.day($0.signedMs) <= day }
        guard !known.isEmpty else { return rollup }
        rollup.add(original: original, versions: known, renewals: renewals.filter { DayRollup.day($0.signedMs) <= day }, asOf: .max)
        return rollup
    }

    /// This chain's late changes less `other`'s.
    func lateChanges(since other: RollupChain) -> [LateKey: Int64] {
        var changes = late
        for (key, value) in other.late { changes[key, default: 0] &-= value }
        return changes.filter { $0.value != 0 }
    }
}
