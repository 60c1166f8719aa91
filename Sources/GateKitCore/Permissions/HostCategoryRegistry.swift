import GateKitStore
import GateKitSupport

/// The host's own categories (telemetry, crash reports, screen capture, …): a number from
/// `PermissionCategory.hostRange` and a name, persisted in `perm_categories`. A number or a
/// name keeps one meaning forever: registering either with a different partner is refused.
enum HostCategoryRegistry {
    /// Refuses built-in numbers and names, retired numbers and numbers below the host range.
    static func validate(_ category: Int32, name: String) throws(GateKitError) {
        try PermissionCategory.validateName(name)
        if let b = PermissionCategory.builtIn(category) {
            throw GateKitError(.EPERM_CONFLICT, "category \(category) is the built-in category '\(b.name)'; host categories use numbers from \(PermissionCategory.hostRange.lowerBound)")
        }
        if PermissionCategory.retiredMeaning(category) != nil || !PermissionCategory.hostRange.contains(category) {
            try PermissionSnapshot.refuse(category)
            throw GateKitError(.EPERM_CATEGORY, "host categories use numbers from \(PermissionCategory.hostRange.lowerBound) to \(Int32.max), not \(category)")
        }
        if let b = PermissionCategory.builtIn(named: name) {
            throw GateKitError(.EPERM_CONFLICT, "name \(Quoted.text(name)) is the built-in category \(b.number)")
        }
    }

    /// Inside a write transaction (the authority: another process may register meanwhile).
    /// The same number with the same name is a no-op.
    static func register(_ db: any DatabaseConnection, _ category: Int32, name: String, at now: Int64) throws(GateKitError) {
        let byNumber = try db.statement("SELECT name FROM perm_categories WHERE category = ?1")
        byNumber.bind(1, Int64(category))
        let existingName = try byNumber.step() ? byNumber.text(0) : nil
        byNumber.reset()
        if let existingName, existingName != name {
            throw GateKitError(.EPERM_CONFLICT, "category \(category) is already registered as \(Quoted.text(existingName)), not \(Quoted.text(name))")
        }
        let byName = try db.statement("SELECT category FROM perm_categories WHERE name = ?1")
        byName.bind(1, text: name)
        let existingNumber = try byName.step() ? byName.int64(0) : nil
        byName.reset()
        if let existingNumber, existingNumber != Int64(category) {
            throw GateKitError(.EPERM_CONFLICT, "name \(Quoted.text(name)) is already registered as category \(existingNumber), not \(category)")
        }
        guard existingName == nil else { return }
        let insert = try db.statement("INSERT INTO perm_categories(category, name, registered_ms) VALUES (?1, ?2, ?3)")
        try insert.bind(1, Int64(category)).bind(2, text: name).bind(3, now).run()
    }
}
