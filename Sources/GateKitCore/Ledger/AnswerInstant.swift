import GateKitSupport

extension Ledger {
    /// How far after the library's clock an answer's instant may lie (two hosts' clocks).
    static let answerSkewMs: Int64 = 2_000

    /// The instant a store's API answered (nil: now), which dates the versions it gives: an
    /// answer is never from the future, so a forged instant cannot outrank what comes later.
    static func answerInstant(_ answeredMs: Int64?) throws(GateKitError) -> Int64 {
        let now = Clock.nowMilliseconds()
        guard let answered = answeredMs else { return now }
        guard answered > 0 else { throw .invalid("answered_ms must be a Unix instant in milliseconds (0: now), not \(answered)") }
        guard answered <= now &+ answerSkewMs else {
            throw .invalid("answered_ms \(answered) is \(answered &- now) ms after this host's clock: an answer is never from the future")
        }
        return answered
    }
}
