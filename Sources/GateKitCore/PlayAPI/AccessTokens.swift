import GateKitCrypto
import GateKitHTTPS
import GateKitSupport

/// OAuth 2.0 access tokens for a service account, from the machine's metadata server
/// (`MetadataServer`) or, with the account's key (developers.google.com/identity/protocols/
/// oauth2/service-account): a JWT bearer grant signed with the account's key (RS256, scope
/// androidpublisher, one hour, `aud` Google's token endpoint: "when making an access token
/// request this value is always https://oauth2.googleapis.com/token", as google-auth sends it
/// whatever the key's token_uri) exchanged at the key's token URI; the token is kept
/// until a minute before `expires_in` runs out, and dropped when the API refuses it (401).
/// A busy or failing token endpoint (429, 5xx, or Google's `internal_failure`, which
/// google-auth retries too) is asked again as the API is, within the call's deadline.
/// One exchange at a time: threads that need a token while one is fetched wait for it. The
/// token and the exchange's lock are the process's own: a child forked while a parent thread
/// exchanged fetches its own.
final class AccessTokens: @unchecked Sendable {
    static let scope = "https://www.googleapis.com/auth/androidpublisher"
    static let audience = "https://oauth2.googleapis.com/token"
    static let assertionLifetime: Int64 = 3600

    /// Where tokens come from: a service account's key, or the machine's metadata server
    /// (`MetadataServer`: Application Default Credentials without a key file).
    enum Source: Sendable {
        case serviceAccount(ServiceAccountKey)
        case metadataServer(MetadataServer)
    }

    private let source: Source
    private let transport: HTTPSTransport
    private let maximumRetries: Int
    private let maximumRetryWaitMilliseconds: Int
    private struct State {
        var cached: (token: String, refreshAtMs: Int64)?
        /// The token endpoint's clock minus this host's (seconds), once its `Date` showed them
        /// more than a minute apart: an assertion "from the future" or expired is made on its clock.
        var serverOffsetSeconds: Int64 = 0
    }
    private let state = ProcessLocal { State() }

    /// `transport`: HTTPS for a token endpoint; plain HTTP for the metadata server (its own).
    init(source: Source, transport: HTTPSTransport, maximumRetries: Int, maximumRetryWaitMilliseconds: Int) {
        self.source = source
        self.transport = transport
        self.maximumRetries = maximumRetries
        self.maximumRetryWaitMilliseconds = maximumRetryWaitMilliseconds
    }

    /// A token valid now; `refusing` drops a token the API just refused, so a new one is fetched.
    func token(deadline: Deadline, refusing refused: String? = nil) throws(GateKitError) -> String {
        // Waiting for another thread's exchange counts against this call's deadline too.
        let token = try state.withLock(waitingAtMost: deadline.remainingMilliseconds) { (state) throws(GateKitError) -> String in
            if let cached = state.cached, cached.token != refused, Clock.nowMilliseconds() < cached.refreshAtMs { return cached.token }
            state.cached = nil
            return try exchange(&state, deadline: deadline, clockRetried: false, attempt: 0)
        }
        guard let token else {
            throw GateKitError(.EPLAY_TRANSPORT, "the call's timeout (\(deadline.milliseconds) ms) passed while another call fetched an access token")
        }
        return token
    }

    /// The JWT bearer grant for a service account's key, on the token endpoint's clock.
    private func grantRequest(_ account: ServiceAccountKey, _ state: State) throws(GateKitError) -> HTTPRequest {
        let nowSeconds = Clock.nowMilliseconds() / 1000 &+ state.serverOffsetSeconds
        var header: [(String, JSONValue)] = [("alg", .string("RS256")), ("typ", .string("JWT"))]
        if let kid = account.privateKeyID { header.append(("kid", .string(kid))) }
        let claims: JSONValue = .object([
            ("iss", .string(account.clientEmail)), ("scope", .string(AccessTokens.scope)), ("aud", .string(AccessTokens.audience)),
            ("iat", .number(nowSeconds)), ("exp", .number(nowSeconds &+ AccessTokens.assertionLifetime)),
        ])
        let assertion = try CompactJWT.signed(header: .object(header), claims: claims, key: account.key)
        let form = "grant_type=" + PercentEncoding.encode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + assertion
        return HTTPRequest(method: "POST", url: account.tokenURI, headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
                           body: Array(form.utf8))
    }

    private func exchange(_ state: inout State, deadline: Deadline, clockRetried: Bool, attempt: Int) throws(GateKitError) -> String {
        let request: HTTPRequest
        let asker: String  // who asked, as an error names it
        switch source {
        case let .serviceAccount(account):
            request = try grantRequest(account, state)
            asker = "the token endpoint \(HTTPSTransport.origin(of: account.tokenURI))"
        case let .metadataServer(server):
            request = server.tokenRequest
            asker = "the metadata server \(HTTPSTransport.origin(of: server.tokenURL))"
        }
        let left = deadline.remainingMilliseconds
        guard left > 0 else { throw GateKitError(.EPLAY_TRANSPORT, "the call's timeout (\(deadline.milliseconds) ms) passed before an access token") }
        let response = try transport.send(request, timeoutMilliseconds: left)
        let body = try? JSONParser.parse(response.body)
        guard response.status == 200 else {
            let error = body?["error"]?.stringValue
            let description = body?["error_description"]?.stringValue
            if case .serviceAccount = source, !clockRetried, response.status == 400, error == "invalid_grant", learnClock(response.serverDate, &state) {
                return try exchange(&state, deadline: deadline, clockRetried: true, attempt: attempt)  // refused for this host's wrong clock
            }
            let transient = [429, 500, 502, 503, 504].contains(response.status) || error == "internal_failure"
            if transient, attempt < maximumRetries,
               let wait = RetryWait.milliseconds(retryAfterSeconds: response.retryAfter, attempt: attempt,
                                                 longest: maximumRetryWaitMilliseconds, deadline: deadline) {
                Deadline.sleep(milliseconds: wait)
                return try exchange(&state, deadline: deadline, clockRetried: clockRetried, attempt: attempt + 1)
            }
            if transient {
                // An outage, not bad credentials: Google's answer with its status, as the API's errors are.
                throw PlayFailure(tokenEndpoint: response).error("\(asker) failed (asked \(attempt + 1) times)")
            }
            var text: String
            switch source {
            case let .serviceAccount(account): text = "\(asker) refused the service account \(Quoted.text(account.clientEmail)): HTTP \(response.status)"
            case .metadataServer: text = "\(asker) gave no token: HTTP \(response.status) (is a service account attached to this workload?)"
            }
            if let error { text += ", \(Quoted.text(error))" }
            // Google's description states the fix ("The right audience is …"): shown whole (bounded).
            if let description { text += ": \(Quoted.bytes(description.utf8, limit: AccessTokens.longestDescription))" }
            if error == "invalid_grant", let hint = AccessTokens.hint(description) { text += " (\(hint))" }
            throw GateKitError(.EPLAY_AUTH, text)
        }
        guard let token = body?["access_token"]?.stringValue, !token.isEmpty, token.utf8.count <= 8192,
              !token.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw GateKitError(.EPLAY_AUTH, "\(asker) answered HTTP 200 without a usable access_token")
        }
        // RFC 6749 §7.1: a client must not use a token whose type it does not understand.
        if let type = body?["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw GateKitError(.EPLAY_AUTH, "\(asker) answered a token of type \(Quoted.text(type)); only Bearer tokens are sent")
        }
        guard let expiresIn = body?["expires_in"]?.int64Value, expiresIn > 0 else {
            throw GateKitError(.EPLAY_AUTH, "\(asker) answered without a positive expires_in")
        }
        // A minute before it runs out; a token shorter-lived than two minutes, at half its life.
        let margin = expiresIn > 120 ? 60 : expiresIn / 2
        state.cached = (token, Clock.nowMilliseconds() &+ min(expiresIn - margin, 86_400) * 1000)
        return token
    }

    /// The most of Google's `error_description` an error shows.
    static let longestDescription = 1024

    /// A hint for an invalid_grant, only about what its description names (none when it names
    /// something else: its own words say what to fix).
    static func hint(_ description: String?) -> String? {
        guard let text = description?.lowercased() else { return "is the key revoked, or this host's clock wrong?" }
        let clock = ["iat", "exp", "timeframe", "clock", "expired"].contains { Text.contains(text, $0) }
        let key = ["signature", "key", "account not found", "disabled"].contains { Text.contains(text, $0) }
        switch (clock, key) {
        case (true, true): return "is the key revoked, or this host's clock wrong?"
        case (true, false): return "is this host's clock wrong?"
        case (false, true): return "is the key revoked or deleted?"
        case (false, false): return nil
        }
    }

    /// Records the server's clock from a `Date` header; true when it moved the offset.
    private func learnClock(_ serverDate: Int64?, _ state: inout State) -> Bool {
        guard let serverDate else { return false }
        let difference = serverDate / 1000 - Clock.nowMilliseconds() / 1000
        let offset = abs(difference) > 60 ? difference : 0
        defer { state.serverOffsetSeconds = offset }
        return offset != state.serverOffsetSeconds
    }
}
