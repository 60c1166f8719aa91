import Glibc

/// Keeps fork(2) out of the library's multi-threaded sections. A process that forks while one
/// of its threads is inside such a section — helper threads verifying a batch, the Swift runtime
/// instantiating metadata or taking a once-lock on their behalf — hands the child locks held by
/// threads it does not have, and the child's own batch then spins for good (Hardening IV, 21a:
/// 4 runs in 13). The sections take this gate's read side; a pthread_atfork prepare handler
/// takes its write side, so fork waits until the sections under way end (a batch, a sync's page,
/// a metrics read: bounded) and none begins until it returns. Writers are preferred, so a
/// thread that ingests batches back to back cannot keep a fork waiting. A section inside a
/// section (an export that takes one around the core's) is the outer one: a second read lock
/// would wait behind a pending fork that waits for the first.
package enum ForkGate {
    nonisolated(unsafe) private static let gate: UnsafeMutablePointer<pthread_rwlock_t> = {
        let gate = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        initialise(gate)
        pthread_atfork({ pthread_rwlock_wrlock(ForkGate.gate) },
                       { pthread_rwlock_unlock(ForkGate.gate) },
                       { ForkGate.initialise(ForkGate.gate) })  // the child's one thread: a fresh gate
        return gate
    }()

    private static func initialise(_ gate: UnsafeMutablePointer<pthread_rwlock_t>) {
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(gate, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    /// Makes the gate, and registers its fork handlers, if no call has yet. Every export calls it
    /// first: a gate first made by a thread while another forks would leave the child's once-lock
    /// held, and its first section would wait on it for good (test_fork's batches, seen once).
    package static func prepare() { _ = gate }

    /// Marks the threads inside a section (any non-nil value).
    private static let inside: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether this thread runs inside a section (its own, or one its starter holds for it).
    package static var isInside: Bool { pthread_getspecific(inside) != nil }

    /// Runs `body` with fork held off until it returns.
    package static func section<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if isInside { return try body() }
        pthread_rwlock_rdlock(gate)
        pthread_setspecific(inside, UnsafeRawPointer(bitPattern: 1))
        defer {
            pthread_setspecific(inside, nil)
            pthread_rwlock_unlock(gate)
        }
        return try body()
    }

    /// Runs `body` on a thread another started and joins: inside that thread's section when
    /// `held` (its starter's `isInside`), which lasts until the join.
    package static func inherit<T, E: Error>(_ held: Bool, _ body: () throws(E) -> T) throws(E) -> T {
        guard held else { return try body() }
        pthread_setspecific(inside, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(inside, nil) }
        return try body()
    }
}
