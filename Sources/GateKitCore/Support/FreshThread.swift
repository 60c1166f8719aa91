import Glibc

/// Where a call that starts helper threads runs after a fork(2). The Swift runtime's lock for a
/// lazy initializer (`swift_once` on Linux) records its holder by a thread id each thread caches
/// the first time; the thread that called fork keeps its parent's id in the child, so if it and
/// another thread of the child first run one initializer at the same moment, both spin forever
/// (seen: a backfill's forked process, its caller and a verifying helper both in `once_slow`
/// under one `static let`). So in a forked process the forking thread (the child's main thread,
/// `ForkGeneration.isForkingThread`) hands such a call to a thread of its own and waits:
/// every thread that can then take the runtime's locks knows its own id. Elsewhere (and on any
/// other thread) the call runs where it is.
package enum FreshThread {
    /// `body` on this thread, or — on a forked process's main thread — on a new one, joined
    /// before returning. `what` names the thread in the error when none can start.
    package static func run<T>(_ what: String, _ body: () throws(GateKitError) -> T) throws(GateKitError) -> T {
        guard ForkGeneration.isForkingThread else { return try body() }
        let outcome = Outcome<T>()
        let held = ForkGate.isInside  // this thread's section covers the new one until the join
        try withoutActuallyEscaping(body) { (body) throws(GateKitError) in
            let thread = try BackgroundThread.start(what) {
                outcome.result = ForkGate.inherit(held) { Result { () throws(GateKitError) -> T in try body() } }
            }
            thread.finish()
        }
        guard let result = outcome.result else { throw .internalError("the \(what) thread ended without a result") }
        return try result.get()
    }

    /// Written by the new thread, read after the join.
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, GateKitError>?
    }
}
