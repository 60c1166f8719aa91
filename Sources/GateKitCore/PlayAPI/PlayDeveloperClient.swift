import GateKitPlayData
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

    public init(options: Options) throws(GateKitError) {
        let name = options.packageName
        guard PlayNames.isPackageName(name) else {
            throw .invalid("package_name must be an Android application id (letters, digits, _ and .), not \(Quoted.text(name))")
        }
        try ClientLimits.check(timeoutMilliseconds: options.timeoutMilliseconds, connectTimeoutMilliseconds: options.connectTimeoutMilliseconds,
                               maximumRetries: options.maximumRetries, maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds,
                               userAgent: options.userAgent)
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
        var token = ""
        var refused: String?
        let result = try transport.call(PlayFailure.self, deadline: deadline, maximumRetries: options.maximumRetries,
                                        maximumRetryWaitMilliseconds: options.maximumRetryWaitMilliseconds, request: { () throws(GateKitError) -> HTTPRequest in
            token = try tokens.token(deadline: deadline, refusing: refused)
            var headers = ["Authorization: Bearer \(token)", "Accept: application/json"]
            if endpoint.body != nil { headers.append("Content-Type: application/json") }
            return HTTPRequest(method: endpoint.method, url: url, headers: headers, body: endpoint.body)
        }, seen: { (response) -> Bool in
            // Revoked or expired early: one new token, one more try.
            guard response.status == 401 else { return false }
            refused = token
            return true
        })
        switch result {
        case let .answered(response): return .success(try answer(response, endpoint))
        case let .failed(failure): return .failure(failure)
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
