import GateKitCrypto
import GateKitSupport

/// When a failed delivery is tried again, and when GateKit gives up (docs/webhooks.md,
/// "Retries"): waits growing fourfold from 5 s to at most 10 h, each with ±20 % jitter so
/// endpoints recovering together are not hit at once, never sooner than a `Retry-After` the
/// receiver sent; after `giveUpAfterMs` (3 days by default, Stripe's figure) of failing, the
/// delivery is dead, kept with every attempt and replayable.
public struct DeliverySchedule: Sendable {
    public static let firstWaitMs: Int64 = 5_000
    public static let longestWaitMs: Int64 = 10 * 3_600_000
    public static let defaultGiveUpAfterMs: Int64 = 3 * 86_400_000
    public static let defaultDisableAfterMs: Int64 = 5 * 86_400_000

    public var giveUpAfterMs: Int64
    /// An endpoint that has answered nothing but failures for this long is disabled.
    public var disableAfterMs: Int64

    public init(giveUpAfterMs: Int64 = DeliverySchedule.defaultGiveUpAfterMs, disableAfterMs: Int64 = DeliverySchedule.defaultDisableAfterMs) {
        self.giveUpAfterMs = giveUpAfterMs
        self.disableAfterMs = disableAfterMs
    }

    /// The wait after failed attempt number `attempt` (1: the first), before jitter.
    static func baseWait(attempt: Int64) -> Int64 {
        var wait = firstWaitMs
        var n: Int64 = 1
        while n < attempt, wait < longestWaitMs {
            wait = min(wait &* 4, longestWaitMs)
            n += 1
        }
        return wait
    }

    /// The instant of the next attempt after failure number `attempt` at `now`; `retryAfterMs`:
    /// what the receiver asked for (a 429's or 503's Retry-After), honoured up to a day.
    func nextAttempt(after attempt: Int64, now: Int64, retryAfterMs: Int64?) -> Int64 {
        let base = DeliverySchedule.baseWait(attempt: attempt)
        let spread = base / 5
        let random = (try? RandomBytes.make(8)).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } ?? 0
        let jitter = spread > 0 ? Int64(random % UInt64(2 * spread + 1)) - spread : 0
        let asked = min(max(retryAfterMs ?? 0, 0), 86_400_000)
        return now + max(base + jitter, asked)
    }

    /// A span as a person reads it: "5 days", "36 hours", "90 s".
    static func describe(_ ms: Int64) -> String {
        if ms >= 2 * 86_400_000, ms % 86_400_000 == 0 { return "\(ms / 86_400_000) days" }
        if ms >= 2 * 3_600_000 { return "\(ms / 3_600_000) hours" }
        return "\(ms / 1000) s"
    }
}
