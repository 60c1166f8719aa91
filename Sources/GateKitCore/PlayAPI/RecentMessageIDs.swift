import GateKitSupport

/// The last `capacity` Pub/Sub message ids a verifier saw, to say "duplicate" for a
/// redelivery (Google: "use messageId to avoid processing duplicates"). In memory, per
/// verifier: a durable check belongs where the notification's effect is recorded.
final class RecentMessageIDs: @unchecked Sendable {
    private let capacity: Int
    private let lock = Lock()
    private var seen: Set<String> = []
    private var order: [String] = []
    private var next = 0  // the oldest entry of `order` once it is full

    init(capacity: Int) { self.capacity = capacity }

    /// True when `id` was seen before; records it otherwise.
    func checkAndRecord(_ id: String) -> Bool {
        guard capacity > 0 else { return false }
        return lock.withLock {
            if seen.contains(id) { return true }
            if order.count < capacity {
                order.append(id)
            } else {
                seen.remove(order[next])
                order[next] = id
                next = (next + 1) % capacity
            }
            seen.insert(id)
            return false
        }
    }
}
