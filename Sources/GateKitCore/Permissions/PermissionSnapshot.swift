import GateKitStore
import GateKitSupport

/// Everything the engine reads on the hot path, loaded from the store in one pass. It is
/// replaced whole when the store changed (`DataVersionProbe`), never patched.
struct PermissionSnapshot {
    /// Stored ("internal") states; a missing category is unknown.
    var stored: [Int32: PermissionState] = [:]
    /// The provider's last answer written to the history, per category.
    var systemSeen: [Int32: ProviderAnswer] = [:]
    var usageDescriptions: [Int32: String] = [:]
    /// Host categories: number → name, name → number.
    var hostNames: [Int32: String] = [:]
    var hostNumbers: [String: Int32] = [:]

    static func load(_ db: any DatabaseConnection) throws(GateKitError) -> PermissionSnapshot {
        var s = PermissionSnapshot()
        let states = try db.statement("SELECT category, state, system_state FROM perm_states")
        defer { states.reset() }
        while try states.step() {
            guard let category = Int32(exactly: states.int64(0)) else { continue }
            if let raw = Int32(exactly: states.int64(1)), let state = PermissionState(rawValue: raw), state != .unknown {
                s.stored[category] = state
            }
            if !states.isNull(2), let raw = Int32(exactly: states.int64(2)), let answer = ProviderAnswer(rawValue: raw) {
                s.systemSeen[category] = answer
            }
        }
        let usage = try db.statement("SELECT category, text FROM perm_usage_descriptions")
        defer { usage.reset() }
        while try usage.step() {
            guard let category = Int32(exactly: usage.int64(0)), let text = usage.text(1), !text.isEmpty else { continue }
            s.usageDescriptions[category] = text
        }
        let hosts = try db.statement("SELECT category, name FROM perm_categories")
        defer { hosts.reset() }
        while try hosts.step() {
            guard let category = Int32(exactly: hosts.int64(0)), let name = hosts.text(1) else { continue }
            s.hostNames[category] = name
            s.hostNumbers[name] = category
        }
        return s
    }

    /// Built-ins in number order, then host categories in number order.
    var knownCategories: [Int32] {
        PermissionCategory.builtIns.map(\.number) + hostNames.keys.sorted()
    }

    func name(of category: Int32) -> String? {
        if let b = PermissionCategory.builtIn(category) { return b.name.description }
        return hostNames[category]
    }

    func label(_ category: Int32) -> String {
        PermissionCategory.label(category, hostName: hostNames[category])
    }

    /// Refuses 0, negative, retired, unassigned and unregistered numbers, each precisely.
    @inline(__always)
    func validate(_ category: Int32) throws(GateKitError) {
        if PermissionCategory.builtIn(category) != nil || hostNames[category] != nil { return }
        try PermissionSnapshot.refuse(category)
    }

    static func refuse(_ category: Int32) throws(GateKitError) {
        if let meaning = PermissionCategory.retiredMeaning(category) {
            throw GateKitError(.EPERM_RETIRED, "category \(category) is retired (it was \(meaning)); it is never reused")
        }
        if PermissionCategory.hostRange.contains(category) {
            throw GateKitError(.EPERM_CATEGORY, "category \(category) is not registered: register it first")
        }
        if category == 0 { throw GateKitError(.EPERM_CATEGORY, "category 0 is the invalid category") }
        throw GateKitError(.EPERM_CATEGORY, "\(category) is not a permission category (built-in numbers are 1000-11000; host categories start at \(PermissionCategory.hostRange.lowerBound))")
    }

    func requireUsageDescription(_ category: Int32) throws(GateKitError) {
        guard usageDescriptions[category] != nil else {
            throw GateKitError(.EPERM_NO_USAGE, "category \(label(category)) has no usage description: set one before asking for it")
        }
    }

    func storedState(_ category: Int32) -> PermissionState { stored[category] ?? .unknown }
}
