import GateKitSupport

/// Answers, for one store handle, "did another connection commit since I last asked?" — what
/// lets the ledger and the permission engine keep answers cached. Use only under the store's
/// lock (inside `Store.read` or `Store.write`).
public protocol ChangeProbe: AnyObject {
    /// True on the first call and whenever another connection (of this or another process)
    /// committed since the previous call. Commits through this handle do not count, and on
    /// PostgreSQL neither do `.singleInsert` and `.chainLink` writes (EULA decisions), which no cache reads.
    func changed() throws(GateKitError) -> Bool
    /// Forgets what was seen: the next `changed` answers true.
    func invalidate()
    /// False when no commit can be heard (a PostgreSQL store behind a pooler with no listen
    /// connection): `changed` is always true, and a wait must poll the store instead.
    var seesCommits: Bool { get }
}

extension ChangeProbe {
    public var seesCommits: Bool { true }
}
