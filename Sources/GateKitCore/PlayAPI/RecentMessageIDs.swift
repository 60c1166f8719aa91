import GateKitSupport

/// The last `capacity` Pub/Sub messages a verifier saw, to say "duplicate" for a redelivery
/// (Google: "use messageId to avoid processing duplicates"), each kept as the SHA-256 of its id
/// and notification. In memory, per verifier: a durable check belongs where the notification's
/// effect is recorded.
final class RecentMessageIDs: @unchecked Sendable {
    /// A SHA-256 as four words: hashed and compared without an allocation or hex text.
    struct Fingerprint: Hashable {
        private let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        init?(sha256 digest: [UInt8]) {
            guard digest.count == 32 else { return nil }
            func word(_ at: Int) -> UInt64 { digest[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
            (a, b, c, d) = (word(0), word(8), word(16), word(24))
        }
    }

    private struct Window {
        var seen: Set<Fingerprint> = []
        var order: [Fingerprint] = []
        var next = 0  // the oldest entry of `order` once it is full
    }

    private let capacity: Int
    private let window = ProcessLocal { Window() }

    init(capacity: Int) { self.capacity = capacity }

    /// True when `id` was seen before; records it otherwise.
    func checkAndRecord(_ id: Fingerprint) -> Bool {
        guard capacity > 0 else { return false }
        return window.withLock { w in
            if w.seen.contains(id) { return true }
            if w.order.count < capacity {
                w.order.append(id)
            } else {
                w.seen.remove(w.order[w.next])
                w.order[w.next] = id
                w.next = (w.next + 1) % capacity
            }
            w.seen.insert(id)
            return false
        }
    }
}
