import GateKitStore
import GateKitSupport

/// Permission state over a store: ISHPermissionKit's model (system state first, then the
/// stored state), with reset, history and change notifications.
///
/// Reads are served from an in-memory snapshot of the permission tables, kept coherent with
/// the store through its data version (`DataVersionProbe`): a read costs a lock and a
/// memory compare unless some connection committed since, when the snapshot is reloaded.
///
/// Locks: the store's lock guards the snapshot and the provider slot; `notifyLock`
/// serializes change detection so subscribers see one ordered chain of old → new. The
/// provider and the callbacks are never called with the store's lock held, and callbacks
/// run after `notifyLock` is released.
public final class PermissionEngine: @unchecked Sendable {
    public let store: Store

    // Guarded by the store's lock (touched only inside store.read / store.write). That lock
    // already makes every access exclusive, so Swift's dynamic exclusivity check is skipped:
    // across the module boundary to the Store it could no longer be proven away (what it
    // cost perm_state: BENCHMARKS.md, "Layers as modules").
    @exclusivity(unchecked) var snapshot = PermissionSnapshot()
    @exclusivity(unchecked) var snapshotIsStale = true
    private let probe: any ChangeProbe
    @exclusivity(unchecked) var provider: CallbackSlot<any SystemStateProvider>?

    // Guarded by notifyLock: what subscribers were last told, per category.
    let notifyLock = Lock()
    var reportedStored: [Int32: PermissionState] = [:]
    var reportedEffective: [Int32: PermissionState] = [:]

    let subscriptions = PermissionSubscriptions()
    let watcherLock = Lock()
    var watcher: PermissionWatcher?

    public static let maximumUsageDescriptionLength = 4096
    public static let maximumSequenceLength = 65_536
    public static let watchIntervalMilliseconds: ClosedRange<Int> = 1...3_600_000

    /// One engine per `Store` (the C layer makes one per handle): the snapshot relies on the
    /// data version, which does not move for the connection's own commits, so a second
    /// engine on the same connection would not see the first one's writes.
    public init(store: Store) throws(GateKitError) {
        self.store = store
        probe = store.makeChangeProbe()
        let stored = try store.read { (db) throws(GateKitError) -> [Int32: PermissionState] in
            try refreshSnapshot(db)
            return snapshot.stored
        }
        reportedStored = stored
        reportedEffective = stored
    }

    /// Under the store's lock: reloads the snapshot when anyone committed since.
    @inline(__always)
    func refreshSnapshot(_ db: any DatabaseConnection) throws(GateKitError) {
        let changed = try probe.changed()
        if changed || snapshotIsStale {
            snapshot = try PermissionSnapshot.load(db)
            snapshotIsStale = false
        }
    }

    typealias ProviderSlot = CallbackSlot<any SystemStateProvider>

    func ask(_ slot: ProviderSlot?, _ category: Int32) throws(GateKitError) -> ProviderAnswer {
        guard let slot, let raw = slot.call({ p in CallbackScope.provider { p.systemState(of: category) } }) else {
            return .notDetermined
        }
        return try ProviderAnswer(raw: raw, category: category)
    }

    // MARK: Reading

    /// The effective state: the provider's answer when it has one, else the stored state.
    public func state(_ category: Int32) throws(GateKitError) -> PermissionState {
        try CallbackScope.refuseInsideProvider("asking for a state")
        let (stored, slot) = try store.read { (db) throws(GateKitError) -> (PermissionState, ProviderSlot?) in
            try refreshSnapshot(db)
            try snapshot.validate(category)
            return (snapshot.storedState(category), provider)
        }
        guard let slot else { return stored }
        return PermissionStateMachine.effective(stored: stored, system: try ask(slot, category))
    }

    /// Validates every category and its usage description; returns the stored states.
    private func prepareSequence(_ categories: [Int32]) throws(GateKitError) -> ([Int32: PermissionState], ProviderSlot?) {
        guard categories.count <= PermissionEngine.maximumSequenceLength else {
            throw GateKitError(.ETOOLARGE, "at most \(PermissionEngine.maximumSequenceLength) categories per sequence")
        }
        return try store.read { (db) throws(GateKitError) -> ([Int32: PermissionState], ProviderSlot?) in
            try refreshSnapshot(db)
            for c in categories { try snapshot.validate(c) }
            for c in categories { try snapshot.requireUsageDescription(c) }
            return (snapshot.stored, provider)
        }
    }

    /// The categories that still allow a prompt, in order, each once: state unknown or ask
    /// again, and not ruled out by another answer (`PermissionSequencing`). Every category
    /// must have a usage description.
    public func pending(_ categories: [Int32]) throws(GateKitError) -> [Int32] {
        try CallbackScope.refuseInsideProvider("listing the categories to ask for")
        let (stored, slot) = try prepareSequence(categories)
        return try promptable(categories, stored: stored, slot: slot)
    }

    private func promptable(_ categories: some Sequence<Int32>, stored: [Int32: PermissionState], slot: ProviderSlot?) throws(GateKitError) -> [Int32] {
        var effective: [Int32: PermissionState] = [:]
        func state(_ c: Int32) throws(GateKitError) -> PermissionState {
            if let known = effective[c] { return known }
            let s = PermissionStateMachine.effective(stored: stored[c] ?? .unknown, system: try ask(slot, c))
            effective[c] = s
            return s
        }
        var seen = Set<Int32>()
        var out: [Int32] = []
        for c in categories where seen.insert(c).inserted {
            guard try state(c).allowsPrompt else { continue }
            if let prerequisite = PermissionSequencing.prerequisite(of: c),
               PermissionSequencing.blocks(try state(prerequisite)) { continue }
            out.append(c)
        }
        return out
    }

    /// One step of a prompt sequence: the first category after `after` (0: from the start)
    /// that is promptable now, skipping every category at or before `after`'s first
    /// position. nil when nothing is left.
    public func next(_ categories: [Int32], after: Int32) throws(GateKitError) -> Int32? {
        try CallbackScope.refuseInsideProvider("choosing the next category")
        let (stored, slot) = try prepareSequence(categories)
        var start = 0
        if after != 0 {
            guard let i = categories.firstIndex(of: after) else {
                throw .invalid("after (\(after)) is not one of the sequence's categories")
            }
            start = i + 1
        }
        let done = Set(categories[..<start])
        let rest = categories[start...].lazy.filter { !done.contains($0) }
        return try promptable(rest, stored: stored, slot: slot).first
    }

    // MARK: Changing state

    /// Records the user's pre-prompt answer or the system dialog's result (durable on return).
    @discardableResult
    public func record(_ category: Int32, decision raw: Int32) throws(GateKitError) -> PermissionState {
        let decision = try PermissionDecision.from(raw)
        try CallbackScope.refuseInsideProvider("recording a decision")
        let (newState, changes) = try notifyLock.withLock { () throws(GateKitError) -> (PermissionState, [PermissionChange]) in
            let (label, slot) = try store.read { (db) throws(GateKitError) -> (String, ProviderSlot?) in
                try refreshSnapshot(db)
                try snapshot.validate(category)
                try snapshot.requireUsageDescription(category)
                return (snapshot.label(category), provider)
            }
            let answer = try ask(slot, category)
            if let prerequisite = PermissionSequencing.prerequisite(of: category) {
                let stored = try store.read { (db) throws(GateKitError) -> PermissionState in
                    try refreshSnapshot(db)
                    return snapshot.storedState(prerequisite)
                }
                let blocker = PermissionStateMachine.effective(stored: stored, system: try ask(slot, prerequisite))
                if PermissionSequencing.blocks(blocker) {
                    throw GateKitError(.EPERM_BLOCKED, "cannot record '\(decision.name)' for category \(label): category \(PermissionCategory.label(prerequisite)) is \(blocker.name), which rules it out")
                }
            }
            let now = Clock.nowMilliseconds()
            let next = try store.write { (db) throws(GateKitError) -> PermissionState in
                // The stored state inside the write transaction is the authority (another
                // process may have answered since the snapshot was taken).
                let before = try PermissionEngine.readStoredState(db, category)
                let after = try PermissionStateMachine.apply(decision, category: label, stored: before, system: answer)
                try PermissionEngine.writeStoredState(db, category, after, now)
                try PermissionHistory.append(db, category: category, from: before.rawValue, to: after.rawValue, source: decision.source, at: now)
                snapshotIsStale = true
                return after
            }
            let effective = PermissionStateMachine.effective(stored: next, system: answer)
            return (effective, collectChanges(askProviderForAll: false).changes)
        }
        subscriptions.deliver(changes)
        return newState
    }

    /// Sets the stored state of one category, or of every category (`PermissionCategory.all`),
    /// back to unknown — the way out of a final state. Each actual change is in the history.
    public func reset(_ category: Int32) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("resetting a state")
        let changes = try notifyLock.withLock { () throws(GateKitError) -> [PermissionChange] in
            if category != PermissionCategory.all {
                try store.read { (db) throws(GateKitError) in
                    try refreshSnapshot(db)
                    try snapshot.validate(category)
                }
            }
            let now = Clock.nowMilliseconds()
            try store.write { (db) throws(GateKitError) in
                let all = category == PermissionCategory.all
                let select = try db.statement(all
                    ? "SELECT category, state FROM perm_states WHERE state != 0 ORDER BY category"
                    : "SELECT category, state FROM perm_states WHERE category = ?1 AND state != 0")
                if !all { select.bind(1, Int64(category)) }
                var rows: [(Int32, Int32)] = []
                while try select.step() {
                    if let c = Int32(exactly: select.int64(0)), let s = Int32(exactly: select.int64(1)) { rows.append((c, s)) }
                }
                select.reset()
                for (c, old) in rows {
                    try PermissionEngine.writeStoredState(db, c, .unknown, now)
                    try PermissionHistory.append(db, category: c, from: old, to: PermissionState.unknown.rawValue, source: .reset, at: now)
                }
                snapshotIsStale = true
            }
            return collectChanges(askProviderForAll: false).changes
        }
        subscriptions.deliver(changes)
    }

    static func readStoredState(_ db: any DatabaseConnection, _ category: Int32) throws(GateKitError) -> PermissionState {
        let s = try db.statement("SELECT state FROM perm_states WHERE category = ?1")
        defer { s.reset() }
        s.bind(1, Int64(category))
        guard try s.step(), let raw = Int32(exactly: s.int64(0)) else { return .unknown }
        return PermissionState(rawValue: raw) ?? .unknown
    }

    static func writeStoredState(_ db: any DatabaseConnection, _ category: Int32, _ state: PermissionState, _ now: Int64) throws(GateKitError) {
        let s = try db.statement("""
            INSERT INTO perm_states(category, state, updated_ms) VALUES (?1, ?2, ?3)
            ON CONFLICT(category) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms
            """)
        try s.bind(1, Int64(category)).bind(2, Int64(state.rawValue)).bind(3, now).run()
    }
}
