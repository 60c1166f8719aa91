import CGateKitHeader
import GateKitSchema
import GateKitEULA
import GateKitLedger
import GateKitLedgerSync
import GateKitPlayAPI
import GateKitPlayData
import GateKitPermissions
import GateKitStore
import GateKitSupport

/// What a `gatekit_store *` points at: the core store plus state the C layer keeps per handle.
final class StoreHandle {
    let store: Store
    let eula: EULAGate
    /// Permission state, its provider, subscriptions and watcher for this handle.
    let permissions: PermissionEngine
    let ledger: Ledger
    /// Who each store's purchases' questions ask before saying no, by store name
    /// (`ledger_set_refresher`, `ledger_set_play_refresher`, `ledger_set_stripe_refresher`).
    let refreshers = Locked<[String: any PurchaseRefresher]>([:])

    /// Sets (or, nil, removes) the refresher of `store`'s purchases.
    func setRefresher(_ refresher: (any PurchaseRefresher)?, of store: PurchaseStore) {
        refreshers.withLock { $0[store.name] = refresher }
    }
    let cPath: UnsafeMutablePointer<CChar>
    /// The process generation the handle was opened in (`ForkGeneration`).
    let generation = ForkGeneration.current

    init(store: Store) throws(GateKitError) {
        self.store = store
        eula = EULAGate(store: store)
        permissions = try PermissionEngine(store: store)
        ledger = Ledger(store: store)
        cPath = try Owned.cString(store.path)
    }

    deinit { gatekitFree(cPath) }

    var opaque: OpaquePointer { StoreSlot.open(self) }

    private static let forked = GateKitError(.EFORKED, "this handle was opened before the process forked; its connection belongs to the parent. Open the store again in the child (gunicorn: in post_fork or without preload_app; uWSGI: lazy-apps)")

    static func from(_ p: OpaquePointer?) throws(GateKitError) -> StoreHandle {
        guard let p else { throw .invalid("store is NULL") }
        let slot = StoreSlot.slot(p)
        guard slot.openedHere else { throw forked }
        // The slot's generation is its handle's (`StoreSlot.open`): checked above, without a lock.
        guard let handle = slot.current else {
            throw .invalid("store was closed (gatekit_store_close): open the store again")
        }
        return handle
    }
}

private func openStore(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                       _ appID: UnsafePointer<CChar>?, flags: UInt32, listenURI: UnsafePointer<CChar>? = nil) throws(GateKitError) -> Int32 {
    let out = try Arguments.out(out)
    out.pointee = nil
    let known = GATEKIT_STORE_GROUP_SHARED | GATEKIT_STORE_EXISTING
    guard flags & ~known == 0 else {
        throw .invalid("flags has unknown bits 0x\(String(flags & ~known, radix: 16))")
    }
    let sharing: StoreSharing = flags & GATEKIT_STORE_GROUP_SHARED != 0 ? .group : .ownerOnly
    let store = try Store(schema: .gatekit, path: try Arguments.optionalString(path, "path"), appID: try Arguments.optionalString(appID, "app_id"),
                          sharing: sharing, mustExist: flags & GATEKIT_STORE_EXISTING != 0,
                          listenURI: try Arguments.optionalString(listenURI, "listen_uri"))
    out.pointee = try StoreHandle(store: store).opaque
    return GATEKIT_OK
}

@c(gatekit_store_open)
public func gatekitStoreOpen(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?, _ appID: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("gatekit_store_open") { () throws(GateKitError) in try openStore(out, path, appID, flags: 0) }
}

@c(gatekit_store_open_flags)
public func gatekitStoreOpenFlags(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                                  _ appID: UnsafePointer<CChar>?, _ flags: UInt32) -> Int32 {
    exportBoundary("gatekit_store_open_flags") { () throws(GateKitError) in try openStore(out, path, appID, flags: flags) }
}

@c(gatekit_store_open_listening)
public func gatekitStoreOpenListening(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                                      _ appID: UnsafePointer<CChar>?, _ flags: UInt32, _ listenURI: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("gatekit_store_open_listening") { () throws(GateKitError) in
        try openStore(out, path, appID, flags: flags, listenURI: listenURI)
    }
}

@c(gatekit_store_close)
public func gatekitStoreClose(_ store: OpaquePointer?) {
    guard let store else { return }
    // A handle inherited over fork is left alone: closing it would close the parent's
    // connection (PostgreSQL's Terminate on the shared socket) and join threads the child
    // does not have. Its memory stays with the child's copy of the parent's.
    guard let handle = StoreSlot.slot(store).close() else { return }
    // Nothing may call the host after close: stop the watcher, drop callbacks and provider.
    // A call still under way on another thread holds its own reference: the handle ends after it.
    handle.permissions.close()
}

@c(gatekit_store_path)
public func gatekitStorePath(_ store: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let store else { return nil }
    let slot = StoreSlot.slot(store)
    guard slot.openedHere, let handle = slot.current else { return nil }
    return UnsafePointer(handle.cPath)
}

@c(gatekit_store_check)
public func gatekitStoreCheck(_ store: OpaquePointer?) -> Int32 {
    exportBoundary("gatekit_store_check") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        var problems = try handle.store.integrityReport()
        // A sound file can still hold a history edited behind GateKit's back: its chains say.
        if problems.isEmpty { problems = try handle.eula.chainProblems() }
        guard problems.isEmpty else {
            throw GateKitError(.ECORRUPT, "\(problems.count) problem(s): \(problems.prefix(5).joined(separator: "; "))")
        }
        return GATEKIT_OK
    }
}
