import Glibc

/// A thread that runs one body and is ended by its owner (the permission watcher, the portal
/// listener): `start` keeps the body's captures alive for the thread's life; `finish` waits
/// for it, except from the thread itself (a callback it runs), which cannot wait for itself.
package struct BackgroundThread {
    private var thread = pthread_t()

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// `what` names the thread in the error when it cannot start.
    package static func start(_ what: String, _ run: @escaping () -> Void) throws(GateKitError) -> BackgroundThread {
        var started = BackgroundThread()
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        let rc = pthread_create(&started.thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw GateKitError(.EINTERNAL, "cannot start the \(what) thread: \(String(cString: strerror(rc)))")
        }
        return started
    }

    /// After the owner told the body to end: returns once the thread exited, or at once when
    /// called on the thread itself (it then ends by itself).
    package func finish() {
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
