import CGateKitHeader
import GateKitCore
import Glibc

/// Reads a `gatekit_jws_options *` into core options, rejecting every inconsistent field.
private func jwsOptions(_ p: UnsafePointer<gatekit_jws_options>?) throws(GateKitError) -> JWSOptions {
    guard let p else { throw .invalid("options is NULL") }
    let o = p.pointee
    guard o.version == UInt32(GATEKIT_JWS_OPTIONS_VERSION) else {
        throw GateKitError(.unsupportedVersion, "options->version is \(o.version); this library knows \(GATEKIT_JWS_OPTIONS_VERSION) (call jws_options_init)")
    }
    guard o.bundle_id != nil else { throw .invalid("options->bundle_id is NULL") }
    let bundleID = try Arguments.string(o.bundle_id, "options->bundle_id")
    guard o.environment != nil else { throw .invalid("options->environment is NULL") }
    let environment = try JWSEnvironment.named(try Arguments.string(o.environment, "options->environment"))
    guard o.app_apple_id >= 0 else { throw .invalid("options->app_apple_id is negative") }
    guard o.verify_time >= 0 else { throw .invalid("options->verify_time is negative") }
    var anchor: [UInt8]?
    if o.test_anchor_der != nil || o.test_anchor_len != 0 {
        guard o.test_anchor_len <= 65536 else { throw .invalid("options->test_anchor_len is \(o.test_anchor_len); at most 65536") }
        let bytes = try Arguments.buffer(UnsafeRawPointer(o.test_anchor_der), Int(o.test_anchor_len), "options->test_anchor_der")
        guard bytes.count > 0 else { throw .invalid("options->test_anchor_der is set but test_anchor_len is 0") }
        anchor = Array(bytes)
    }
    return try JWSOptions(bundleID: bundleID,
                          appAppleID: o.app_apple_id == 0 ? nil : Int64(o.app_apple_id),
                          environment: environment,
                          verifyTime: o.verify_time == 0 ? nil : Int64(o.verify_time),
                          testAnchorDER: anchor)
}

/// The JWS text's bytes (not copied into a String: base64url decoding rejects non-ASCII).
private func jwsBytes(_ p: UnsafePointer<CChar>?) throws(GateKitError) -> UnsafeRawBufferPointer {
    guard let p else { throw .invalid("jws is NULL") }
    let limit = CompactJWS.maximumLength
    let n = strnlen(p, limit + 1)
    guard n <= limit else { throw GateKitError(.tooLarge, "jws is longer than \(limit) bytes") }
    return UnsafeRawBufferPointer(start: p, count: n)
}

private func verify(_ function: StaticString, _ kind: JWSVerifier.Kind, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                    _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    exportBoundary(function) { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let json = try JWSVerifier.verifiedJSON(try jwsBytes(jws), kind: kind, options: try jwsOptions(options))
        out.pointee = try Owned.cString(json)
        return GATEKIT_OK
    }
}

@c(jws_options_init)
public func jwsOptionsInit(_ options: UnsafeMutablePointer<gatekit_jws_options>?) {
    guard let options else { return }
    options.pointee = gatekit_jws_options()
    options.pointee.version = UInt32(GATEKIT_JWS_OPTIONS_VERSION)
}

@c(jws_options_size)
public func jwsOptionsSize() -> Int {
    MemoryLayout<gatekit_jws_options>.size
}

@c(jws_verify_transaction)
public func jwsVerifyTransaction(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    verify("jws_verify_transaction", .transaction, out, jws, options)
}

@c(jws_verify_renewal_info)
public func jwsVerifyRenewalInfo(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    verify("jws_verify_renewal_info", .renewalInfo, out, jws, options)
}

@c(jws_verify_notification)
public func jwsVerifyNotification(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    verify("jws_verify_notification", .notification, out, jws, options)
}

@c(jws_verify_app_transaction)
public func jwsVerifyAppTransaction(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    verify("jws_verify_app_transaction", .appTransaction, out, jws, options)
}

@c(jws_transaction_is_entitled)
public func jwsTransactionIsEntitled(_ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?, _ productID: UnsafePointer<CChar>?, _ atMilliseconds: Int64) -> Int32 {
    exportBoundary("jws_transaction_is_entitled") { () throws(GateKitError) in
        guard atMilliseconds >= 0 else { throw .invalid("at_ms is negative") }
        let product = try Arguments.optionalString(productID, "product_id")
        let transaction = try JWSVerifier.verifyTransaction(try jwsBytes(jws), options: try jwsOptions(options))
        if let product, transaction.productId != product { return 0 }
        let at = atMilliseconds == 0 ? Clock.nowMilliseconds() : atMilliseconds
        return transaction.isEntitled(at: at) ? 1 : 0
    }
}
