import GateKitSupport

/// Decoded JWS headers by their exact base64url text. Apple signs every transaction of a
/// signer with the same header (alg + the same three certificates), so a repeated signer
/// skips decoding ~2.3 KB of header JSON and three certificates. Only headers that passed
/// every shape rule are kept; trust is still decided per call (the verified-chain cache
/// answers only inside the chain's validity window). Bounded, thread-safe.
final class JWSHeaderMemo: @unchecked Sendable {
    struct Entry {
        let header: JSONValue
        let certificates: [[UInt8]]
    }

    static let shared = JWSHeaderMemo(capacity: 64)

    private let lock = Lock()
    private var entries: [SampledBytesKey: Entry] = [:]
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func lookup(_ key: SampledBytesKey) -> Entry? {
        lock.withLock { entries[key] }
    }

    /// Drops every entry (the fuzz targets do after each input, so leak checks see eviction
    /// free everything; see RELIABILITY.md).
    func removeAll() {
        lock.withLock { entries.removeAll() }
    }

    func insert(_ key: SampledBytesKey, _ entry: Entry) {
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}
