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
/// the request being verified.
final class KeySetCache: @unchecked Sendable {
    enum Source {
        case fixed(JSONWebKeySet)
        case fetched(url: String, transport: HTTPSTransport, timeoutMilliseconds: Int)
    }

    /// Without a max-age the set is kept this long (seconds); a longer max-age is capped at a day.
    static let defaultLifetime: Int64 = 300
    static let longestLifetime: Int64 = 86_400

    private let source: Source
    private let refreshIntervalMilliseconds: Int64
    private let lock = Lock()
    private var current: JSONWebKeySet?
    private var expiresMs: Int64 = 0
    private var fetchedMs: Int64?
    /// The last fetch's failure, while no fetch has succeeded since.
    private var failure: GateKitError?

    init(_ source: Source, refreshIntervalMilliseconds: Int) {
        self.source = source
        self.refreshIntervalMilliseconds = Int64(refreshIntervalMilliseconds)
        if case let .fixed(set) = source {
            current = set
            expiresMs = .max
        }
    }

    /// Whether the current key set, still fresh, holds `kid` (nothing is fetched).
    func publishes(_ kid: String) -> Bool {
        lock.withLock { current?.keys[kid] != nil && Clock.nowMilliseconds() < expiresMs }
    }

    /// The key named `kid`: from the cached set while it is fresh; else from a set fetched now.
    func key(for kid: String) throws(GateKitError) -> RSAKey {
        try lock.withLock { () throws(GateKitError) -> RSAKey in
            let now = Clock.nowMilliseconds()
            if let key = current?.keys[kid], now < expiresMs { return key }
            guard case let .fetched(url, transport, timeout) = source else {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not in the key set the verifier was given")
            }
            let stale = now >= expiresMs
            let sinceFetch = fetchedMs.map { now - $0 }
            if !stale, let sinceFetch, sinceFetch < refreshIntervalMilliseconds {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not among the issuer's keys (fetched \(sinceFetch) ms ago)")
            }
            if let failure, let sinceFetch, sinceFetch < refreshIntervalMilliseconds {
                throw GateKitError(.EPUSH_KEYSET, "\(failure.message) (\(sinceFetch) ms ago; tried again after key_refresh_interval_ms)")
            }
            do throws(GateKitError) {
                try fetch(url, transport, timeout, now: now)
                failure = nil
            } catch {
                failure = error
                throw error
            }
            guard let key = current?.keys[kid] else {
                throw GateKitError(.EPUSH_KEY, "the token's kid \(Quoted.text(kid)) is not among the issuer's keys, fetched just now")
            }
            return key
        }
    }

    private func fetch(_ url: String, _ transport: HTTPSTransport, _ timeout: Int, now: Int64) throws(GateKitError) {
        fetchedMs = now
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
        let lifetime = min(response.maxAge ?? KeySetCache.defaultLifetime, KeySetCache.longestLifetime)
        current = set
        expiresMs = now &+ lifetime * 1000
    }
}
