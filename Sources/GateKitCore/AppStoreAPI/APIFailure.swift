import GateKitHTTPS
import GateKitSupport

/// An error answer of the App Store Server API: the HTTP status, Apple's numeric error code and
/// message when the body carries them (developer.apple.com/documentation/appstoreserverapi/error_codes),
/// whether Apple calls the error retryable, and `Retry-After` in seconds when sent.
public struct APIFailure: Sendable, Equatable, RetryableFailure {
    public let httpStatus: Int
    public let errorCode: Int64?
    public let errorMessage: String?
    public let retryAfter: Int64?

    /// The codes whose name in Apple's documentation ends in "Retryable", and the rate limit.
    public static let retryableCodes: Set<Int64> = [4040002, 4040004, 4040006, 5000001, 4290000]

    /// Apple's errors can be retried later: its "…Retryable" codes, and 429 (after Retry-After).
    public var isRetryable: Bool { httpStatus == 429 || errorCode.map(APIFailure.retryableCodes.contains) == true }

    /// Reads an error answer as Apple's libraries do: a JSON body with `errorCode` and
    /// `errorMessage` when its content type is application/json; the status alone otherwise.
    package init(_ response: HTTPResponse) {
        httpStatus = response.status
        retryAfter = response.retryAfter
        var code: Int64?
        var message: String?
        if response.contentType?.lowercased().hasPrefix("application/json") == true, let body = try? JSONParser.parse(response.body) {
            code = body["errorCode"]?.int64Value
            message = body["errorMessage"]?.stringValue
        }
        errorCode = code
        errorMessage = message
    }

    /// `{"httpStatus":…,"errorCode":…,"errorMessage":…,"retryable":…,"retryAfter":…}`.
    public var json: String {
        JSONWriter.serialize(.object([
            ("httpStatus", .number(httpStatus)),
            ("errorCode", errorCode.map { .number($0) } ?? .null),
            ("errorMessage", errorMessage.map { .string($0) } ?? .null),
            ("retryable", .bool(isRetryable)),
            ("retryAfter", retryAfter.map { .number($0) } ?? .null),
        ]))
    }

    public var description: String {
        var text = "HTTP \(httpStatus)"
        if let errorCode { text += ", Apple error \(errorCode)" }
        if let errorMessage { text += ": \(Quoted.text(errorMessage))" }
        if isRetryable { text += retryAfter.map { " (retryable after \($0) s)" } ?? " (retryable)" }
        return text
    }
}
