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

    // Guarded by the store's lock (touched only inside store.read / store.write).
    private var snapshot = PermissionSnapshot()
    private var snapshotIsStale = true
    private let probe = DataVersionProbe()
    private var provider: CallbackSlot<any SystemStateProvider>?

    // Guarded by notifyLock: what subscribers were last told, per category.
    private let notifyLock = Lock()
    private var reportedStored: [Int32: PermissionState] = [:]
    private var reportedEffective: [Int32: PermissionState] = [:]

    private let subscriptions = PermissionSubscriptions()
    private let watcherLock = Lock()
    private var watcher: PermissionWatcher?

    public static let maximumUsageDescriptionLength = 4096
    public static let maximumSequenceLength = 65_536
    public static let watchIntervalMilliseconds: ClosedRange<Int> = 1...3_600_000

    public init(store: Store) throws(GateKitError) {
        self.store = store
        let stored = try store.read { (db) throws(GateKitError) -> [Int32: PermissionState] in
            try refreshSnapshot(db)
            return snapshot.stored
        }
        reportedStored = stored
        reportedEffective = stored
    }

    /// Under the store's lock: reloads the snapshot when anyone committed since.
    @inline(__always)
    private func refreshSnapshot(_ db: SQLiteConnection) throws(GateKitError) {
        let changed = try probe.changed(db)
        if changed || snapshotIsStale {
            snapshot = try PermissionSnapshot.load(db)
            snapshotIsStale = false
        }
    }

    private typealias ProviderSlot = CallbackSlot<any SystemStateProvider>

    private func ask(_ slot: ProviderSlot?, _ category: Int32) throws(GateKitError) -> ProviderAnswer {
        guard let slot, let raw = slot.call({ p in CallbackScope.provider { p.systemState(of: category) } }) else {
            return .notDetermined
        }
        return try ProviderAnswer(raw: raw, category: category)
    }

    // MARK: Reading

    /// The effective state: the provider's answer when it has one, else the stored state.
    public func state(_ category: Int32) throws(GateKitError) -> PermissionState {
        try CallbackScope.refuseInsideProvider("perm_state")
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
            throw GateKitError(.tooLarge, "at most \(PermissionEngine.maximumSequenceLength) categories per sequence")
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
        try CallbackScope.refuseInsideProvider("perm_pending")
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
        try CallbackScope.refuseInsideProvider("perm_next")
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
        try CallbackScope.refuseInsideProvider("perm_record")
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
                    throw GateKitError(.permissionBlocked, "cannot record '\(decision.name)' for category \(label): category \(PermissionCategory.label(prerequisite)) is \(blocker.name), which rules it out")
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
        try CallbackScope.refuseInsideProvider("perm_reset")
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

    static func readStoredState(_ db: SQLiteConnection, _ category: Int32) throws(GateKitError) -> PermissionState {
        let s = try db.statement("SELECT state FROM perm_states WHERE category = ?1")
        defer { s.reset() }
        s.bind(1, Int64(category))
        guard try s.step(), let raw = Int32(exactly: s.int64(0)) else { return .unknown }
        return PermissionState(rawValue: raw) ?? .unknown
    }

    static func writeStoredState(_ db: SQLiteConnection, _ category: Int32, _ state: PermissionState, _ now: Int64) throws(GateKitError) {
        let s = try db.statement("""
            INSERT INTO perm_states(category, state, updated_ms) VALUES (?1, ?2, ?3)
            ON CONFLICT(category) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms
            """)
        try s.bind(1, Int64(category)).bind(2, Int64(state.rawValue)).bind(3, now).run()
    }

    // MARK: Change detection

    /// Under notifyLock: compares what subscribers were told with the store now (and with
    /// the provider's answers for every category when `askProviderForAll`), remembers the
    /// new states as told, and returns the changes to deliver. The provider's changed
    /// answers are appended to the history. A provider error skips that category and is
    /// returned with the changes.
    private func collectChanges(askProviderForAll: Bool) -> (changes: [PermissionChange], error: GateKitError?) {
        let current: PermissionSnapshot
        let slot: ProviderSlot?
        do {
            (current, slot) = try store.read { (db) throws(GateKitError) -> (PermissionSnapshot, ProviderSlot?) in
                try refreshSnapshot(db)
                return (snapshot, provider)
            }
        } catch {
            return ([], error)
        }
        var changes: [PermissionChange] = []
        var answers: [Int32: ProviderAnswer] = [:]
        var firstError: GateKitError?
        for c in current.knownCategories {
            let stored = current.storedState(c)
            let storedChanged = stored != (reportedStored[c] ?? .unknown)
            guard storedChanged || askProviderForAll else { continue }
            let answer: ProviderAnswer
            do {
                answer = try ask(slot, c)
            } catch {
                firstError = firstError ?? error
                continue
            }
            if slot != nil { answers[c] = answer }
            let now = PermissionStateMachine.effective(stored: stored, system: answer)
            let before = reportedEffective[c] ?? .unknown
            reportedStored[c] = stored
            reportedEffective[c] = now
            if now != before { changes.append(PermissionChange(category: c, old: before, new: now)) }
        }
        if askProviderForAll {
            do {
                try appendProviderAnswers(answers, seen: current.systemSeen)
            } catch {
                firstError = firstError ?? error
            }
        }
        return (changes, firstError)
    }

    /// Appends the provider's answers that differ from the last ones written, once per change
    /// across every handle and process (re-checked inside the write transaction).
    private func appendProviderAnswers(_ answers: [Int32: ProviderAnswer], seen: [Int32: ProviderAnswer]) throws(GateKitError) {
        let differing = answers.filter { $0.value != (seen[$0.key] ?? .notDetermined) }.sorted { $0.key < $1.key }
        guard !differing.isEmpty else { return }
        let now = Clock.nowMilliseconds()
        try store.write { (db) throws(GateKitError) in
            let read = try db.statement("SELECT system_state FROM perm_states WHERE category = ?1")
            let write = try db.statement("""
                INSERT INTO perm_states(category, state, system_state, updated_ms) VALUES (?1, 0, ?2, ?3)
                ON CONFLICT(category) DO UPDATE SET system_state = excluded.system_state
                """)
            for (c, answer) in differing {
                read.bind(1, Int64(c))
                let old: Int32 = try read.step() && !read.isNull(0) ? Int32(truncatingIfNeeded: read.int64(0)) : 0
                read.reset()
                guard old != answer.rawValue else { continue }
                try write.bind(1, Int64(c)).bind(2, Int64(answer.rawValue)).bind(3, now).run()
                write.reset()
                try PermissionHistory.append(db, category: c, from: old, to: answer.rawValue, source: .provider, at: now)
            }
            snapshotIsStale = true
        }
    }

    /// Change detection for `refresh` and the watcher. `shouldDeliver` lets a stopping
    /// watcher drop what it found.
    func detectChanges(askProvider: Bool, shouldDeliver: () -> Bool) throws(GateKitError) {
        let (changes, error) = notifyLock.withLock { collectChanges(askProviderForAll: askProvider) }
        if shouldDeliver() { subscriptions.deliver(changes) }
        if let error { throw error }
    }

    /// Re-reads the store and asks the provider about every category; callbacks fire on this
    /// thread for every change since subscribers were last told.
    public func refresh() throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("perm_refresh")
        try detectChanges(askProvider: true, shouldDeliver: { true })
    }

    // MARK: Configuration

    private static func validateUsageDescription(_ text: String) throws(GateKitError) {
        guard !text.isEmpty, text.utf8.count <= maximumUsageDescriptionLength else {
            throw .invalid("usage description must be 1 to \(maximumUsageDescriptionLength) bytes")
        }
    }

    private static func writeUsageDescription(_ db: SQLiteConnection, _ category: Int32, _ text: String, _ now: Int64) throws(GateKitError) {
        let s = try db.statement("""
            INSERT INTO perm_usage_descriptions(category, text, updated_ms) VALUES (?1, ?2, ?3)
            ON CONFLICT(category) DO UPDATE SET text = excluded.text, updated_ms = excluded.updated_ms
            """)
        try s.bind(1, Int64(category)).bind(2, text: text).bind(3, now).run()
    }

    /// The text shown to justify a prompt; required before a prompt is asked or recorded.
    /// Writing the same text again does not touch the store.
    public func setUsageDescription(_ category: Int32, _ text: String) throws(GateKitError) {
        try PermissionEngine.validateUsageDescription(text)
        let unchanged = try store.read { (db) throws(GateKitError) -> Bool in
            try refreshSnapshot(db)
            try snapshot.validate(category)
            return snapshot.usageDescriptions[category] == text
        }
        guard !unchanged else { return }
        let now = Clock.nowMilliseconds()
        try store.write { (db) throws(GateKitError) in
            try PermissionEngine.writeUsageDescription(db, category, text, now)
            snapshotIsStale = true
        }
    }

    /// Registers a host category (number from 1,000,000) with its name and usage description.
    /// Registering the same number and name again is allowed (the description is updated);
    /// a number or a name already meaning something else is refused.
    public func registerCategory(_ category: Int32, name: String, usageDescription: String) throws(GateKitError) {
        try PermissionCategory.validateName(name)
        try PermissionEngine.validateUsageDescription(usageDescription)
        if let b = PermissionCategory.builtIn(category) {
            throw GateKitError(.permissionConflict, "category \(category) is the built-in category '\(b.name)'; host categories use numbers from \(PermissionCategory.hostRange.lowerBound)")
        }
        if PermissionCategory.retiredMeaning(category) != nil || !PermissionCategory.hostRange.contains(category) {
            try PermissionSnapshot.refuse(category)
            throw GateKitError(.permissionCategory, "host categories use numbers from \(PermissionCategory.hostRange.lowerBound) to \(Int32.max), not \(category)")
        }
        if let b = PermissionCategory.builtIn(named: name) {
            throw GateKitError(.permissionConflict, "name '\(name)' is the built-in category \(b.number)")
        }
        let unchanged = try store.read { (db) throws(GateKitError) -> Bool in
            try refreshSnapshot(db)
            return snapshot.hostNames[category] == name && snapshot.usageDescriptions[category] == usageDescription
        }
        guard !unchanged else { return }
        let now = Clock.nowMilliseconds()
        try store.write { (db) throws(GateKitError) in
            let byNumber = try db.statement("SELECT name FROM perm_categories WHERE category = ?1")
            byNumber.bind(1, Int64(category))
            let existingName = try byNumber.step() ? byNumber.text(0) : nil
            byNumber.reset()
            if let existingName, existingName != name {
                throw GateKitError(.permissionConflict, "category \(category) is already registered as '\(existingName)', not '\(name)'")
            }
            let byName = try db.statement("SELECT category FROM perm_categories WHERE name = ?1")
            byName.bind(1, text: name)
            let existingNumber = try byName.step() ? byName.int64(0) : nil
            byName.reset()
            if let existingNumber, existingNumber != Int64(category) {
                throw GateKitError(.permissionConflict, "name '\(name)' is already registered as category \(existingNumber), not \(category)")
            }
            if existingName == nil {
                let insert = try db.statement("INSERT INTO perm_categories(category, name, registered_ms) VALUES (?1, ?2, ?3)")
                try insert.bind(1, Int64(category)).bind(2, text: name).bind(3, now).run()
            }
            try PermissionEngine.writeUsageDescription(db, category, usageDescription, now)
            snapshotIsStale = true
        }
    }

    /// Installs (or, with nil, removes) the system-state provider. Returns after any call of
    /// the previous provider on another thread has returned. Effective states that change
    /// with it are reported to subscribers on this thread, like a refresh.
    public func setSystemProvider(_ newProvider: (any SystemStateProvider)?) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("perm_set_system_provider")
        let old = try store.read { (_) throws(GateKitError) -> ProviderSlot? in
            defer { provider = newProvider.map { ProviderSlot($0) } }
            return provider
        }
        old?.retire()
        // Errors here (an invalid answer) surface again on the next state or refresh call.
        try? detectChanges(askProvider: true, shouldDeliver: { true })
    }

    public var hasSystemProvider: Bool {
        (try? store.read { (_) throws(GateKitError) -> Bool in provider != nil }) ?? false
    }

    // MARK: Names and listing

    public func categoryNumber(named name: String) throws(GateKitError) -> Int32 {
        if let b = PermissionCategory.builtIn(named: name) { return b.number }
        let number = try store.read { (db) throws(GateKitError) -> Int32? in
            try refreshSnapshot(db)
            return snapshot.hostNumbers[name]
        }
        guard let number else { throw GateKitError(.permissionCategory, "no permission category is named '\(name)'") }
        return number
    }

    public func categoryName(_ category: Int32) throws(GateKitError) -> String {
        try store.read { (db) throws(GateKitError) -> String in
            try refreshSnapshot(db)
            try snapshot.validate(category)
            return snapshot.name(of: category) ?? String(category)
        }
    }

    /// Every category (built-ins, then host ones) with its name, state and usage description.
    public func listJSON() throws(GateKitError) -> String {
        try CallbackScope.refuseInsideProvider("perm_list")
        let (current, slot) = try store.read { (db) throws(GateKitError) -> (PermissionSnapshot, ProviderSlot?) in
            try refreshSnapshot(db)
            return (snapshot, provider)
        }
        var items: [JSONValue] = []
        for c in current.knownCategories {
            let answer = try ask(slot, c)
            let state = PermissionStateMachine.effective(stored: current.storedState(c), system: answer)
            let builtIn = PermissionCategory.builtIn(c)
            items.append(.object([
                ("category", .number(Int64(c))),
                ("name", .string(current.name(of: c) ?? String(c))),
                ("state", .number(Int64(state.rawValue))),
                ("state_name", .string(state.name.description)),
                ("allows_prompt", .bool(state.allowsPrompt)),
                ("stored", .number(Int64(current.storedState(c).rawValue))),
                ("system", slot == nil ? .null : .number(Int64(answer.rawValue))),
                ("usage_description", current.usageDescriptions[c].map { .string($0) } ?? .null),
                ("host", .bool(builtIn == nil)),
                ("deprecated", .bool(builtIn?.deprecated ?? false)),
            ]))
        }
        return JSONWriter.serialize(.array(items))
    }

    // MARK: History

    /// Every change, oldest first, for one category or all (`PermissionCategory.all`).
    public func history(_ category: Int32) throws(GateKitError) -> [PermissionChangeRecord] {
        try store.read { (db) throws(GateKitError) -> [PermissionChangeRecord] in
            try refreshSnapshot(db)
            if category != PermissionCategory.all { try snapshot.validate(category) }
            return try PermissionHistory.read(db, category: category == PermissionCategory.all ? nil : category)
        }
    }

    public func historyJSON(_ category: Int32) throws(GateKitError) -> String {
        let records = try history(category)
        let names = try store.read { (_) throws(GateKitError) -> PermissionSnapshot in snapshot }
        return JSONWriter.serialize(.array(records.map { $0.json(name: names.name(of: $0.category)) }))
    }

    // MARK: Subscriptions and the watcher

    public func subscribe(_ callback: @escaping PermissionChangeCallback) throws(GateKitError) -> Int32 {
        try subscriptions.add(callback)
    }

    /// After it returns, the callback is not called again, and no call of it is running on
    /// another thread (unless this is called from inside a callback, where it cannot wait).
    public func unsubscribe(_ token: Int32) throws(GateKitError) {
        try subscriptions.remove(token)
    }

    /// Starts a background thread that detects changes every `intervalMilliseconds` and
    /// calls subscribers on that thread. `includeProvider` also asks the provider each time.
    public func startWatching(intervalMilliseconds: Int, includeProvider: Bool) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("perm_watch_start")
        guard PermissionEngine.watchIntervalMilliseconds.contains(intervalMilliseconds) else {
            throw .invalid("watch interval must be \(PermissionEngine.watchIntervalMilliseconds.lowerBound) to \(PermissionEngine.watchIntervalMilliseconds.upperBound) ms, not \(intervalMilliseconds)")
        }
        try watcherLock.withLock { () throws(GateKitError) in
            guard watcher == nil else { throw GateKitError(.permissionWatching, "the watcher is already running: stop it first") }
            let w = PermissionWatcher(engine: self, intervalMilliseconds: intervalMilliseconds, includeProvider: includeProvider)
            try w.start()
            watcher = w
        }
    }

    /// Stops the watcher (see `PermissionWatcher.stop`); false when none was running.
    @discardableResult
    public func stopWatching() throws(GateKitError) -> Bool {
        try CallbackScope.refuseInsideProvider("perm_watch_stop")
        let w = watcherLock.withLock { () -> PermissionWatcher? in
            defer { watcher = nil }
            return watcher
        }
        w?.stop()
        return w != nil
    }

    public var isWatching: Bool { watcherLock.withLock { watcher != nil } }

    /// Ends everything that could call the host: the watcher, subscriptions, the provider.
    public func close() {
        let w = watcherLock.withLock { () -> PermissionWatcher? in
            defer { watcher = nil }
            return watcher
        }
        w?.stop()
        subscriptions.removeAll()
        let old = try? store.read { (_) throws(GateKitError) -> ProviderSlot? in
            defer { provider = nil }
            return provider
        }
        old?.retire()
    }
}
