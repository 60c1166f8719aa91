import CGateKitHeader
import GateKitLedger
import GateKitSupport

// include/gatekit/ledger_grant.h: support grants, entitlements given by hand.

private func attribution(_ grantedBy: UnsafePointer<CChar>?, _ note: UnsafePointer<CChar>?) throws(GateKitError) -> Attribution {
    Attribution(grantedBy: try Arguments.string(grantedBy, "granted_by"), note: try Arguments.optionalString(note, "note"))
}

@c(ledger_grant)
public func ledgerGrant(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?,
                        _ entitlement: UnsafePointer<CChar>?, _ appUserID: UnsafePointer<CChar>?, _ customer: UnsafePointer<CChar>?,
                        _ fromMs: Int64, _ untilMs: Int64, _ grantedBy: UnsafePointer<CChar>?, _ note: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_grant") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let ledger = try ledger(store)
        let environment = try AppStoreEnvironment.named(try Arguments.string(environment, "environment"))
        let holder: Ledger.SupportGrant.Holder
        switch (try Arguments.optionalString(appUserID, "app_user_id"), try Arguments.optionalString(customer, "customer")) {
        case let (user?, nil): holder = .appAccount(user)
        case let (nil, customer?): holder = .customer(customer)
        default: throw .invalid("a grant is to exactly one of app_user_id and customer (the other NULL)")
        }
        guard fromMs >= 0 else { throw .invalid("from_ms is negative") }
        guard untilMs >= 0 else { throw .invalid("until_ms is negative (0: for good)") }
        let grant = try ledger.grant(try Arguments.string(entitlement, "entitlement"), to: holder, environment: environment,
                                     fromMs: fromMs == 0 ? nil : fromMs, untilMs: untilMs == 0 ? nil : untilMs,
                                     attribution: try attribution(grantedBy, note))
        out.pointee = try Owned.cString(grant.json)
        return GATEKIT_OK
    }
}

@c(ledger_revoke_grant)
public func ledgerRevokeGrant(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                              _ environment: UnsafePointer<CChar>?, _ grantID: UnsafePointer<CChar>?, _ atMs: Int64,
                              _ grantedBy: UnsafePointer<CChar>?, _ note: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_revoke_grant") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let ledger = try ledger(store)
        let environment = try AppStoreEnvironment.named(try Arguments.string(environment, "environment"))
        guard atMs >= 0 else { throw .invalid("at_ms is negative (0: now)") }
        let (grant, revoked) = try ledger.revokeGrant(try Arguments.string(grantID, "grant_id"), environment: environment,
                                                      atMs: atMs == 0 ? nil : atMs, attribution: try attribution(grantedBy, note))
        out.pointee = try Owned.cString(grant.json)
        return revoked ? 1 : 0
    }
}
