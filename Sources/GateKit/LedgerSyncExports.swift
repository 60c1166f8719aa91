import CGateKitHeader
import GateKitLedger
import GateKitLedgerSync
import GateKitSupport

/// Bytes of `gatekit_ledger_sync_options` per version.
private let syncOptionsSizes = [MemoryLayout<gatekit_ledger_sync_options>.size]

@c(ledger_sync_options_init)
public func ledgerSyncOptionsInit(_ options: UnsafeMutablePointer<gatekit_ledger_sync_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_sync_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: syncOptionsSizes, "gatekit_ledger_sync_options")
        guard let options else { return rc }
        options.pointee.overlap_ms = NotificationSync.Options.defaultOverlapMs
        options.pointee.lease_ms = NotificationSync.Options.defaultLeaseMs
        return rc
    }
}

@c(ledger_sync_notifications)
public func ledgerSyncNotifications(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                                    _ options: UnsafePointer<gatekit_ledger_sync_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_sync_notifications") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let client = try appStoreClient(client)
        let o = try Arguments.versioned(options, sizes: syncOptionsSizes, zero: gatekit_ledger_sync_options(),
                                        initializer: "ledger_sync_options_init")
        guard o.verify != nil else { throw .invalid("options->verify is NULL") }
        var core = NotificationSync.Options(verification: try jwsOptions(o.verify))
        guard o.since_ms >= 0, o.until_ms >= 0, o.budget_ms >= 0, o.max_pages >= 0 else {
            throw .invalid("since_ms, until_ms, budget_ms and max_pages must not be negative")
        }
        core.sinceMs = o.since_ms == 0 ? nil : o.since_ms
        core.untilMs = o.until_ms == 0 ? nil : o.until_ms
        core.overlapMs = o.overlap_ms
        core.budgetMs = o.budget_ms == 0 ? NotificationSync.Options.defaultBudgetMs : o.budget_ms
        core.maximumPages = o.max_pages == 0 ? nil : Int(o.max_pages)
        core.leaseMs = o.lease_ms
        let report = try NotificationSync.run(ledger: handle.ledger, client: client, options: core)
        if let out { out.pointee = try Owned.cString(report.json) }
        return report.outcome.rawValue
    }
}

@c(ledger_sync_state)
public func ledgerSyncState(_ out: OutString?, _ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_sync_state") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let handle = try StoreHandle.from(store)
        let name = try Arguments.string(environment, "environment")
        if let package = PlaySync.packageName(ofState: name) {  // a Play sync's, by the name its report prints
            out.pointee = try Owned.cString(try PlaySync.state(handle.store, packageName: package))
            return GATEKIT_OK
        }
        guard let apple = try? AppStoreEnvironment.named(name) else {
            throw .invalid("environment is an App Store environment (Production, Sandbox, …) or a Play sync's \"play:<package>\", not \(Quoted.text(name))")
        }
        out.pointee = try Owned.cString(try NotificationSync.state(handle.store, environment: apple))
        return GATEKIT_OK
    }
}

@c(ledger_refresh)
public func ledgerRefresh(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                          _ verify: UnsafePointer<gatekit_jws_options>?, _ customer: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_refresh") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let client = try appStoreClient(client)
        let report = try CustomerRefresh.run(ledger: handle.ledger, client: client, verification: try jwsOptions(verify),
                                             customer: try Arguments.string(customer, "customer"))
        if let out { out.pointee = try Owned.cString(report.json) }
        return GATEKIT_OK
    }
}

@c(ledger_set_refresher)
public func ledgerSetRefresher(_ store: OpaquePointer?, _ client: OpaquePointer?, _ verify: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    exportBoundary("ledger_set_refresher") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        guard client != nil else {
            handle.setRefresher(nil, of: .appStore)
            return GATEKIT_OK
        }
        handle.setRefresher(try AppStoreRefresher(client: try appStoreClient(client), verification: try jwsOptions(verify)), of: .appStore)
        return GATEKIT_OK
    }
}
