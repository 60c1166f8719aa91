import GateKitHTTPS
import GateKitSupport

/// An error answer of the Play Developer API: the HTTP status and what Google's error JSON
/// (`{"error":{"code":…,"message":…,"status":…,"errors":[{"reason":…}]}}`,
/// cloud.google.com/apis/design/errors) says, read whatever the content type; whether it may
/// be retried (429, 408, 409 concurrentUpdate, 5xx) and `Retry-After` when sent.
public struct PlayFailure: Sendable, Equatable, RetryableFailure {
    public let httpStatus: Int
    public let code: Int64?
    public let status: String?
    public let message: String?
    public let reason: String?
    public let retryAfter: Int64?

    public var isRetryable: Bool { [408, 409, 429, 500, 502, 503, 504].contains(httpStatus) }

    /// The OAuth token endpoint's error answer (`{"error":…,"error_description":…}`, RFC 6749 §5.2):
    /// `error` as the reason, the description as the message.
    init(tokenEndpoint response: HTTPResponse) {
        httpStatus = response.status
        retryAfter = response.retryAfter
        let body = try? JSONParser.parse(response.body)
        code = nil
        status = nil
        message = body?["error_description"]?.stringValue.map { String($0.prefix(1024)) }
        reason = body?["error"]?.stringValue
    }

    package init(_ response: HTTPResponse) {
        httpStatus = response.status
        retryAfter = response.retryAfter
        let error = (try? JSONParser.parse(response.body))?["error"]
        code = error?["code"]?.int64Value
        status = error?["status"]?.stringValue
        message = error?["message"]?.stringValue.map { String($0.prefix(1024)) }
        if case let .array(errors)? = error?["errors"] { reason = errors.first?["reason"]?.stringValue } else { reason = nil }
    }

    /// include/gatekit/play.h's error JSON.
    public var json: String {
        func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return JSONWriter.serialize(.object([
            ("httpStatus", .number(httpStatus)), ("code", code.map { .number($0) } ?? .null), ("status", text(status)),
            ("message", text(message)), ("reason", text(reason)), ("retryable", .bool(isRetryable)),
            ("retryAfter", retryAfter.map { .number($0) } ?? .null),
        ]))
    }

    /// The error a call that met this answer throws: GATEKIT_EPLAY_API, this JSON its detail.
    public func error(_ context: String) -> GateKitError {
        GateKitError(.EPLAY_API, "\(context): \(description)", detail: json)
    }

    public var description: String {
        var text = "HTTP \(httpStatus)"
        if let status { text += " \(status)" }
        if let reason { text += " (\(reason))" }
        if let message { text += ": \(Quoted.text(message))" }
        if isRetryable { text += retryAfter.map { " (retryable after \($0) s)" } ?? " (retryable)" }
        return text
    }
}
