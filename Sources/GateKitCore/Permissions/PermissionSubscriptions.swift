import GateKitSupport

/// A change of a category's effective state (what `state` returns).
public struct PermissionChange: Equatable, Sendable {
    public var category: Int32
    public var old: PermissionState
    public var new: PermissionState

    public init(category: Int32, old: PermissionState, new: PermissionState) {
        self.category = category
        self.old = old
        self.new = new
    }
}

public typealias PermissionChangeCallback = @Sendable (PermissionChange) -> Void

/// The change callbacks of one engine. Delivery runs on the caller's thread with no lock
/// held, so a callback may call back into GateKit, and may unsubscribe itself or others.
final class PermissionSubscriptions: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [(token: Int32, slot: CallbackSlot<PermissionChangeCallback>)] = []
    private var lastToken: Int32 = 0

    static let maximumSubscriptions = 4096

    func add(_ callback: @escaping PermissionChangeCallback) throws(GateKitError) -> Int32 {
        try lock.withLock { () throws(GateKitError) -> Int32 in
            guard slots.count < PermissionSubscriptions.maximumSubscriptions else {
                throw GateKitError(.ETOOLARGE, "at most \(PermissionSubscriptions.maximumSubscriptions) subscriptions per store handle")
            }
            repeat {
                lastToken = lastToken == Int32.max ? 1 : lastToken &+ 1
            } while slots.contains { $0.token == lastToken }
            slots.append((lastToken, CallbackSlot(callback)))
            return lastToken
        }
    }

    /// Returns once no other thread is still running the callback (see `CallbackSlot`).
    func remove(_ token: Int32) throws(GateKitError) {
        let slot = try lock.withLock { () throws(GateKitError) -> CallbackSlot<PermissionChangeCallback> in
            guard let i = slots.firstIndex(where: { $0.token == token }) else {
                throw GateKitError(.EPERM_TOKEN, "no subscription has token \(token) (already unsubscribed?)")
            }
            return slots.remove(at: i).slot
        }
        slot.retire()
    }

    func removeAll() {
        let all = lock.withLock {
            defer { slots.removeAll() }
            return slots
        }
        for entry in all { entry.slot.retire() }
    }

    var isEmpty: Bool { lock.withLock { slots.isEmpty } }

    /// Calls every subscriber for every change, in order. A subscriber removed meanwhile
    /// (even by an earlier callback of this same delivery) is not called again.
    func deliver(_ changes: [PermissionChange]) {
        guard !changes.isEmpty else { return }
        for change in changes {
            let current = lock.withLock { slots.map(\.slot) }
            for slot in current {
                _ = slot.call { callback in CallbackScope.callback { callback(change) } }
            }
        }
    }
}
