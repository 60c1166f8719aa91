import GateKitStore
import GateKitSupport

/// Configuration (usage descriptions, host categories, the provider), names, listing, history.
extension PermissionEngine {
    private static func validateUsageDescription(_ text: String) throws(GateKitError) {
        guard !text.isEmpty, text.utf8.count <= maximumUsageDescriptionLength else {
            throw .invalid("usage description must be 1 to \(maximumUsageDescriptionLength) bytes")
        }
    }

    private static func writeUsageDescription(_ db: any DatabaseConnection, _ category: Int32, _ text: String, _ now: Int64) throws(GateKitError) {
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
        try HostCategoryRegistry.validate(category, name: name)
        try PermissionEngine.validateUsageDescription(usageDescription)
        let unchanged = try store.read { (db) throws(GateKitError) -> Bool in
            try refreshSnapshot(db)
            return snapshot.hostNames[category] == name && snapshot.usageDescriptions[category] == usageDescription
        }
        guard !unchanged else { return }
        let now = Clock.nowMilliseconds()
        try store.write { (db) throws(GateKitError) in
            try HostCategoryRegistry.register(db, category, name: name, at: now)
            try PermissionEngine.writeUsageDescription(db, category, usageDescription, now)
            snapshotIsStale = true
        }
    }

    /// Installs (or, with nil, removes) the system-state provider. Returns after any call of
    /// the previous provider on another thread has returned. Effective states that change
    /// with it are reported to subscribers on this thread, like a refresh.
    public func setSystemProvider(_ newProvider: (any SystemStateProvider)?) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("changing the system state provider")
        let old = try store.read { (_) throws(GateKitError) -> ProviderSlot? in
            defer { provider = newProvider.map { ProviderSlot($0) } }
            return provider
        }
        old?.retire()
        (old?.value as? PortalProvider)?.stop()
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
        guard let number else { throw GateKitError(.EPERM_CATEGORY, "no permission category is named \(Quoted.text(name))") }
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
        try CallbackScope.refuseInsideProvider("listing the categories")
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
                // Asking needs a usage description too (record and pending refuse without one).
                ("allows_prompt", .bool(state.allowsPrompt && current.usageDescriptions[c] != nil)),
                ("stored", .number(Int64(current.storedState(c).rawValue))),
                ("system", slot == nil ? .null : .number(Int64(answer.rawValue))),
                ("usage_description", current.usageDescriptions[c].map { .string($0) } ?? .null),
                ("host", .bool(builtIn == nil)),
                ("deprecated", .bool(builtIn?.deprecated ?? false)),
            ]))
        }
        return JSONDocument.list("categories", items)
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
        return JSONDocument.list("changes", records.map { $0.json(name: names.name(of: $0.category)) })
    }
}
