import GateKitSupport

/// What a `gatekit_store *` points to: a slot that outlives the handle it holds, so a call made
/// with a handle that was closed — by another thread mid-call, or earlier — finds it empty and
/// is an error naming the close, never a read of freed memory. A call takes its own reference to
/// the handle, so a close during the call ends the handle when the call is done with it. Closed
/// slots are kept for the next open (memory bounded by the handles open at once); a pointer
/// kept past its close may then name a newer handle, as any freed C pointer may.
final class StoreSlot: @unchecked Sendable {
    private let lock = Lock()
    private var handle: StoreHandle?

    /// Slots whose handle was closed, for the next open.
    private static let free = Locked<[StoreSlot]>([])

    /// A slot holding `handle`, as the pointer C keeps (retained for good: never freed).
    static func open(_ handle: StoreHandle) -> OpaquePointer {
        let slot = free.withLock { $0.popLast() } ?? StoreSlot()
        slot.lock.withLock { slot.handle = handle }
        return OpaquePointer(Unmanaged.passRetained(slot).toOpaque())
    }

    static func slot(_ p: OpaquePointer) -> StoreSlot {
        Unmanaged<StoreSlot>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// The handle, with a reference of the caller's own; nil once closed.
    var current: StoreHandle? { lock.withLock { handle } }

    /// Empties the slot and returns the handle it held (nil: closed already), unless `keep`
    /// says the handle must stay (a handle inherited over fork is the parent's).
    func close(keep: (StoreHandle) -> Bool) -> StoreHandle? {
        let closed = lock.withLock { () -> StoreHandle? in
            guard let held = handle, !keep(held) else { return nil }
            handle = nil
            return held
        }
        if closed != nil { StoreSlot.free.withLock { $0.append(self) } }
        return closed
    }
}
