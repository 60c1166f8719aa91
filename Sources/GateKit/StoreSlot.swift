import Glibc
import GateKitSupport

/// What a `gatekit_store *` points to: a slot that outlives the handle it holds, so a call made
/// with a handle that was closed — by another thread mid-call, or earlier — finds it empty and
/// is an error naming the close, never a read of freed memory. A call takes its own reference to
/// the handle, so a close during the call ends the handle when the call is done with it. Closed
/// slots are kept for the next open (memory bounded by the handles open at once); a pointer
/// kept past its close may then name a newer handle, as any freed C pointer may.
///
/// Across fork(2): a slot remembers the process generation its handle was opened in, read
/// before its lock is taken, so a child never waits on the lock of a slot it inherited (another
/// parent thread may have held it at the fork); the pool of closed slots is taken by a
/// pthread_atfork prepare handler, so no child inherits it held.
final class StoreSlot: @unchecked Sendable {
    private let lock = Lock()
    private var handle: StoreHandle?
    /// The `ForkGeneration` of the handle held (written under `lock` at open, before the slot is
    /// handed out; read without it).
    nonisolated(unsafe) private var generation: UInt64 = 0

    /// Slots whose handle was closed, for the next open (guarded by `poolLock`).
    nonisolated(unsafe) private static var pool: [StoreSlot] = []
    nonisolated(unsafe) private static let poolLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_atfork({ pthread_mutex_lock(StoreSlot.poolLock) }, { pthread_mutex_unlock(StoreSlot.poolLock) },
                       { pthread_mutex_unlock(StoreSlot.poolLock) })
        return mutex
    }()

    private static func withPool<T>(_ body: (inout [StoreSlot]) -> T) -> T {
        pthread_mutex_lock(poolLock)
        defer { pthread_mutex_unlock(poolLock) }
        return body(&pool)
    }

    /// A slot holding `handle`, as the pointer C keeps (retained for good: never freed).
    static func open(_ handle: StoreHandle) -> OpaquePointer {
        let slot = withPool { $0.popLast() } ?? StoreSlot()
        slot.lock.withLock {
            slot.handle = handle
            slot.generation = handle.generation
        }
        return OpaquePointer(Unmanaged.passRetained(slot).toOpaque())
    }

    static func slot(_ p: OpaquePointer) -> StoreSlot {
        Unmanaged<StoreSlot>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// Whether the handle was opened in this process (not inherited over fork).
    var openedHere: Bool { generation == ForkGeneration.current }

    /// The handle, with a reference of the caller's own; nil once closed. Only for a slot
    /// `openedHere`.
    var current: StoreHandle? { lock.withLock { handle } }

    /// Empties the slot and returns the handle it held (nil: closed already, or inherited over
    /// fork — the parent's, left alone).
    func close() -> StoreHandle? {
        guard openedHere else { return nil }
        let closed = lock.withLock { () -> StoreHandle? in
            defer { handle = nil }
            return handle
        }
        if closed != nil { StoreSlot.withPool { $0.append(self) } }
        return closed
    }
}
