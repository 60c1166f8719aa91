import GateKitHTTPS
import GateKitSupport

/// An error answer of Stripe's API: the HTTP status and what Stripe's error object says
/// (`{"error":{"type":…,"code":…,"decline_code":…,"message":…,"param":…}}`,
/// docs.stripe.com/api/errors); whether it may be retried (409 — an idempotent request in
/// flight —, 429 and 5xx, as Stripe's own libraries retry) and `Retry-After` when sent.
public struct StripeFailure: Sendable, Equatable, RetryableFailure {
    public let httpStatus: Int
    public let type: String?
    public let code: String?
    public let declineCode: String?
    public let message: String?
    public let param: String?
    public let retryAfter: Int64?

    public var isRetryable: Bool { httpStatus == 409 || httpStatus == 429 || httpStatus >= 500 }

    package init(_ response: HTTPResponse) {
        httpStatus = response.status
        retryAfter = response.retryAfter
        let error = (try? JSONParser.parse(response.body))?["error"]
        func text(_ name: String) -> String? { error?[name]?.stringValue.map { String($0.prefix(1024)) } }
        type = text("type")
        code = text("code")
        declineCode = text("decline_code")
        message = text("message")
        param = text("param")
    }

    /// include/gatekit/stripe.h's error JSON.
    public var json: String {
        func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return JSONWriter.serialize(.object([
            ("httpStatus", .number(httpStatus)), ("type", text(type)), ("code", text(code)), ("declineCode", text(declineCode)),
            ("message", text(message)), ("param", text(param)), ("retryable", .bool(isRetryable)),
            ("retryAfter", retryAfter.map { .number($0) } ?? .null),
        ]))
    }

    public var description: String {
        var text = "HTTP \(httpStatus)"
        if let type { text += " \(type)" }
        if let code { text += " (\(code))" }
        if let message { text += ": \(Quoted.text(message))" }
        if isRetryable { text += retryAfter.map { " (retryable after \($0) s)" } ?? " (retryable)" }
        return text
    }
}
