/// How long a client waits before retrying an answer the server says may be retried: the
/// server's `Retry-After` when it sent one, else 0.5 s, 1 s, 2 s … by attempt. Nil when that
/// wait is longer than the client allows or than what is left of the call's deadline: the
/// failure is returned instead.
package enum RetryWait {
    package static func milliseconds(retryAfterSeconds: Int64?, attempt: Int, longest: Int, deadline: Deadline) -> Int? {
        let wait = retryAfterSeconds.map { $0 > Int64(Int.max / 1000) ? Int.max : Int($0) * 1000 } ?? (500 << min(attempt, 20))
        return wait <= longest && wait < deadline.remainingMilliseconds ? wait : nil
    }
}
