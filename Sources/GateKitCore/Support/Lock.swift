import Glibc

/// A pthread mutex owned by a class (stable address). Chosen over `Mutex` because
/// ThreadSanitizer understands it, and it is not recursive on purpose: callbacks into
/// host code always run after the lock is released.
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// `body` under the lock if it can be had within `milliseconds`; nil when it could not.
    public func withLock<T, E: Error>(waitingAtMost milliseconds: Int, _ body: () throws(E) -> T) throws(E) -> T? {
        if pthread_mutex_trylock(mutex) != 0 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let wait = max(0, milliseconds)
            var until = timespec(tv_sec: now.tv_sec + wait / 1000, tv_nsec: now.tv_nsec + (wait % 1000) * 1_000_000)
            if until.tv_nsec >= 1_000_000_000 {
                until.tv_sec += 1
                until.tv_nsec -= 1_000_000_000
            }
            guard pthread_mutex_timedlock(mutex, &until) == 0 else { return nil }
        }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// For fork handlers alone (`ForkGeneration`): everything else takes `withLock`.
    func acquire() { pthread_mutex_lock(mutex) }
    func release() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value only reached under its own lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&value) }
    }
}
