import GateKitSupport

/// Verified chains keyed by the policy and the exact DER bytes of every certificate offered.
/// An entry is used only when the requested time lies inside the chain's validity
/// intersection, where a full verification would give the same answer; outside it the caller
/// verifies from scratch. Bounded (FIFO eviction) and thread-safe.
final class VerifiedChainCache: @unchecked Sendable {
    struct Key: Hashable {
        let policy: TrustPolicy
        /// Signer first, then the untrusted certificates in the order given.
        let certificates: [[UInt8]]

        // Hash the tail of each certificate (its signature bytes, unique per certificate)
        // instead of kilobytes of DER; equality still compares every byte.
        func hash(into h: inout Hasher) {
            h.combine(policy)
            h.combine(certificates.count)
            for der in certificates {
                h.combine(der.count)
                der.withUnsafeBytes { raw in
                    let tail = min(raw.count, 32)
                    h.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[(raw.count - tail)...]))
                }
            }
        }
    }

    private let lock = Lock()
    private var entries: [Key: VerifiedChain] = [:]
    private var order: [Key] = []
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func lookup(_ key: Key, at time: Int64) -> VerifiedChain? {
        let chain = lock.withLock { entries[key] }
        guard let chain, chain.holds(at: time) else { return nil }
        return chain
    }

    func insert(_ key: Key, _ chain: VerifiedChain) {
        lock.withLock {
            if entries.updateValue(chain, forKey: key) == nil {
                order.append(key)
                if order.count > capacity {
                    let oldest = order.removeFirst()
                    entries.removeValue(forKey: oldest)
                }
            }
        }
    }

    var count: Int { lock.withLock { entries.count } }

    func removeAll() {
        lock.withLock {
            entries.removeAll()
            order.removeAll()
        }
    }
}
