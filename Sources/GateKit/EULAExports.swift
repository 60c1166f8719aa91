import CGateKitHeader
import GateKitEULA
import GateKitLedger
import GateKitPermissions
import GateKitSupport

private func user(_ p: UnsafePointer<CChar>?) throws(GateKitError) -> [UInt8]? {
    try Arguments.optionalBytes(p, "user", limit: EULAGate.maximumUserLength)
}

private func hashOutput(_ out: UnsafeMutablePointer<CChar>?, _ hash: () throws(GateKitError) -> String) throws(GateKitError) -> Int32 {
    let out = try Arguments.out(out)
    out.pointee = 0
    Owned.copy(try hash(), into: out, capacity: Int(GATEKIT_HASH_HEX_SIZE))
    return GATEKIT_OK
}

@c(eula_hash_file)
public func eulaHashFile(_ out: UnsafeMutablePointer<CChar>?, _ path: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_hash_file") { () throws(GateKitError) in
        try hashOutput(out) { () throws(GateKitError) in try DocumentHash.of(file: try Arguments.string(path, "path")) }
    }
}

@c(eula_hash_bytes)
public func eulaHashBytes(_ out: UnsafeMutablePointer<CChar>?, _ data: UnsafeRawPointer?, _ len: Int) -> Int32 {
    exportBoundary("eula_hash_bytes") { () throws(GateKitError) in
        try hashOutput(out) { () throws(GateKitError) in try DocumentHash.of(bytes: try Arguments.buffer(data, len, "data")) }
    }
}

@c(eula_should_present)
public func eulaShouldPresent(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_should_present") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let present = try handle.eula.shouldPresent(
            documentID: try Arguments.string(documentID, "document_id"),
            path: try Arguments.string(path, "path"),
            user: try user(userName))
        return present ? 1 : 0
    }
}

@c(eula_should_present_hash)
public func eulaShouldPresentHash(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_should_present_hash") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let present = try handle.eula.shouldPresent(
            documentID: try Arguments.string(documentID, "document_id"),
            hash: try Arguments.string(hash, "hash"),
            user: try user(userName))
        return present ? 1 : 0
    }
}

private func record(_ kind: EULADecision.Kind, _ function: StaticString, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary(function) { () throws(GateKitError) in
        try StoreHandle.from(store).eula.record(
            kind,
            documentID: try Arguments.string(documentID, "document_id"),
            hash: try Arguments.string(hash, "hash"),
            user: try user(userName))
        return GATEKIT_OK
    }
}

@c(eula_accept)
public func eulaAccept(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    record(.accepted, "eula_accept", store, documentID, hash, userName)
}

@c(eula_decline)
public func eulaDecline(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    record(.declined, "eula_decline", store, documentID, hash, userName)
}

private func historyJSON(_ function: StaticString, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ filter: () throws(GateKitError) -> EULAGate.UserFilter) -> Int32 {
    exportBoundary(function) { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let decisions = try StoreHandle.from(store).eula.history(
            documentID: try Arguments.optionalString(documentID, "document_id"), user: try filter())
        out.pointee = try Owned.cString(EULAGate.historyJSON(decisions))
        return GATEKIT_OK
    }
}

@c(eula_history)
public func eulaHistory(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?) -> Int32 {
    historyJSON("eula_history", out, store, documentID) { () throws(GateKitError) in
        try user(userName).map { .named($0) } ?? .defaultUser
    }
}

@c(eula_history_all)
public func eulaHistoryAll(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?) -> Int32 {
    historyJSON("eula_history_all", out, store, documentID) { () throws(GateKitError) in .everyone }
}

@c(eula_mark_minor_revision)
public func eulaMarkMinorRevision(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ fromHash: UnsafePointer<CChar>?, _ toHash: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_mark_minor_revision") { () throws(GateKitError) in
        try StoreHandle.from(store).eula.markMinorRevision(
            documentID: try Arguments.string(documentID, "document_id"),
            from: try Arguments.string(fromHash, "from_hash"),
            to: try Arguments.string(toHash, "to_hash"))
        return GATEKIT_OK
    }
}
