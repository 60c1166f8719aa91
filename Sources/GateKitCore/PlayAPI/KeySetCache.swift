import GateKitCrypto
import GateKitHTTPS
import GateKitSupport

/// The issuer's signing keys as a verifier needs them: fetched from its JWKS URL through the
/// HTTPS transport, kept for the answer's Cache-Control max-age (Google: "examine the
/// Cache-Control header in the response to determine when you should retrieve them again"),
/// fetched again when a token names a kid the set lacks, at most once per refresh interval so
/// that tokens with made-up kids cannot make the verifier hammer the issuer; a fetch that
/// failed is not tried again within that interval either (each push would otherwise wait a
/// timeout behind the lock). Or a fixed set the host gave, never fetched. Keys never come from
/// the request being verified. The fetch runs outside the lock: pushes whose key is held never
/// wait behind a slow key server.
final class KeySetCache: @unchecked Sendable {
    enum Source {
        case fixed(JSONWebKeySet)
        case fetched(url: String, transport: HTTPSTransport, timeoutMilliseconds: Int)
    }

    /// Without a max-age the set is kept this long (seconds); a longer max-age is capped at a day.
    static let defaultLifetime: Int64 = 300
    static let longestLifetime: Int64 = 86_400

    private struct State {
        var current: JSONWebKeySet?
        var expiresMs: Int64 = 0
        var fetchedMs: Int64?
        /// The last fetch's failure, while no fetch has succeeded since.
        var failure: GateKitError?
        /// A thread is fetching now: the others answer from what is held, never wait for it.
        var fetching = false
    }

    private let source: Source
    private let refreshIntervalMilliseconds: Int64
    private let state: ProcessLocal<State>

    init(_ source: Source, refreshIntervalMilliseconds: Int) {
        self.source = source
        self.refreshIntervalMilliseconds = Int64(refreshIntervalMilliseconds)
        var initial = State()
        if case let .fixed(set) = source {
            initial.current = set
            initial.expiresMs = .max
        }
        state = ProcessLocal { initial }
    }

    /// Whether the current key set, still fresh, holds `kid` (nothing is fetched).
    func publishes(_ kid: String) -> Bool {
        state.withLock { $0.current?.keys[kid] != nil && Clock.nowMilliseconds() < $0.expiresMs }
    }

    /// The key named `kid`: from the cached set while it is fresh; else from a set fetched now.
    /// The fetch runs outside the lock: a slow key server delays only the token that needed it.
    func key(for kid: String) throws(GateKitError) -> RSAKey {
        let now = Clock.nowMilliseconds()
        enum Found { case key(RSAKey), fetch(url: String, transport: HTTPSTransport, timeout: Int) }
        let found = try state.withLock { (s) throws(GateKitError) -> Found in
            if let key = s.current?.keys[kid], now < s.expiresMs { return .key(key) }
            guard case let .fetched(url, transport, timeout) = source else {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not in the key set the verifier was given")
            }
            let stale = now >= s.expiresMs
            let sinceFetch = s.fetchedMs.map { now - $0 }
            if !stale, let sinceFetch, sinceFetch < refreshIntervalMilliseconds {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not among the issuer's keys (fetched \(sinceFetch) ms ago)")
            }
            if let failure = s.failure, let sinceFetch, sinceFetch < refreshIntervalMilliseconds {
                throw GateKitError(.EPUSH_KEYSET, "\(failure.message) (\(sinceFetch) ms ago; tried again after key_refresh_interval_ms)")
            }
            guard !s.fetching else {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not among the issuer's keys held; they are being fetched again now")
            }
            s.fetching = true
            s.fetchedMs = now
            return .fetch(url: url, transport: transport, timeout: timeout)
        }
        let fetched: Result<(JSONWebKeySet, Int64), GateKitError>
        switch found {
        case let .key(key): return key  // held and fresh: one lock, no fetch
        case let .fetch(url, transport, timeout):
            do throws(GateKitError) { fetched = .success(try KeySetCache.fetch(url, transport, timeout)) } catch {
                fetched = .failure(error)
            }
        }
        return try state.withLock { (s) throws(GateKitError) -> RSAKey in
            s.fetching = false
            switch fetched {
            case let .success((set, lifetime)):
                s.current = set
                s.expiresMs = now &+ lifetime * 1000
                s.failure = nil
            case let .failure(error):
                s.failure = error
                throw error
            }
            guard let key = s.current?.keys[kid] else {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not among the issuer's keys, fetched just now")
            }
            return key
        }
    }

    /// The set at `url` and how long to keep it (seconds).
    private static func fetch(_ url: String, _ transport: HTTPSTransport, _ timeout: Int) throws(GateKitError) -> (JSONWebKeySet, Int64) {
        let response: HTTPResponse
        do {
            response = try transport.send(HTTPRequest(method: "GET", url: url, headers: ["Accept: application/json"], body: nil),
                                          timeoutMilliseconds: timeout)
        } catch {
            throw GateKitError(.EPUSH_KEYSET, "the issuer's key set could not be fetched: \(error.message)")
        }
        guard response.status == 200 else {
            throw GateKitError(.EPUSH_KEYSET, "the issuer's key set could not be fetched: \(HTTPSTransport.origin(of: url)) answered HTTP \(response.status)")
        }
        let set = try JSONWebKeySet(json: response.body)
        return (set, min(response.maxAge ?? KeySetCache.defaultLifetime, KeySetCache.longestLifetime))
    }
}
