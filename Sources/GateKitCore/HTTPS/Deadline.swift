import Glibc
import GateKitSupport

/// One call's deadline on the monotonic clock: every attempt, retry wait and token exchange
/// of the call gets what is left of it.
package struct Deadline: Sendable {
    private let end: UInt64
    package let milliseconds: Int

    package init(milliseconds: Int) {
        self.milliseconds = milliseconds
        end = Clock.monotonicNanoseconds() &+ UInt64(max(milliseconds, 0)) * 1_000_000
    }

    package var remainingMilliseconds: Int {
        let now = Clock.monotonicNanoseconds()
        return now >= end ? 0 : Int((end - now) / 1_000_000)
    }

    /// Sleeps, through signals (EINTR), for a retry's wait.
    package static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
