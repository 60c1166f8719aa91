import GateKitSupport

/// The last `capacity` Pub/Sub message ids a verifier saw, to say "duplicate" for a
/// redelivery (Google: "use messageId to avoid processing duplicates"). In memory, per
/// verifier: a durable check belongs where the notification's effect is recorded.
final class RecentMessageIDs: @unchecked Sendable {
    private struct Window {
        var seen: Set<String> = []
        var order: [String] = []
        var next = 0  // the oldest entry of `order` once it is full
    }

    private let capacity: Int
    private let window = ProcessLocal { Window() }

    init(capacity: Int) { self.capacity = capacity }

    /// True when `id` was seen before; records it otherwise.
    func checkAndRecord(_ id: String) -> Bool {
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
