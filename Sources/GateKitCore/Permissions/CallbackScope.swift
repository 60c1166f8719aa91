import Glibc
import GateKitSupport

/// Per-thread markers: is this thread inside a host callback or a system-state provider?
///
/// Inside a provider, functions that would consult the provider again or change state are
/// refused (no recursion, no lock-order inversion). Inside a change callback, removing a
/// subscription does not wait for other threads (two callbacks removing each other would
/// otherwise wait forever).
enum CallbackScope {
    private static let callbackKey: pthread_key_t = makeKey()
    private static let providerKey: pthread_key_t = makeKey()

    private static func makeKey() -> pthread_key_t {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }

    private static func depth(_ key: pthread_key_t) -> Int {
        Int(bitPattern: pthread_getspecific(key))
    }

    private static func withDepth<T>(_ key: pthread_key_t, _ body: () -> T) -> T {
        let d = depth(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: d &+ 1))
        defer { pthread_setspecific(key, UnsafeRawPointer(bitPattern: d)) }
        return body()
    }

    static var insideCallback: Bool { depth(callbackKey) > 0 || depth(providerKey) > 0 }
    static var insideProvider: Bool { depth(providerKey) > 0 }

    static func callback<T>(_ body: () -> T) -> T { withDepth(callbackKey, body) }
    static func provider<T>(_ body: () -> T) -> T { withDepth(providerKey, body) }

    static func refuseInsideProvider(_ what: StaticString) throws(GateKitError) {
        guard !insideProvider else {
            throw GateKitError(.EPERM_REENTRANT, "\(what) is not possible from inside the system state provider")
        }
    }
}
