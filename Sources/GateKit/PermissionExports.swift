import CGateKitHeader
import GateKitLedger
import GateKitPermissions
import GateKitSupport

/// A C provider function with its payload, as the core's provider protocol.
private final class CSystemStateProvider: SystemStateProvider, @unchecked Sendable {
    let function: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
    let payload: UnsafeMutableRawPointer?

    init(_ function: @escaping @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32, _ payload: UnsafeMutableRawPointer?) {
        self.function = function
        self.payload = payload
    }

    func systemState(of category: Int32) -> Int32 { function(payload, category) }
}

/// A C change callback with its payload (the host owns the payload's thread safety).
private struct CChangeCallback: @unchecked Sendable {
    let function: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, Int32) -> Void
    let payload: UnsafeMutableRawPointer?

    func callAsFunction(_ change: PermissionChange) {
        function(payload, change.category, change.old.rawValue, change.new.rawValue)
    }
}

private func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// `count` categories at `p`; NULL only when `count` is 0.
private func categoryList(_ p: UnsafePointer<Int32>?, _ count: Int) throws(GateKitError) -> [Int32] {
    guard count >= 0, count <= PermissionEngine.maximumSequenceLength else {
        throw GateKitError(.ETOOLARGE, "count must be at most \(PermissionEngine.maximumSequenceLength)")
    }
    guard count > 0 else { return [] }
    guard let p else { throw .invalid("categories is NULL but count is \(count)") }
    return Array(UnsafeBufferPointer(start: p, count: count))
}

private func engine(_ store: OpaquePointer?) throws(GateKitError) -> PermissionEngine {
    try StoreHandle.from(store).permissions
}

@c(perm_category_name)
public func permCategoryName(_ category: Int32) -> UnsafePointer<CChar>? {
    PermissionCategory.builtIn(category).map { staticCString($0.name) }
}

@c(perm_category_from_name)
public func permCategoryFromName(_ store: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("perm_category_from_name") { () throws(GateKitError) in
        let name = try Arguments.string(name, "name")
        if store == nil {
            guard let b = PermissionCategory.builtIn(named: name) else {
                throw GateKitError(.EPERM_CATEGORY, "no built-in permission category is named \(Quoted.text(name)) (pass a store for host categories)")
            }
            return b.number
        }
        return try engine(store).categoryNumber(named: name)
    }
}

@c(perm_state_name)
public func permStateName(_ state: Int32) -> UnsafePointer<CChar>? {
    PermissionState(rawValue: state).map { staticCString($0.name) }
}

@c(perm_allows_prompt)
public func permAllowsPrompt(_ state: Int32) -> Int32 {
    PermissionState(rawValue: state)?.allowsPrompt == true ? 1 : 0
}

@c(perm_set_system_provider)
public func permSetSystemProvider(_ store: OpaquePointer?, _ fn: gatekit_perm_provider_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    exportBoundary("perm_set_system_provider") { () throws(GateKitError) in
        try engine(store).setSystemProvider(fn.map { CSystemStateProvider($0, payload) })
        return GATEKIT_OK
    }
}

@c(perm_set_usage_description)
public func permSetUsageDescription(_ store: OpaquePointer?, _ category: Int32, _ text: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("perm_set_usage_description") { () throws(GateKitError) in
        try engine(store).setUsageDescription(category, try Arguments.string(text, "text"))
        return GATEKIT_OK
    }
}

@c(perm_register_category)
public func permRegisterCategory(_ store: OpaquePointer?, _ category: Int32, _ name: UnsafePointer<CChar>?, _ usage: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("perm_register_category") { () throws(GateKitError) in
        try engine(store).registerCategory(category, name: try Arguments.string(name, "name"),
                                           usageDescription: try Arguments.string(usage, "usage_description"))
        return GATEKIT_OK
    }
}

@c(perm_state)
public func permState(_ store: OpaquePointer?, _ category: Int32) -> Int32 {
    exportBoundary("perm_state") { () throws(GateKitError) in
        try engine(store).state(category).rawValue
    }
}

@c(perm_record)
public func permRecord(_ store: OpaquePointer?, _ category: Int32, _ decision: Int32) -> Int32 {
    exportBoundary("perm_record") { () throws(GateKitError) in
        try engine(store).record(category, decision: decision)
        return GATEKIT_OK
    }
}

@c(perm_pending)
public func permPending(_ out: UnsafeMutablePointer<Int32>?, _ outCount: UnsafeMutablePointer<Int>?, _ store: OpaquePointer?, _ categories: UnsafePointer<Int32>?, _ count: Int) -> Int32 {
    exportBoundary("perm_pending") { () throws(GateKitError) in
        let outCount = try Arguments.out(outCount, "out_count")
        outCount.pointee = 0
        let list = try categoryList(categories, count)  // copied first: out may alias categories
        guard !list.isEmpty else { return GATEKIT_OK }
        let out = try Arguments.out(out)
        let pending = try engine(store).pending(list)
        for (i, c) in pending.enumerated() where i < list.count { out[i] = c }
        outCount.pointee = min(pending.count, list.count)
        return GATEKIT_OK
    }
}

@c(perm_next)
public func permNext(_ out: UnsafeMutablePointer<Int32>?, _ store: OpaquePointer?, _ categories: UnsafePointer<Int32>?, _ count: Int, _ after: Int32) -> Int32 {
    exportBoundary("perm_next") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = 0
        let list = try categoryList(categories, count)
        out.pointee = try engine(store).next(list, after: after) ?? 0
        return GATEKIT_OK
    }
}

@c(perm_reset)
public func permReset(_ store: OpaquePointer?, _ category: Int32) -> Int32 {
    exportBoundary("perm_reset") { () throws(GateKitError) in
        try engine(store).reset(category)
        return GATEKIT_OK
    }
}

@c(perm_history)
public func permHistory(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ category: Int32) -> Int32 {
    exportBoundary("perm_history") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        out.pointee = try Owned.cString(try engine(store).historyJSON(category))
        return GATEKIT_OK
    }
}

@c(perm_list)
public func permList(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?) -> Int32 {
    exportBoundary("perm_list") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        out.pointee = try Owned.cString(try engine(store).listJSON())
        return GATEKIT_OK
    }
}

@c(perm_subscribe)
public func permSubscribe(_ outToken: UnsafeMutablePointer<Int32>?, _ store: OpaquePointer?, _ fn: gatekit_perm_changed_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    exportBoundary("perm_subscribe") { () throws(GateKitError) in
        let out = try Arguments.out(outToken, "out_token")
        out.pointee = 0
        let permissions = try engine(store)
        guard let fn else { throw .invalid("fn is NULL") }
        let callback = CChangeCallback(function: fn, payload: payload)
        out.pointee = try permissions.subscribe { change in callback(change) }
        return GATEKIT_OK
    }
}

@c(perm_unsubscribe)
public func permUnsubscribe(_ store: OpaquePointer?, _ token: Int32) -> Int32 {
    exportBoundary("perm_unsubscribe") { () throws(GateKitError) in
        try engine(store).unsubscribe(token)
        return GATEKIT_OK
    }
}

@c(perm_refresh)
public func permRefresh(_ store: OpaquePointer?) -> Int32 {
    exportBoundary("perm_refresh") { () throws(GateKitError) in
        try engine(store).refresh()
        return GATEKIT_OK
    }
}

@c(perm_watch_start)
public func permWatchStart(_ store: OpaquePointer?, _ intervalMilliseconds: Int32, _ flags: Int32) -> Int32 {
    exportBoundary("perm_watch_start") { () throws(GateKitError) in
        let permissions = try engine(store)
        guard flags & ~GATEKIT_PERM_WATCH_PROVIDER == 0 else { throw .invalid("unknown flags \(flags)") }
        try permissions.startWatching(intervalMilliseconds: Int(intervalMilliseconds),
                                      includeProvider: flags & GATEKIT_PERM_WATCH_PROVIDER != 0)
        return GATEKIT_OK
    }
}

@c(perm_watch_stop)
public func permWatchStop(_ store: OpaquePointer?) -> Int32 {
    exportBoundary("perm_watch_stop") { () throws(GateKitError) in
        try engine(store).stopWatching() ? 1 : 0
    }
}

@c(perm_use_portal)
public func permUsePortal(_ store: OpaquePointer?, _ appID: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("perm_use_portal") { () throws(GateKitError) in
        try engine(store).usePortal(appID: try Arguments.optionalString(appID, "app_id"))
        return GATEKIT_OK
    }
}

@c(perm_portal_map)
public func permPortalMap(_ store: OpaquePointer?, _ category: Int32, _ table: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("perm_portal_map") { () throws(GateKitError) in
        try engine(store).mapPortal(category, table: try Arguments.optionalString(table, "table"), id: try Arguments.optionalString(id, "id"))
        return GATEKIT_OK
    }
}

@c(perm_portal_status)
public func permPortalStatus(_ store: OpaquePointer?) -> Int32 {
    exportBoundary("perm_portal_status") { () throws(GateKitError) in
        if let reason = try engine(store).portalFailure() {
            throw GateKitError(.EPERM_PORTAL, "answers fall back to the stored state: \(reason)")
        }
        return GATEKIT_OK
    }
}
