import CGateKitHeader
import GateKitEULA
import GateKitLedger
import GateKitPermissions
import GateKitSupport

/// A user name argument: NULL (the default user) or 1-4096 bytes, not necessarily UTF-8.
func user(_ p: UnsafePointer<CChar>?) throws(GateKitError) -> [UInt8]? {
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

/// Bytes of `gatekit_eula_consent` per version.
private let consentSizes = [MemoryLayout<gatekit_eula_consent>.size]

@c(eula_consent_init)
public func eulaConsentInit(_ consent: UnsafeMutablePointer<gatekit_eula_consent>?, _ version: UInt32) -> Int32 {
    exportBoundary("eula_consent_init") { () throws(GateKitError) in
        try Arguments.initialiseVersioned(consent, version: version, sizes: consentSizes, "gatekit_eula_consent")
    }
}

/// The caller's consent (NULL: nothing said), each part read as UTF-8; the core checks shape
/// and bounds. The metadata count is checked before either array is read.
private func consent(_ p: UnsafePointer<gatekit_eula_consent>?) throws(GateKitError) -> EULAConsent {
    guard p != nil else { return .none }
    let c = try Arguments.versioned(p, sizes: consentSizes, zero: gatekit_eula_consent(), initializer: "eula_consent_init")
    var out = EULAConsent()
    if c.method != 0 {
        guard let method = EULAConsent.Method(rawValue: Int64(c.method)) else {
            throw .invalid("consent->method is \(c.method), not a GATEKIT_EULA_METHOD_* value")
        }
        out.method = method
    }
    out.clientAddress = try Arguments.optionalString(c.client_address, "consent->client_address")
    out.userAgent = try Arguments.optionalString(c.user_agent, "consent->user_agent")
    out.locale = try Arguments.optionalString(c.locale, "consent->locale")
    guard c.metadata_count <= EULAConsent.maximumMetadataPairs else {
        throw GateKitError(.ETOOLARGE, "consent->metadata_count is \(c.metadata_count); at most \(EULAConsent.maximumMetadataPairs)")
    }
    if c.metadata_count > 0 {
        guard let keys = c.metadata_keys, let values = c.metadata_values else {
            throw .invalid("consent->metadata_count is \(c.metadata_count) but metadata_keys or metadata_values is NULL")
        }
        for i in 0..<Int(c.metadata_count) {
            out.metadata.append((try Arguments.string(keys[i], "consent->metadata_keys[\(i)]"),
                                 try Arguments.string(values[i], "consent->metadata_values[\(i)]")))
        }
    }
    return out
}

private func recordWith(_ kind: EULADecision.Kind, _ function: StaticString, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?,
                        _ hash: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?, _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    exportBoundary(function) { () throws(GateKitError) in
        try StoreHandle.from(store).eula.record(
            kind,
            documentID: try Arguments.string(documentID, "document_id"),
            hash: try Arguments.string(hash, "hash"),
            user: try user(userName),
            consent: try consent(how))
        return GATEKIT_OK
    }
}

@c(eula_accept_with)
public func eulaAcceptWith(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?,
                           _ userName: UnsafePointer<CChar>?, _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    recordWith(.accepted, "eula_accept_with", store, documentID, hash, userName, how)
}

@c(eula_decline_with)
public func eulaDeclineWith(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?,
                            _ userName: UnsafePointer<CChar>?, _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    recordWith(.declined, "eula_decline_with", store, documentID, hash, userName, how)
}

@c(eula_withdraw)
public func eulaWithdraw(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ userName: UnsafePointer<CChar>?,
                         _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    exportBoundary("eula_withdraw") { () throws(GateKitError) in
        try StoreHandle.from(store).eula.withdraw(
            documentID: try Arguments.string(documentID, "document_id"), user: try user(userName), consent: try consent(how))
        return GATEKIT_OK
    }
}

@c(eula_accept_named)
public func eulaAcceptNamed(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?,
                            _ userName: UnsafePointer<CChar>?, _ names: UnsafePointer<CChar>?, _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    exportBoundary("eula_accept_named") { () throws(GateKitError) in
        let accepted = try StoreHandle.from(store).eula.acceptIfNamed(
            documentID: try Arguments.string(documentID, "document_id"), hash: try Arguments.string(hash, "hash"),
            user: try user(userName), names: try Arguments.string(names, "names"), source: "names", consent: try consent(how))
        return accepted ? 1 : 0
    }
}

@c(eula_accept_from_env)
public func eulaAcceptFromEnv(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?,
                              _ userName: UnsafePointer<CChar>?, _ variable: UnsafePointer<CChar>?, _ how: UnsafePointer<gatekit_eula_consent>?) -> Int32 {
    exportBoundary("eula_accept_from_env") { () throws(GateKitError) in
        let accepted = try StoreHandle.from(store).eula.acceptFromEnvironment(
            documentID: try Arguments.string(documentID, "document_id"), hash: try Arguments.string(hash, "hash"),
            user: try user(userName), variable: try Arguments.string(variable, "variable"), consent: try consent(how))
        return accepted ? 1 : 0
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
