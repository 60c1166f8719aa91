import GateKitHTTPS
import GateKitSupport

/// A client of the Play Developer API (Android Publisher v3) for one app: authenticates as a
/// service account (AccessTokens), sends each endpoint's request over HTTPS, maps Google's
/// error answers to `PlayFailure`, retries 429/408/409/5xx with backoff inside one deadline,
/// and fetches a new access token once when the API answers 401. Thread-safe.
public final class PlayDeveloperClient: @unchecked Sendable {
    public struct Options: Sendable {
        public var packageName: String
        /// The service account's JSON key file, read once when the client is made; or its
        /// contents; neither: the file GOOGLE_APPLICATION_CREDENTIALS names (`ServiceAccountKey.named`).
        public var serviceAccountFile: String?
        public var serviceAccountJSON: [UInt8]?
        /// Tokens from the machine's metadata server (`MetadataServer`) instead of a key.
        public var metadataServer = false
        /// nil: https://androidpublisher.googleapis.com.
        public var baseURL: String?
        public var caFile: String?
        public var timeoutMilliseconds = 30_000
        public var connectTimeoutMilliseconds = 10_000
        public var maximumRetries = 3
        public var maximumRetryWaitMilliseconds = 30_000
        public var userAgent: String?

        public init(packageName: String, serviceAccountFile: String?) {
            self.packageName = packageName
            self.serviceAccountFile = serviceAccountFile
        }
    }

    public struct Answer: Sendable {
        public let httpStatus: Int
        /// Google's body; nil when the answer had none.
        public let body: String?
        /// When Google answered (its `Date` header, Unix ms), when it sent one.
        public var serverDate: Int64? = nil
    }

    public enum Outcome: Sendable {
        case success(Answer)
        case failure(PlayFailure)
    }

    public static let googleBaseURL = "https://androidpublisher.googleapis.com"
    static let maximumCAFileLength = 4 << 20

    public let options: Options
    public let baseURL: String
    private let tokens: AccessTokens
    private let transport: HTTPSTransport
    private let prefix: String

    /// An Android application id: 1 to 255 letters, digits, _ and . (what Play names an app by).
    package static func isPackageName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.utf8.allSatisfy {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
        }
    }

    public init(options: Options) throws(GateKitError) {
        let name = options.packageName
        guard PlayDeveloperClient.isPackageName(name) else {
            throw .invalid("package_name must be an Android application id (letters, digits, _ and .), not \(Quoted.text(name))")
        }
        guard (1...600_000).contains(options.timeoutMilliseconds), (1...600_000).contains(options.connectTimeoutMilliseconds) else {
            throw .invalid("timeouts must be 1 ms to 10 minutes")
        }
        guard (0...10).contains(options.maximumRetries), (0...600_000).contains(options.maximumRetryWaitMilliseconds) else {
            throw .invalid("max_retries must be 0 to 10 and max_retry_wait_ms 0 to 600000")
        }
        if let agent = options.userAgent, agent.isEmpty || agent.utf8.count > 256 || agent.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw .invalid("user_agent must be 1 to 256 printable ASCII characters, not \(Quoted.text(agent))")
        }
        baseURL = try options.baseURL.map { (url) throws(GateKitError) in try HTTPSURL.checked(url, what: "base_url") } ?? PlayDeveloperClient.googleBaseURL
        let authorities = try options.caFile.map { (path) throws(GateKitError) in
            try TrustedFile.read(path, limit: PlayDeveloperClient.maximumCAFileLength, what: "ca_file")
        }
        var settings = HTTPSTransport.Settings(certificateAuthorities: authorities, connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                                               userAgent: options.userAgent ?? "gatekit/\(GateKitVersion.text)", errors: .play)
        transport = try HTTPSTransport(settings)
        let source: AccessTokens.Source
        let tokenTransport: HTTPSTransport
        if options.metadataServer {
            guard options.serviceAccountFile == nil, options.serviceAccountJSON == nil else {
                throw .invalid("metadata_server takes no key: clear service_account_file and service_account_json")
            }
            source = .metadataServer(try MetadataServer.fromEnvironment())
            settings.plainHTTP = true
            tokenTransport = try HTTPSTransport(settings)
        } else {
            source = .serviceAccount(try ServiceAccountKey.named(file: options.serviceAccountFile, contents: options.serviceAccountJSON))
            tokenTransport = transport
        }
        tokens = AccessTokens(source: source, transport: tokenTransport, maximumRetries: options.maximumRetries,
                              maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds)
        prefix = baseURL + "/androidpublisher/v3/applications/" + PercentEncoding.encode(name)
        self.options = options
    }

    /// Sends one request; an error answer is a `.failure`, everything else that goes wrong throws.
    /// `withinMilliseconds`: a shorter deadline than the client's timeout (a question's budget).
    public func send(_ endpoint: PlayEndpoint, withinMilliseconds: Int? = nil) throws(GateKitError) -> Outcome {
        let deadline = Deadline(milliseconds: min(options.timeoutMilliseconds, max(1, withinMilliseconds ?? .max)))
        var url = prefix + endpoint.path
        if !endpoint.query.isEmpty {
            url += "?" + endpoint.query.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        }
        var attempt = 0
        var refused: String?
        while true {
            let token = try tokens.token(deadline: deadline, refusing: refused)
            var headers = ["Authorization: Bearer \(token)", "Accept: application/json"]
            if endpoint.body != nil { headers.append("Content-Type: application/json") }
            let left = deadline.remainingMilliseconds
            guard left > 0 else { throw GateKitError(.EPLAY_TRANSPORT, "the call's timeout (\(deadline.milliseconds) ms, retries included) passed before an answer") }
            let response = try transport.send(HTTPRequest(method: endpoint.method, url: url, headers: headers, body: endpoint.body),
                                               timeoutMilliseconds: left)
            if (200..<300).contains(response.status) { return .success(try answer(response, endpoint)) }
            if response.status == 401, refused == nil {
                refused = token  // revoked or expired early: one new token, one more try
                continue
            }
            let failure = PlayFailure(response)
            if attempt < options.maximumRetries, failure.isRetryable,
               let wait = RetryWait.milliseconds(retryAfterSeconds: failure.retryAfter, attempt: attempt,
                                                 longest: options.maximumRetryWaitMilliseconds, deadline: deadline) {
                Deadline.sleep(milliseconds: wait)
                attempt += 1
                continue
            }
            return .failure(failure)
        }
    }

    private func answer(_ response: HTTPResponse, _ endpoint: PlayEndpoint) throws(GateKitError) -> Answer {
        guard !response.body.isEmpty else {
            if endpoint.answersWithBody { throw GateKitError(.EPLAY_RESPONSE, "HTTP \(response.status) with an empty body where Google sends a resource") }
            return Answer(httpStatus: response.status, body: nil, serverDate: response.serverDate)
        }
        let document: JSONValue
        do { document = try JSONParser.parse(response.body) } catch {
            throw GateKitError(.EPLAY_RESPONSE, "HTTP \(response.status) with a body that is not JSON: \(error.message)")
        }
        guard case .object = document else { throw GateKitError(.EPLAY_RESPONSE, "HTTP \(response.status) with a body that is not a JSON object") }
        return Answer(httpStatus: response.status, body: String(decoding: response.body, as: UTF8.self), serverDate: response.serverDate)
    }
}
