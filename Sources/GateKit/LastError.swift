import Glibc
import GateKitSupport

/// The per-thread detail of the last failure, kept as a malloc'd C string in a pthread key
/// (freed when the thread exits), so `gatekit_last_error()` needs no locking.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    private static let empty: StaticString = ""

    static func set(_ message: String) {
        let fresh = strdup(message)  // nil under memory exhaustion: the old text stays
        guard let fresh else { return }
        free(pthread_getspecific(key))
        pthread_setspecific(key, fresh)
    }

    static var current: UnsafePointer<CChar> {
        if let p = pthread_getspecific(key) { return UnsafePointer(p.assumingMemoryBound(to: CChar.self)) }
        return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

/// Runs an export's body: a thrown `GateKitError` becomes its negative code, with
/// "function: reason" recorded for `gatekit_last_error()`.
@inline(__always)
func exportBoundary(_ function: StaticString, _ body: () throws(GateKitError) -> Int32) -> Int32 {
    // Counting forks from the first call on: a thread that used the library before a fork
    // is then known in the child (`FreshThread`); and the gate that holds forks off the
    // library's sections exists before any section can race a fork.
    _ = ForkGeneration.current
    ForkGate.prepare()
    do {
        return try body()
    } catch {
        LastError.set("\(function): \(error.message)")
        return error.code.rawValue
    }
}
