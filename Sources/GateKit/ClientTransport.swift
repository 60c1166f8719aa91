import GateKitAppStoreAPI
import GateKitPlayAPI
import GateKitStripeAPI
import GateKitSupport

/// The transport settings a store's API client takes (its C options struct spells them alike:
/// `base_url`, `ca_file`, `timeout_ms`, `connect_timeout_ms`, `max_retries`,
/// `max_retry_wait_ms`, `user_agent`), read in one place for every client.
protocol ClientTransport {
    var baseURL: String? { get set }
    var caFile: String? { get set }
    var timeoutMilliseconds: Int { get set }
    var connectTimeoutMilliseconds: Int { get set }
    var maximumRetries: Int { get set }
    var maximumRetryWaitMilliseconds: Int { get set }
    var userAgent: String? { get set }
}

extension AppStoreServerClient.Options: ClientTransport {}
extension StripeClient.Options: ClientTransport {}
extension PlayDeveloperClient.Options: ClientTransport {}

/// The C struct's transport members, as `options_init` writes their defaults and `client_new`
/// reads them.
struct CTransport {
    var baseURL: UnsafePointer<CChar>?
    var caFile: UnsafePointer<CChar>?
    var timeoutMs: Int32
    var connectTimeoutMs: Int32
    var maxRetries: Int32
    var maxRetryWaitMs: Int32
    var userAgent: UnsafePointer<CChar>?

    /// The defaults of `core`, for `options_init`.
    init(defaults core: some ClientTransport) {
        timeoutMs = Int32(clamping: core.timeoutMilliseconds)
        connectTimeoutMs = Int32(clamping: core.connectTimeoutMilliseconds)
        maxRetries = Int32(clamping: core.maximumRetries)
        maxRetryWaitMs = Int32(clamping: core.maximumRetryWaitMilliseconds)
    }

    init(baseURL: UnsafePointer<CChar>?, caFile: UnsafePointer<CChar>?, timeoutMs: Int32, connectTimeoutMs: Int32, maxRetries: Int32,
         maxRetryWaitMs: Int32, userAgent: UnsafePointer<CChar>?) {
        self.baseURL = baseURL
        self.caFile = caFile
        self.timeoutMs = timeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.maxRetries = maxRetries
        self.maxRetryWaitMs = maxRetryWaitMs
        self.userAgent = userAgent
    }

    /// Sets `core`'s transport from these members (the client checks their ranges).
    func apply(to core: inout some ClientTransport) throws(GateKitError) {
        core.baseURL = try Arguments.optionalString(baseURL, "options->base_url")
        core.caFile = try Arguments.optionalString(caFile, "options->ca_file")
        core.timeoutMilliseconds = Int(timeoutMs)
        core.connectTimeoutMilliseconds = Int(connectTimeoutMs)
        core.maximumRetries = Int(maxRetries)
        core.maximumRetryWaitMilliseconds = Int(maxRetryWaitMs)
        core.userAgent = try Arguments.optionalString(userAgent, "options->user_agent")
    }
}
