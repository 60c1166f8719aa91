import GateKitSupport

/// The desktop's permission store as this engine's system-state provider.
extension PermissionEngine {
    /// Answers the system state from the Linux desktop's permission store for `appID` (nil:
    /// the sandboxed app's own id from /.flatpak-info). Replaces any other provider; changes
    /// arrive through the store's `Changed` signal. Fails with `.EPERM_PORTAL` and the
    /// reason when the session bus or the store cannot be reached now.
    public func usePortal(appID: String?) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("enabling the desktop permission store")
        let id: String
        if let appID { id = appID } else { id = try FlatpakInfo.appID() }
        let portal = try PortalProvider(appID: id)
        portal.engine = self
        try setSystemProvider(portal)
        try portal.start()
    }

    /// Maps `category` (a built-in or a registered host category) to the permission store's
    /// entry `table`/`id`, replacing the built-in mapping; nil table and id: no portal answer.
    public func mapPortal(_ category: Int32, table: String?, id: String?) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("mapping a category to the permission store")
        try store.read { (db) throws(GateKitError) in
            try refreshSnapshot(db)
            try snapshot.validate(category)
        }
        let entry: PortalMapping.Entry?
        switch (table, id) {
        case let (table?, id?):
            try PortalMapping.validate(table, "table")
            try PortalMapping.validate(id, "id")
            entry = PortalMapping.Entry(table: table, id: id)
        case (nil, nil):
            entry = nil
        default:
            throw .invalid("pass both the portal table and id, or neither")
        }
        try currentPortal().map(category, to: entry)
        try detectChanges(askProvider: true, shouldDeliver: { true })
    }

    /// nil while answers come from the permission store; else why they fall back to the
    /// stored state now (the bus or the store went away; it recovers on its own).
    public func portalFailure() throws(GateKitError) -> String? {
        try currentPortal().currentFailure
    }

    private func currentPortal() throws(GateKitError) -> PortalProvider {
        let portal = try store.read { (_) throws(GateKitError) -> PortalProvider? in provider?.value as? PortalProvider }
        guard let portal else {
            throw GateKitError(.EPERM_PORTAL, "the desktop permission store is not this handle's provider: call perm_use_portal first")
        }
        return portal
    }
}
