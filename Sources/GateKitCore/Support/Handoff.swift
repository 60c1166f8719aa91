/// Work passed from one thread to another through a short queue: the producer waits while
/// `capacity` items wait, the consumer while none do; `close` ends the stream. Lets a reader
/// fetch the next page of rows while another thread computes on the last one.
package final class Handoff<T>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var items: [T] = []
    private var closed = false
    private let capacity: Int

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Waits for room, then queues `item` (dropped when the stream was closed).
    package func put(_ item: T) {
        lock.withLock {
            while items.count >= capacity && !closed { lock.wait() }
            guard !closed else { return }
            items.append(item)
            lock.broadcast()
        }
    }

    /// The next item; nil once the stream is closed and nothing waits.
    package func take() -> T? {
        lock.withLock {
            while items.isEmpty && !closed { lock.wait() }
            guard !items.isEmpty else { return nil }
            let item = items.removeFirst()
            lock.broadcast()
            return item
        }
    }

    /// No more items: `take` returns what waits, then nil.
    package func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }
}
