import Glibc
import GateKitAppStoreSigning
import GateKitJWS
import GateKitHTTPS
import GateKitSupport

/// A client of the App Store Server API (developer.apple.com/documentation/appstoreserverapi):
/// signs each request with a bearer token from the App Store Connect key, sends it over HTTPS,
/// maps Apple's error answers to `APIFailure`, waits out 429 and Apple's retryable errors, and —
/// unless in raw mode — verifies every signed member of an answer before returning it.
/// Safe to share between threads (the token and idle connections are behind locks).
public final class AppStoreServerClient: @unchecked Sendable {
    public struct Options: Sendable {
        /// Production, Sandbox or LocalTesting (Apple's client refuses Xcode too).
        public var environment: AppStoreEnvironment
        /// Another https:// base URL (a stand-in, a proxy); nil: Apple's for the environment.
        public var baseURL: String?
        /// PEM file of the certificate authorities to trust instead of the system's: read once,
        /// when the client is made (`TrustedFile`).
        public var caFile: String?
        /// The whole call, retries and their waits included: each attempt gets what is left.
        public var timeoutMilliseconds = 30_000
        public var connectTimeoutMilliseconds = 10_000
        /// Times a 429 or retryable Apple error is retried (a request that got no answer never is).
        public var maximumRetries = 2
        /// Longest wait before a retry; a longer Retry-After returns the failure instead.
        public var maximumRetryWaitMilliseconds = 30_000
        /// How signed members are verified; nil: raw mode (signed members returned undecoded).
        public var verification: JWSOptions?
        /// The User-Agent header; nil: "gatekit/<version>". A drop-in for another client may
        /// name that client, as Apple's server logs see it.
        public var userAgent: String?

        public init(environment: AppStoreEnvironment) { self.environment = environment }
    }

    /// A successful answer: Apple's body (nil when empty), and with verification the same
    /// document with each signed member replaced by its verified payload.
    public struct Answer: Sendable {
        public let httpStatus: Int
        public let body: String?
        public let decoded: String?
        /// When the server answered, from its `Date` header (Unix ms); nil when it sent none.
        public var serverDate: Int64? = nil
    }

    public enum Outcome: Sendable {
        case success(Answer)
        case failure(APIFailure)
    }

    public static func baseURL(for environment: AppStoreEnvironment) throws(GateKitError) -> String {
        switch environment {
        case .production: return "https://api.storekit.apple.com"
        case .sandbox: return "https://api.storekit-sandbox.apple.com"
        case .localTesting: return "https://local-testing-base-url"
        case .xcode: throw .invalid("Xcode is not an environment of the App Store Server API (Apple's client refuses it too)")
        }
    }

    public let options: Options
    public let baseURL: String
    private let token: APIToken
    private let transport: HTTPSTransport
    /// The server's clock minus this host's, in seconds, once an answer's `Date` showed them
    /// more than a minute apart (0 otherwise): tokens are minted on the server's clock, so a
    /// host whose clock is wrong is not refused for a token "from the future" or expired.
    private let serverOffsetSeconds = Locked<Int64>(0)

    public init(key: SigningKey, options: Options) throws(GateKitError) {
        let apple = try AppStoreServerClient.baseURL(for: options.environment)  // refuses Xcode
        let base = try options.baseURL.map { (url) throws(GateKitError) in try HTTPSURL.checked(url, what: "base_url") } ?? apple
        if let verification = options.verification, verification.environment != options.environment {
            throw .invalid("the verification environment (\(verification.environment.rawValue)) is not the client's (\(options.environment.rawValue))")
        }
        try ClientLimits.check(timeoutMilliseconds: options.timeoutMilliseconds, connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                               maximumRetries: options.maximumRetries, maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds,
                               userAgent: options.userAgent)
        let authorities = try options.caFile.map { (path) throws(GateKitError) in
            try TrustedFile.read(path, limit: AppStoreServerClient.maximumCAFileLength, what: "ca_file")
        }
        self.options = options
        baseURL = base
        token = try APIToken(key: key, lifetime: 300)
        transport = try HTTPSTransport(.init(certificateAuthorities: authorities,
                                             connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                                             userAgent: options.userAgent ?? "gatekit/\(GateKitVersion.text)", errors: .appStore))
    }

    /// A CA bundle (the system's is about 200 KB).
    static let maximumCAFileLength = 4 << 20

    /// Sends one request; an error answer is a `.failure`, everything else that goes wrong throws.
    /// The whole call, retries included, ends by `timeoutMilliseconds`: a retry whose wait
    /// would pass that deadline is not made (the failure is returned).
    /// `verifying: false` returns the body as Apple sent it even when the client verifies (a
    /// caller that verifies each signed member itself, such as the ledger's sync). `timeoutMilliseconds`:
    /// a shorter bound than the client's for this call (a question's time budget).
    public func send(_ endpoint: APIEndpoint, verifying: Bool = true, timeoutMilliseconds: Int? = nil) throws(GateKitError) -> Outcome {
        let deadline = Deadline(milliseconds: min(options.timeoutMilliseconds, max(1, timeoutMilliseconds ?? .max)))
        var url = baseURL + endpoint.path
        if !endpoint.query.isEmpty {
            url += "?" + endpoint.query.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        }
        var offset: Int64 = 0
        let result = try transport.call(APIFailure.self, deadline: deadline, maximumRetries: options.maximumRetries,
                                        maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds, request: { () throws(GateKitError) -> HTTPRequest in
            offset = serverOffsetSeconds.withLock { $0 }
            var headers = ["Authorization: Bearer \(try token.token(now: Clock.nowMilliseconds() / 1000 &+ offset))", "Accept: application/json"]
            if let contentType = endpoint.contentType { headers.append("Content-Type: \(contentType)") }
            return HTTPRequest(method: endpoint.method, url: url, headers: headers, body: endpoint.body)
        }, seen: { (response) -> Bool in
            // Refused for a token on this host's wrong clock: once more on the server's.
            learnServerClock(response.serverDate) != offset && response.status == 401
        })
        switch result {
        case let .answered(response): return .success(try answer(response, verifying: verifying))
        case let .failed(failure): return .failure(failure)
        }
    }

    /// Keeps the server's clock offset from an answer's `Date` (within a minute counts as none);
    /// returns the offset now in force.
    private func learnServerClock(_ serverDate: Int64?) -> Int64 {
        guard let serverDate else { return serverOffsetSeconds.withLock { $0 } }
        let difference = serverDate / 1000 - Clock.nowMilliseconds() / 1000
        let offset = abs(difference) > 60 ? difference : 0
        serverOffsetSeconds.withLock { $0 = offset }
        return offset
    }

    private func answer(_ response: HTTPResponse, verifying: Bool) throws(GateKitError) -> Answer {
        guard !response.body.isEmpty else { return Answer(httpStatus: response.status, body: nil, decoded: nil, serverDate: response.serverDate) }
        let document: JSONValue
        do { document = try JSONParser.parse(response.body) } catch {
            throw GateKitError(.EAPPSTORE_RESPONSE, "HTTP \(response.status) with a body that is not JSON: \(error.message)")
        }
        guard case .object = document else { throw GateKitError(.EAPPSTORE_RESPONSE, "HTTP \(response.status) with a body that is not a JSON object") }
        let body = String(decoding: response.body, as: UTF8.self)
        guard verifying, let verification = options.verification else {
            return Answer(httpStatus: response.status, body: body, decoded: nil, serverDate: response.serverDate)
        }
        let decoded = try SignedMembers.verified(document, options: verification)
        return Answer(httpStatus: response.status, body: body, decoded: JSONWriter.serialize(decoded), serverDate: response.serverDate)
    }

}
