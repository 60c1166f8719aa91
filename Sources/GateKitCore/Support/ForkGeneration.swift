import Glibc

/// How many fork(2)s lie between this process and the one that loaded GateKit. A store handle
/// remembers the generation it was opened in: after a fork the child shares the parent's
/// connection (the PostgreSQL socket, the SQLite file and its locks' owner), so the child
/// using or closing it would break the parent's session. Counting in a pthread_atfork child
/// handler makes the check one memory read, where getpid(2) would be a system call per call.
public enum ForkGeneration {
    // Written only by the atfork child handler, while the just-forked child has one thread;
    // in every other moment of a process's life it is only read.
    nonisolated(unsafe) private static var generation: UInt64 = 0
    /// The thread that called the last fork (in the child, its one thread then).
    nonisolated(unsafe) private static var forker = pthread_t()

    /// Guards `ProcessLocal`'s check of the generation. Held across fork(2) by the forking
    /// thread (POSIX's prepare/parent/child pattern), so the child never inherits it locked.
    private static let processLock = Lock()

    private static let counting: Bool = {
        pthread_atfork({ ForkGeneration.processLock.acquire() }, { ForkGeneration.processLock.release() }, {
            ForkGeneration.generation &+= 1
            ForkGeneration.forker = pthread_self()
            ForkGeneration.processLock.release()
        })
        return true
    }()

    /// `body` under the lock no fork(2) happens inside of (short: no I/O, no host code).
    static func withProcessLock<T>(_ body: () -> T) -> T {
        _ = counting
        return processLock.withLock(body)
    }

    /// The current generation (registering the handler on first use: before any handle exists).
    public static var current: UInt64 {
        _ = counting
        return generation
    }

    /// Whether this process was forked and this thread is the one that called fork(2)
    /// (`FreshThread` says why that matters).
    public static var isForkingThread: Bool {
        current > 0 && pthread_equal(forker, pthread_self()) != 0
    }
}
