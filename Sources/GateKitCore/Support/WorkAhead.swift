import Glibc

/// Independent pieces of CPU-bound work done on helper threads ahead of a caller that takes
/// the results in order, so that what the caller does with item i (storing it) overlaps the
/// helpers' work on the next ones (verifying them). Helpers take pieces from the front; a
/// caller about to wait for a piece a helper holds does one from the back instead, so no core
/// idles while the helpers keep the front coming (a caller taking the next piece itself would
/// do a third of them and leave the helpers idle at the end, measured in BENCHMARKS.md). With
/// no helper every piece is still done, in order. The helpers live for one call: the owner
/// calls `finish` before returning, so a host that forks later finds no stray thread.
package final class WorkAhead<T>: @unchecked Sendable {
    /// Online processors, at least 1.
    package static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    private let lock = ConditionLock()
    private let count: Int
    private let body: (Int) -> T
    /// One slot per piece, written once under the lock.
    private let slots: UnsafeMutableBufferPointer<T?>
    /// Whether someone does (or did) each piece; unclaimed pieces all lie in front..<back.
    private let claimed: UnsafeMutableBufferPointer<Bool>
    private var front = 0
    private var back: Int
    private var stopped = false
    private var helpers: [BackgroundThread] = []

    /// `body(i)` for every i in 0..<count, on up to `helpers` helper threads (one fewer than
    /// the cores by default: the caller is the last) — fewer when there is not
    /// `minimumPerHelper` work for each. A helper that cannot start leaves its pieces to the
    /// caller: the results are the same, only later.
    package init(_ count: Int, helpers: Int = cores - 1, minimumPerHelper: Int = 8, _ body: @escaping (Int) -> T) {
        self.count = max(0, count)
        self.body = body
        back = self.count
        slots = .allocate(capacity: self.count)
        slots.initialize(repeating: nil)
        claimed = .allocate(capacity: self.count)
        claimed.initialize(repeating: false)
        let wanted = max(0, min(helpers, self.count / max(1, minimumPerHelper)))
        for _ in 0..<wanted {
            guard let thread = try? BackgroundThread.start("verification", { [self] in help() }) else { break }
            self.helpers.append(thread)
        }
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
        claimed.deallocate()
    }

    /// The result for `i`, once done; nil when `i` is out of range, or when `finish` came
    /// before anyone did it. Only the owner's thread asks.
    package func value(_ i: Int) -> T? {
        guard i >= 0, i < count else { return nil }
        while true {
            let next: Next = lock.withLock {
                if let done = slots[i] { return .done(done) }
                if !claimed[i] && !stopped {
                    claimed[i] = true
                    return .work(i)
                }
                if let j = claimFromBack() { return .work(j) }
                // A helper holds it (or the owner finished first): wait for its result.
                while slots[i] == nil {
                    if !claimed[i] { return .none }
                    lock.wait()
                }
                return slots[i].map(Next.done) ?? .none
            }
            switch next {
            case let .done(value): return value
            case let .work(j): publish(j, body(j))
            case .none: return nil
            }
        }
    }

    /// Hands out no more pieces and waits for the helpers (each ends the piece it holds).
    package func finish() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
        for thread in helpers { thread.finish() }
        helpers.removeAll()
    }

    private enum Next {
        case done(T)
        case work(Int)
        case none
    }

    /// The first piece nobody holds (the next the caller will take). Only inside the lock.
    private func claimFromFront() -> Int? {
        while front < back && claimed[front] { front += 1 }
        guard !stopped, front < back else { return nil }
        claimed[front] = true
        return front
    }

    /// The last piece nobody holds (the one needed latest). Only inside the lock.
    private func claimFromBack() -> Int? {
        while back > front && claimed[back - 1] { back -= 1 }
        guard !stopped, back > front else { return nil }
        back -= 1
        claimed[back] = true
        return back
    }

    private func publish(_ i: Int, _ value: T) {
        lock.withLock {
            slots[i] = value
            lock.broadcast()
        }
    }

    private func help() {
        while let i = lock.withLock({ claimFromFront() }) { publish(i, body(i)) }
    }
}
