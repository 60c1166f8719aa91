import GateKitSupport

/// Change detection: what subscribers were told, against the store and the provider now.
extension PermissionEngine {
    /// Under notifyLock: compares what subscribers were told with the store now (and with
    /// the provider's answers for every category when `askProviderForAll`), remembers the
    /// new states as told, and returns the changes to deliver. The provider's changed
    /// answers are appended to the history. A provider error skips that category and is
    /// returned with the changes.
    func collectChanges(askProviderForAll: Bool) -> (changes: [PermissionChange], error: GateKitError?) {
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
        try CallbackScope.refuseInsideProvider("refreshing")
        try detectChanges(askProvider: true, shouldDeliver: { true })
    }
}
