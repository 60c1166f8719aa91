import Glibc
import GateKitSupport

/// The system-state provider backed by the Linux desktop's permission store
/// (xdg-desktop-portal's `org.freedesktop.impl.portal.PermissionStore` on the session bus).
///
/// Answers come from a cache filled when the provider is enabled and kept current by the
/// store's `Changed` signal, which a listener thread receives: no D-Bus round trip per answer
/// and no polling. Each change runs the engine's change detection, so subscribers hear about
/// it (in this process; every other process with its own provider hears the same signal).
/// When the bus or the service goes away, answers are "could not tell" (the stored state
/// decides) with the reason in `failure`, until the service is back.
final class PortalProvider: SystemStateProvider, @unchecked Sendable {
    let appID: String
    weak var engine: PermissionEngine?

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var mapping = PortalMapping() { didSet { recompute() } }
    private var cache: [PortalMapping.Entry: [String: [String]]] = [:] { didSet { recompute() } }
    private var failure: String? { didSet { recompute() } }
    /// The unique name of the permission store's owner: the only sender whose `Changed` is believed.
    private var owner: String?
    /// Each mapped category's answer, derived from the three above whenever one changes, so
    /// an answer is one lookup instead of a derivation per perm_state (BENCHMARKS.md).
    private var answers: [Int32: Int32] = [:]
    /// The listener's session (signals) and the one method calls go through (see DBusSession).
    private var signals: DBusSession
    private var calls: DBusSession
    private var stopping = false
    private var thread: BackgroundThread?

    /// How long the listener waits for traffic before checking whether it should stop, and
    /// how often it tries to reach a lost bus again.
    static let listenMilliseconds: Int32 = 50
    static let reconnectMilliseconds = 500

    /// Connects, reads every mapped entry (starting the store by D-Bus activation where the
    /// desktop has it), and fails with the reason when the bus or the store cannot be reached.
    init(appID: String) throws(GateKitError) {
        guard !appID.isEmpty, appID.utf8.count <= PortalMapping.maximumNameLength else {
            throw .invalid("app_id must be 1 to \(PortalMapping.maximumNameLength) bytes")
        }
        self.appID = appID
        signals = try DBusSession(listening: true)
        calls = try DBusSession(listening: false)
        cache = try PortalProvider.fetch(Set(mapping.entries.values), from: calls)  // activates the service
        owner = try calls.serviceOwner()
        recompute()
    }

    /// Under `lock` (or in init): the answers from the mapping, the cache and the failure.
    private func recompute() {
        var out: [Int32: Int32] = [:]
        for (category, entry) in mapping.entries {
            out[category] = failure != nil ? -1 : PortalMapping.systemState(table: entry.table, strings: cache[entry]?[appID])
        }
        answers = out
    }

    private static func fetch(_ entries: Set<PortalMapping.Entry>, from session: DBusSession) throws(GateKitError) -> [PortalMapping.Entry: [String: [String]]] {
        var out: [PortalMapping.Entry: [String: [String]]] = [:]
        for entry in entries { out[entry] = try session.lookup(table: entry.table, id: entry.id) }
        return out
    }

    func systemState(of category: Int32) -> Int32 {
        lock.withLock { answers[category] ?? 0 }
    }

    /// Why answers fall back to the stored state now; nil while they come from the store.
    var currentFailure: String? { lock.withLock { failure } }

    /// Maps a category to an entry (nil: no portal answer for it) and reads that entry now.
    func map(_ category: Int32, to entry: PortalMapping.Entry?) throws(GateKitError) {
        if let entry {
            let (current, isDown) = lock.withLock { (calls, failure != nil) }
            if !isDown {
                let permissions = try current.lookup(table: entry.table, id: entry.id)
                lock.withLock { cache[entry] = permissions }
            }
        }
        lock.withLock { mapping.map(category, to: entry) }
    }

    // MARK: The listener

    func start() throws(GateKitError) {
        thread = try BackgroundThread.start("portal listener") { self.listen() }
    }

    /// Ends the listener; from another thread, returns after it exited.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()  // a listener waiting to reconnect wakes now
        }
        thread?.finish()
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func listen() {
        defer {
            let (s, c) = lock.withLock { (signals, calls) }
            s.close()
            c.close()
        }
        while !isStopping {
            let current = lock.withLock { signals }
            guard current.wait(milliseconds: PortalProvider.listenMilliseconds) else {
                fallBack("the session bus connection was lost")
                reconnect()
                continue
            }
            var changed = false
            while let event = current.nextEvent() {
                switch event {
                case let .changed(table, id, permissions, sender):
                    let entry = PortalMapping.Entry(table: table, id: id)
                    lock.withLock {
                        // Any peer can send `Changed`; only the store's owner is believed.
                        if sender == owner, mapping.entries.values.contains(entry) {
                            cache[entry] = permissions
                            changed = true
                        }
                    }
                case .service(owner: nil):
                    lock.withLock { owner = nil }
                    fallBack("xdg-permission-store left the session bus")
                case .service(owner: .some):
                    refetch()
                case .other:
                    continue
                }
            }
            if changed { detectChanges() }
        }
    }

    /// Answers fall back to the stored state from now on, and subscribers hear of it.
    private func fallBack(_ reason: String) {
        let first = lock.withLock { () -> Bool in
            defer { failure = reason }
            return failure == nil
        }
        if first { detectChanges() }
    }

    /// Reads every mapped entry again (the service is back): answers come from the store again.
    private func refetch() {
        let (entries, current) = lock.withLock { (Set(mapping.entries.values), calls) }
        do {
            let fresh = try PortalProvider.fetch(entries, from: current)
            let newOwner = try current.serviceOwner()
            lock.withLock {
                owner = newOwner
                cache = fresh
                failure = nil
            }
        } catch {
            lock.withLock { failure = error.message }
        }
        detectChanges()
    }

    /// Tries to reach the bus again until it answers or the provider stops.
    private func reconnect() {
        while !isStopping {
            lock.withLock { if !stopping { lock.wait(milliseconds: PortalProvider.reconnectMilliseconds) } }
            guard !isStopping, let listening = try? DBusSession(listening: true),
                  let calling = try? DBusSession(listening: false) else { continue }
            lock.withLock {
                signals = listening
                calls = calling
            }
            refetch()
            return
        }
    }

    private func detectChanges() {
        try? engine?.detectChanges(askProvider: true, shouldDeliver: { !self.isStopping })
    }
}
