import Glibc

/// A background thread that polls the store's data version every `interval` and runs the
/// engine's change detection, so changes by other handles and processes reach subscribers
/// without the host calling refresh. Callbacks run on this thread.
final class PermissionWatcher: @unchecked Sendable {
    private let engine: PermissionEngine
    private let intervalMilliseconds: Int
    private let includeProvider: Bool
    private let condition = ConditionLock()
    private var stopping = false
    private var thread = pthread_t()

    /// Polls that failed (e.g. the store stayed busy); the next poll retries.
    private(set) var failedPolls = 0

    init(engine: PermissionEngine, intervalMilliseconds: Int, includeProvider: Bool) {
        self.engine = engine
        self.intervalMilliseconds = intervalMilliseconds
        self.includeProvider = includeProvider
    }

    func start() throws(GateKitError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let watcher = Unmanaged<PermissionWatcher>.fromOpaque(context).takeRetainedValue()
            watcher.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<PermissionWatcher>.fromOpaque(context).release()
            throw GateKitError(.internal, "cannot start the watcher thread: \(String(cString: strerror(rc)))")
        }
    }

    private func run() {
        while true {
            let stop = condition.withLock { () -> Bool in
                if !stopping { condition.wait(milliseconds: intervalMilliseconds) }
                return stopping
            }
            if stop { return }
            do {
                try engine.detectChanges(askProvider: includeProvider, shouldDeliver: { [self] in
                    condition.withLock { !stopping }
                })
            } catch {
                condition.withLock { failedPolls += 1 }
            }
        }
    }

    /// Ends the thread. From another thread: returns after it exited (any callback it was
    /// running has returned). From one of its own callbacks: returns at once; the thread
    /// exits when that callback returns and delivers nothing more.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
