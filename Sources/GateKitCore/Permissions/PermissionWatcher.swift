import Glibc
import GateKitSupport

/// A background thread that runs the engine's change detection every `interval`, so changes
/// by other handles and processes reach subscribers without the host calling refresh.
/// On PostgreSQL it also wakes as soon as another client's commit notification arrives
/// (LISTEN/NOTIFY), so changes arrive in about a round trip rather than an interval.
/// Callbacks run on this thread.
final class PermissionWatcher: @unchecked Sendable {
    private let engine: PermissionEngine
    private let intervalMilliseconds: Int
    private let includeProvider: Bool
    private let condition = ConditionLock()
    private var stopping = false
    private var thread: BackgroundThread?

    /// Polls that failed (e.g. the store stayed busy); the next poll retries.
    private(set) var failedPolls = 0

    init(engine: PermissionEngine, intervalMilliseconds: Int, includeProvider: Bool) {
        self.engine = engine
        self.intervalMilliseconds = intervalMilliseconds
        self.includeProvider = includeProvider
    }

    func start() throws(GateKitError) {
        thread = try BackgroundThread.start("watcher") { self.run() }
    }

    /// The longest wait on the notification socket between checks of `stopping`.
    static let notificationSliceMilliseconds = 50

    private func run() {
        while true {
            if engine.store.backend == .postgresql {
                waitForNotification()
            } else {
                condition.withLock { if !stopping { condition.wait(milliseconds: intervalMilliseconds) } }
            }
            if condition.withLock({ stopping }) { return }
            do {
                try engine.detectChanges(askProvider: includeProvider, shouldDeliver: { [self] in
                    condition.withLock { !stopping }
                })
            } catch {
                condition.withLock { failedPolls += 1 }
            }
        }
    }

    /// Returns when the interval passed, a notification is waiting, or the watcher is stopping.
    private func waitForNotification() {
        var left = intervalMilliseconds
        while left > 0, !condition.withLock({ stopping }) {
            let slice = min(left, PermissionWatcher.notificationSliceMilliseconds)
            guard let socket = engine.store.notificationSocket() else {
                condition.withLock { if !stopping { condition.wait(milliseconds: slice) } }
                left -= slice
                continue
            }
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(slice)) > 0 { return }
            left -= slice
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
        thread?.finish()
    }
}
