import Glibc
import GateKitSupport

/// A host callback that can be removed while other threads are calling it.
///
/// `retire()` stops new calls and waits until every call running on another thread has
/// returned, so the host may free the callback's payload as soon as removal returns. It does
/// not wait when the removing thread is itself inside a callback or provider (waiting there
/// could wait forever on a thread that waits for us).
final class CallbackSlot<Value>: @unchecked Sendable {
    let value: Value
    private let condition = ConditionLock()
    private var active = true
    private var callers: [pthread_t] = []

    init(_ value: Value) { self.value = value }

    /// Marks the calling thread inside; false once retired.
    func enter() -> Bool {
        condition.withLock {
            guard active else { return false }
            callers.append(pthread_self())
            return true
        }
    }

    func leave() {
        condition.withLock {
            let me = pthread_self()
            if let i = callers.firstIndex(where: { pthread_equal($0, me) != 0 }) { callers.remove(at: i) }
            condition.broadcast()
        }
    }

    /// Runs `body` with the value unless retired.
    func call<T>(_ body: (Value) -> T) -> T? {
        guard enter() else { return nil }
        defer { leave() }
        return body(value)
    }

    func retire() {
        let mayWait = !CallbackScope.insideCallback
        condition.withLock {
            active = false
            guard mayWait else { return }
            let me = pthread_self()
            while callers.contains(where: { pthread_equal($0, me) == 0 }) { condition.wait() }
        }
    }
}
