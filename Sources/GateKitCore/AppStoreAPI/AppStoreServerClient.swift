import Glibc

/// A client of the App Store Server API (developer.apple.com/documentation/appstoreserverapi):
/// signs each request with a bearer token from the App Store Connect key, sends it over HTTPS,
/// maps Apple's error answers to `APIFailure`, waits out 429 and Apple's retryable errors, and —
/// unless in raw mode — verifies every signed member of an answer before returning it.
/// Safe to share between threads (the token and idle connections are behind locks).
public final class AppStoreServerClient: @unchecked Sendable {
    public struct Options: Sendable {
        /// Production, Sandbox or LocalTesting (Apple's client refuses Xcode too).
        public var environment: JWSEnvironment
        /// Another https:// base URL (a stand-in, a proxy); nil: Apple's for the environment.
        public var baseURL: String?
        /// PEM file of the certificate authorities to trust instead of the system's.
        public var caFile: String?
        public var timeoutMilliseconds = 30_000
        public var connectTimeoutMilliseconds = 10_000
        /// Times a 429 or retryable Apple error is retried (a request that got no answer never is).
        public var maximumRetries = 2
        /// Longest wait before a retry; a longer Retry-After returns the failure instead.
        public var maximumRetryWaitMilliseconds = 30_000
        /// How signed members are verified; nil: raw mode (signed members returned undecoded).
        public var verification: JWSOptions?

        public init(environment: JWSEnvironment) { self.environment = environment }
    }

    /// A successful answer: Apple's body (nil when empty), and with verification the same
    /// document with each signed member replaced by its verified payload.
    public struct Answer: Sendable {
        public let httpStatus: Int
        public let body: String?
        public let decoded: String?
    }

    public enum Outcome: Sendable {
        case success(Answer)
        case failure(APIFailure)
    }

    public static func baseURL(for environment: JWSEnvironment) throws(GateKitError) -> String {
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

    public init(key: SigningKey, options: Options) throws(GateKitError) {
        let apple = try AppStoreServerClient.baseURL(for: options.environment)  // refuses Xcode
        let base = try options.baseURL.map(AppStoreServerClient.checkedBaseURL) ?? apple
        if let verification = options.verification, verification.environment != options.environment {
            throw .invalid("the verification environment (\(verification.environment.rawValue)) is not the client's (\(options.environment.rawValue))")
        }
        guard (1...600_000).contains(options.timeoutMilliseconds), (1...600_000).contains(options.connectTimeoutMilliseconds) else {
            throw .invalid("timeouts must be 1 ms to 10 minutes")
        }
        guard (0...10).contains(options.maximumRetries), (0...600_000).contains(options.maximumRetryWaitMilliseconds) else {
            throw .invalid("max_retries must be 0 to 10 and max_retry_wait_ms 0 to 600000")
        }
        if let caFile = options.caFile { try AppStoreServerClient.checkTrustFile(caFile) }
        self.options = options
        baseURL = base
        token = try APIToken(key: key, lifetime: 300)
        transport = try HTTPSTransport(.init(caFile: options.caFile, timeoutMilliseconds: options.timeoutMilliseconds,
                                             connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                                             userAgent: "gatekit/\(GateKitVersion.text)"))
    }

    /// Sends one request; an error answer is a `.failure`, everything else that goes wrong throws.
    public func send(_ endpoint: APIEndpoint) throws(GateKitError) -> Outcome {
        var url = baseURL + endpoint.path
        if !endpoint.query.isEmpty {
            url += "?" + endpoint.query.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        }
        var attempt = 0
        while true {
            var headers = ["Authorization: Bearer \(try token.token())", "Accept: application/json"]
            if let contentType = endpoint.contentType { headers.append("Content-Type: \(contentType)") }
            let response = try transport.send(HTTPRequest(method: endpoint.method, url: url, headers: headers, body: endpoint.body))
            if (200..<300).contains(response.status) { return .success(try answer(response)) }
            let failure = APIFailure(response)
            if attempt < options.maximumRetries, failure.isRetryable {
                let wait = failure.retryAfter.map { $0 > Int64(Int.max / 1000) ? Int.max : Int($0) * 1000 } ?? (500 << attempt)
                if wait <= options.maximumRetryWaitMilliseconds {
                    AppStoreServerClient.sleep(milliseconds: wait)
                    attempt += 1
                    continue
                }
            }
            return .failure(failure)
        }
    }

    private func answer(_ response: HTTPResponse) throws(GateKitError) -> Answer {
        guard !response.body.isEmpty else { return Answer(httpStatus: response.status, body: nil, decoded: nil) }
        let document: JSONValue
        do { document = try JSONParser.parse(response.body) } catch {
            throw GateKitError(.appStoreResponse, "HTTP \(response.status) with a body that is not JSON: \(error.message)")
        }
        guard case .object = document else { throw GateKitError(.appStoreResponse, "HTTP \(response.status) with a body that is not a JSON object") }
        let body = String(decoding: response.body, as: UTF8.self)
        guard let verification = options.verification else { return Answer(httpStatus: response.status, body: body, decoded: nil) }
        let decoded = try SignedMembers.verified(document, options: verification)
        return Answer(httpStatus: response.status, body: body, decoded: JSONWriter.serialize(decoded))
    }

    private static func checkedBaseURL(_ url: String) throws(GateKitError) -> String {
        guard url.hasPrefix("https://"), url.count > 8, !url.contains("?"), !url.contains("#"),
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalid("base_url must be an https:// URL without query, fragment or spaces, not \(Quoted.text(url))")
        }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// The trust file decides which servers are believed: it must be a regular file that no
    /// other user can write (owned by this user or root, not group- or world-writable).
    private static func checkTrustFile(_ path: String) throws(GateKitError) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let e = errno
            throw GateKitError(e == ENOENT || e == ENOTDIR ? .notFound : .io, "ca_file \(Quoted.path(path)): \(String(cString: strerror(e)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw GateKitError.io("ca_file \(Quoted.path(path)) is not a regular file (a symbolic link or folder is refused)") }
        guard st.st_uid == geteuid() || st.st_uid == 0, st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw GateKitError(.unsafeStore, "ca_file \(Quoted.path(path)) can be written by another user, so it cannot decide whom to trust")
        }
        guard access(path, R_OK) == 0 else { throw GateKitError.io("ca_file \(Quoted.path(path)) is not readable") }
    }

    private static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
