import Glibc

/// Independent pieces of CPU-bound work spread over the machine's cores for the length of one
/// call: the caller's thread does its share, helper threads do the rest and are joined before
/// the call returns (no pool outlives it, so a host that forks later finds no stray thread).
package enum ParallelWork {
    /// Online processors, at least 1.
    package static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// `body(i)` for every i in 0..<count, in order, on up to `threads` threads — fewer when
    /// there is not `minimumPerThread` work for each. A helper that cannot start leaves its
    /// share to the caller: the answer is the same, only slower.
    package static func map<T>(_ count: Int, threads: Int = cores, minimumPerThread: Int = 8,
                               _ body: @escaping (Int) -> T) -> [T] {
        let workers = max(1, min(threads, count / max(1, minimumPerThread)))
        guard workers > 1 else { return (0..<count).map(body) }
        let results = Results<T>(count)
        // Strided shares: items of one kind cost alike, so each thread gets a fair part
        // without a queue to contend on.
        func share(_ worker: Int) { for i in stride(from: worker, to: count, by: workers) { results.set(i, body(i)) } }
        var helpers: [BackgroundThread] = []
        var ownShares = [0]
        for worker in 1..<workers {
            if let thread = try? BackgroundThread.start("verification", { share(worker) }) {
                helpers.append(thread)
            } else {
                ownShares.append(worker)
            }
        }
        for worker in ownShares { share(worker) }
        for thread in helpers { thread.finish() }
        return results.values()
    }

    /// One slot per item, each written by exactly one thread before the join: raw memory, so
    /// no two threads ever touch the same Swift value (an array would be one shared value).
    private final class Results<T>: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<T?>
        init(_ count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }
        deinit {
            slots.deinitialize()
            slots.deallocate()
        }
        func set(_ i: Int, _ value: T) { slots[i] = value }
        func values() -> [T] { slots.compactMap { $0 } }
    }
}
