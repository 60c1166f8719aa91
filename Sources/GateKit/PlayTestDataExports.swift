import CGateKitHeader
import GateKitSupport
import GateKitTestData

@c(play_test_service_account)
public func playTestServiceAccount(_ out: OutString?, _ email: UnsafePointer<CChar>?, _ tokenURI: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("play_test_service_account") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = try Owned.cString(try TestServiceAccount.json(clientEmail: try Arguments.string(email, "client_email"),
                                                                    tokenURI: try Arguments.string(tokenURI, "token_uri")))
        return GATEKIT_OK
    }
}

@c(play_test_issuer_new)
public func playTestIssuerNew(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ issuer: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("play_test_issuer_new") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let made = try TestPushIssuer(issuer: try Arguments.optionalString(issuer, "issuer"))
        out.pointee = OpaquePointer(Unmanaged.passRetained(made).toOpaque())
        return GATEKIT_OK
    }
}

@c(play_test_issuer_free)
public func playTestIssuerFree(_ issuer: OpaquePointer?) {
    guard let issuer else { return }
    Unmanaged<TestPushIssuer>.fromOpaque(UnsafeRawPointer(issuer)).release()
}

private func testIssuer(_ issuer: OpaquePointer?) throws(GateKitError) -> TestPushIssuer {
    guard let issuer else { throw .invalid("issuer is NULL") }
    return Unmanaged<TestPushIssuer>.fromOpaque(UnsafeRawPointer(issuer)).takeUnretainedValue()
}

@c(play_test_issuer_keys)
public func playTestIssuerKeys(_ out: OutString?, _ issuer: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("play_test_issuer_keys") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = try Owned.cString(try testIssuer(issuer).keySetJSON())
        return GATEKIT_OK
    }
}

@c(play_test_issuer_sign_push)
public func playTestIssuerSignPush(_ out: OutString?, _ issuer: OpaquePointer?, _ audience: UnsafePointer<CChar>?,
                                   _ email: UnsafePointer<CChar>?, _ lifetime: Int32) -> Int32 {
    out?.pointee = nil
    return exportBoundary("play_test_issuer_sign_push") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_authorization")
        out.pointee = try Owned.cString(try testIssuer(issuer).signPush(audience: try Arguments.string(audience, "audience"),
                                                                         email: try Arguments.string(email, "email"), lifetimeSeconds: Int(lifetime)))
        return GATEKIT_OK
    }
}
