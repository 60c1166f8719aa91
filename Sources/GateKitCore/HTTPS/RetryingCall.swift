import GateKitSupport

/// A store API's failure answer, as its client reads it: whether the server said it may be
/// retried (429, 5xx, a retryable error code) and the wait it asked for (`Retry-After`).
package protocol RetryableFailure {
    init(_ response: HTTPResponse)
    var isRetryable: Bool { get }
    var retryAfter: Int64? { get }
}

/// What a retried call ended with: a success answer (2xx), or the failure to report.
package enum CallResult<Failure: RetryableFailure> {
    case answered(HTTPResponse)
    case failed(Failure)
}

extension HTTPSTransport {
    /// One API call as both stores' clients make it: the request made afresh for each attempt
    /// (`request`: its credential may change), every attempt and wait inside one deadline,
    /// failures the client's `Failure` says are retryable asked again after `Retry-After` or
    /// 0.5 s, 1 s, 2 s … (`RetryWait`) up to `maximumRetries` times. `seen` reads every answer
    /// (a server's clock in its `Date`) and says whether to ask once more at once, with the
    /// credential the server refused replaced (a 401): honoured once a call. A request that got
    /// no answer throws and is never retried: it may have been done.
    package func call<Failure: RetryableFailure>(_: Failure.Type, deadline: Deadline, maximumRetries: Int, maximumRetryWaitMilliseconds: Int,
                                                 request: () throws(GateKitError) -> HTTPRequest,
                                                 seen: (HTTPResponse) -> Bool) throws(GateKitError) -> CallResult<Failure> {
        var attempt = 0
        var refreshedOnce = false
        while true {
            let next = try request()
            let left = deadline.remainingMilliseconds
            guard left > 0 else {
                throw GateKitError(transportError, "the call's timeout (\(deadline.milliseconds) ms, retries included) passed before an answer")
            }
            let response = try send(next, timeoutMilliseconds: left)
            let again = seen(response)
            if (200..<300).contains(response.status) { return .answered(response) }
            if again, !refreshedOnce {
                refreshedOnce = true
                continue
            }
            let failure = Failure(response)
            if attempt < maximumRetries, failure.isRetryable,
               let wait = RetryWait.milliseconds(retryAfterSeconds: failure.retryAfter, attempt: attempt,
                                                 longest: maximumRetryWaitMilliseconds, deadline: deadline) {
                Deadline.sleep(milliseconds: wait)
                attempt += 1
                continue
            }
            return .failed(failure)
        }
    }
}
