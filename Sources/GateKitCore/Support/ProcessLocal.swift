/// State that belongs to the process that made it. After fork(2) a child must never use what its
/// parent held: a kept-alive TLS connection is the parent's session (two processes on one socket
/// read each other's answers), and a lock another parent thread held at the fork is never
/// released in the child. A child's first use starts from `make()` with a lock of its own; the
/// parent's state is abandoned there, never closed (closing a TLS connection writes to the
/// parent's socket).
public final class ProcessLocal<State>: @unchecked Sendable {
    private final class Slot {
        let lock = Lock()
        let generation: UInt64
        var state: State

        init(_ state: State, generation: UInt64) {
            self.state = state
            self.generation = generation
        }
    }

    private let make: () -> State
    private var slot: Slot

    public init(_ make: @escaping () -> State) {
        self.make = make
        slot = Slot(make(), generation: ForkGeneration.current)
    }

    /// `body` with this process's state, under this process's lock.
    public func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        let slot = current()
        return try slot.lock.withLock { () throws(E) -> T in try body(&slot.state) }
    }

    /// As `withLock`, waiting at most `milliseconds` for the lock (another thread's slow call
    /// must not outlast a caller's budget); nil when the lock could not be had in time.
    public func withLock<T, E: Error>(waitingAtMost milliseconds: Int, _ body: (inout State) throws(E) -> T) throws(E) -> T? {
        let slot = current()
        return try slot.lock.withLock(waitingAtMost: milliseconds) { () throws(E) -> T in try body(&slot.state) }
    }

    private func current() -> Slot {
        ForkGeneration.withProcessLock { () -> Slot in
            let generation = ForkGeneration.current
            if slot.generation != generation { slot = Slot(make(), generation: generation) }
            return slot
        }
    }

    /// The state when this process made it (what a deinit may release); nil in a forked child
    /// that never used it.
    public var ownState: State? {
        ForkGeneration.withProcessLock { slot.generation == ForkGeneration.current ? slot.state : nil }
    }
}
