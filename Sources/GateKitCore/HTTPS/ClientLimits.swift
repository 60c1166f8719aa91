import GateKitSupport

/// The limits every store API client takes (the App Store's and Play's options share them),
/// checked once, when the client is made, by one rule.
package enum ClientLimits {
    package static func check(timeoutMilliseconds: Int, connectTimeoutMilliseconds: Int, maximumRetries: Int,
                              maximumRetryWaitMilliseconds: Int, userAgent: String?) throws(GateKitError) {
        guard (1...600_000).contains(timeoutMilliseconds), (1...600_000).contains(connectTimeoutMilliseconds) else {
            throw .invalid("timeouts must be 1 ms to 10 minutes")
        }
        guard (0...10).contains(maximumRetries), (0...600_000).contains(maximumRetryWaitMilliseconds) else {
            throw .invalid("max_retries must be 0 to 10 and max_retry_wait_ms 0 to 600000")
        }
        if let agent = userAgent, agent.isEmpty || agent.utf8.count > 256 || agent.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw .invalid("user_agent must be 1 to 256 printable ASCII characters, not \(Quoted.text(agent))")
        }
    }
}
