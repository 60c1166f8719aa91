import GateKitCrypto
import GateKitHTTPS
import GateKitSupport

/// A client of Stripe's API (v1) for one account and mode: the secret or restricted key as a
/// Bearer credential, `Stripe-Version` pinned on every request, an idempotency key on every
/// POST (kept across its retries), 409/429/5xx retried with backoff and `Retry-After` inside
/// one deadline (the one retrying HTTPS call), Stripe's error objects as `StripeFailure`, and
/// every answer checked to be a JSON object of the key's mode. Thread-safe.
public final class StripeClient: @unchecked Sendable {
    public struct Options: Sendable {
        /// The key's file, read once when the client is made; or the key itself (exactly one).
        public var apiKeyFile: String?
        public var apiKey: String?
        /// nil: https://api.stripe.com.
        public var baseURL: String?
        public var caFile: String?
        public var timeoutMilliseconds = 30_000
        public var connectTimeoutMilliseconds = 10_000
        /// Stripe's own libraries retry twice.
        public var maximumRetries = 2
        public var maximumRetryWaitMilliseconds = 30_000
        public var userAgent: String?

        public init() {}
    }

    public struct Answer: Sendable {
        public let httpStatus: Int
        /// Stripe's body as sent: one JSON object.
        public let body: [UInt8]
        /// When Stripe answered (its `Date` header, Unix ms), when it sent one.
        public let serverDate: Int64?
    }

    public enum Outcome: Sendable {
        case success(Answer)
        case failure(StripeFailure)
    }

    /// A whole list: its objects and whether `maximumPages` stopped it before the end.
    public enum ListOutcome: Sendable {
        case success(objects: [JSONValue], more: Bool)
        case failure(StripeFailure)
    }

    /// The API version every request asks for (docs/stripe.md says why): a 2025+ version, where
    /// a subscription's period lives on its items, and the one stripe-python 15.3.1 pins, so
    /// answers read as Stripe's own library reads them. Webhook endpoints should be created with
    /// it too (their events are rendered in the endpoint's version).
    public static let apiVersionText: StaticString = "2026-06-24.dahlia"
    public static var apiVersion: String { apiVersionText.description }
    public static let stripeBaseURL = "https://api.stripe.com"
    static let maximumCAFileLength = 4 << 20
    /// Stripe's pages hold at most 100 objects.
    public static let pageLimit = 100
    /// A request's form is a few hundred bytes.
    public static let maximumFormLength = 1 << 20

    public let options: Options
    public let baseURL: String
    public let isTest: Bool
    private let key: StripeAPIKey
    private let transport: HTTPSTransport

    public init(options: Options) throws(GateKitError) {
        try ClientLimits.check(timeoutMilliseconds: options.timeoutMilliseconds, connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                               maximumRetries: options.maximumRetries, maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds,
                               userAgent: options.userAgent)
        key = try StripeAPIKey.named(file: options.apiKeyFile, contents: options.apiKey)
        isTest = key.isTest
        baseURL = try options.baseURL.map { (url) throws(GateKitError) in try HTTPSURL.checked(url, what: "base_url") } ?? StripeClient.stripeBaseURL
        let authorities = try options.caFile.map { (path) throws(GateKitError) in
            try TrustedFile.read(path, limit: StripeClient.maximumCAFileLength, what: "ca_file")
        }
        transport = try HTTPSTransport(HTTPSTransport.Settings(certificateAuthorities: authorities, connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                                                               userAgent: options.userAgent ?? "gatekit/\(GateKitVersion.text)", errors: .stripe))
        self.options = options
    }

    /// `GET path?query`: a path below the API ("/v1/subscriptions/sub_…", its ids checked by
    /// `StripeClient.segment`), the query form-encoded ("expand[]=line_items", `formEncoded`).
    public func get(_ path: String, query: String = "", withinMilliseconds: Int? = nil) throws(GateKitError) -> Outcome {
        try send("GET", path, query: query, form: nil, withinMilliseconds: withinMilliseconds)
    }

    /// `POST path` with a form body (Stripe's v1 requests are form-encoded, `a[b]=c`), under a
    /// fresh idempotency key that every retry of this call repeats.
    public func post(_ path: String, form: String) throws(GateKitError) -> Outcome {
        try send("POST", path, query: "", form: form, withinMilliseconds: nil)
    }

    /// Every page of a list (`limit=100`, `starting_after` the last object's id, while
    /// `has_more`), at most `maximumPages` of them: the objects, and whether more were left.
    public func list(_ path: String, query: String = "", maximumPages: Int) throws(GateKitError) -> ListOutcome {
        guard (1...10_000).contains(maximumPages) else { throw .invalid("max_pages must be 1 to 10000, not \(maximumPages)") }
        guard !query.split(separator: "&").contains(where: { $0.hasPrefix("limit=") || $0.hasPrefix("starting_after=") }) else {
            throw .invalid("query names limit or starting_after: the list sets them, page by page")
        }
        var objects: [JSONValue] = []
        var after: String?
        for _ in 0..<maximumPages {
            var q = StripeClient.formEncoded([("limit", String(StripeClient.pageLimit))] + (after.map { [("starting_after", $0)] } ?? []))
            if !query.isEmpty { q = query + "&" + q }
            switch try get(path, query: q) {
            case let .failure(failure): return .failure(failure)
            case let .success(answer):
                let page = try StripeClient.page(answer.body)
                objects += page.data
                guard page.hasMore else { return .success(objects: objects, more: false) }
                guard let last = page.data.last?["id"]?.stringValue, last != after else {
                    throw GateKitError(.ESTRIPE_RESPONSE, "a page of \(path) says has_more but ends without a new object id to go on from")
                }
                after = last
            }
        }
        return .success(objects: objects, more: true)
    }

    /// One id as a path segment: Stripe's ids are at most 255 letters, digits and underscores.
    public static func segment(_ id: String, _ name: String) throws(GateKitError) -> String {
        guard (1...255).contains(id.utf8.count), id.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 < 0x80 && Character(Unicode.Scalar($0)).isLetter) || ($0 >= 0x30 && $0 <= 0x39) }) else {
            throw .invalid("\(name) must be a Stripe id (1 to 255 letters, digits and _), not \(Quoted.text(id))")
        }
        return id
    }

    private static func page(_ body: [UInt8]) throws(GateKitError) -> (data: [JSONValue], hasMore: Bool) {
        let document: JSONValue
        do { document = try JSONParser.parse(body) } catch { throw GateKitError(.ESTRIPE_RESPONSE, "a list page is not JSON: \(error.message)") }
        guard document["object"]?.stringValue == "list", case let .array(data)? = document["data"], let more = document["has_more"]?.boolValue else {
            throw GateKitError(.ESTRIPE_RESPONSE, "a list page is not Stripe's list object ({\"object\":\"list\",\"data\":[…],\"has_more\":…})")
        }
        return (data, more)
    }

    private func send(_ method: String, _ path: String, query: String, form: String?,
                      withinMilliseconds: Int?) throws(GateKitError) -> Outcome {
        guard path.hasPrefix("/v1/"), !path.contains("?"), !path.contains("#"), !Text.contains(path, ".."),
              !path.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .invalid("path must be below /v1/ without a query, spaces or \"..\", not \(Quoted.text(path))")
        }
        for (name, text) in [("query", query), ("form", form ?? "")] where text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }) {
            throw .invalid("\(name) must be form-encoded (a=b&c%5Bd%5D=e: printable ASCII, no spaces or #)")
        }
        guard (form?.utf8.count ?? 0) <= StripeClient.maximumFormLength else { throw GateKitError(.ETOOLARGE, "form is over \(StripeClient.maximumFormLength) bytes") }
        let deadline = Deadline(milliseconds: min(options.timeoutMilliseconds, max(1, withinMilliseconds ?? .max)))
        var url = baseURL + path
        if !query.isEmpty { url += "?" + query }
        var headers = ["Authorization: Bearer \(key.secret)", "Stripe-Version: \(StripeClient.apiVersion)", "Accept: application/json"]
        var body: [UInt8]?
        if let form {
            // One key for the call, so a retry after a 409 or 5xx is the same request to Stripe.
            headers.append("Idempotency-Key: gatekit-\(Hex.encode(try RandomBytes.make(16)))")
            headers.append("Content-Type: application/x-www-form-urlencoded")
            body = Array(form.utf8)
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body)
        let result = try transport.call(StripeFailure.self, deadline: deadline, maximumRetries: options.maximumRetries,
                                        maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds,
                                        request: { () throws(GateKitError) -> HTTPRequest in request }, seen: { _ in false })
        switch result {
        case let .answered(response): return .success(try answer(response))
        case let .failed(failure): return .failure(failure)
        }
    }

    /// Stripe answers one JSON object; one of the other mode than the key's is refused (a
    /// stand-in or proxy mixing live and test data).
    private func answer(_ response: HTTPResponse) throws(GateKitError) -> Answer {
        let document: JSONValue
        do { document = try JSONParser.parse(response.body) } catch {
            throw GateKitError(.ESTRIPE_RESPONSE, "HTTP \(response.status) with a body that is not JSON: \(error.message)")
        }
        guard case .object = document else { throw GateKitError(.ESTRIPE_RESPONSE, "HTTP \(response.status) with a body that is not a JSON object") }
        if let live = document["livemode"]?.boolValue, live == isTest {
            throw GateKitError(.ESTRIPE_RESPONSE, "a \(live ? "live" : "test-mode") answer to a \(isTest ? "test" : "live") key: refused, test and live data never mix")
        }
        return Answer(httpStatus: response.status, body: response.body, serverDate: response.serverDate)
    }

    /// `application/x-www-form-urlencoded`, each name and value percent-encoded (`expand[]`
    /// keeps its brackets encoded, as Stripe accepts).
    public static func formEncoded(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }
}
