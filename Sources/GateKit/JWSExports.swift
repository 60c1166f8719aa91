import CGateKitHeader
import Glibc
import GateKitJWS
import GateKitSupport

/// Bytes of `gatekit_jws_options` per version: version 1 ends before `flags`.
private let jwsOptionsSizes = [
    MemoryLayout<gatekit_jws_options>.offset(of: \gatekit_jws_options.flags) ?? 0,
    MemoryLayout<gatekit_jws_options>.size,
]

/// Reads a `gatekit_jws_options *` of any known version into core options, rejecting every
/// inconsistent field.
func jwsOptions(_ p: UnsafePointer<gatekit_jws_options>?) throws(GateKitError) -> JWSOptions {
    let o = try Arguments.versioned(p, sizes: jwsOptionsSizes, zero: gatekit_jws_options(), initializer: "jws_options_init")
    let known = GATEKIT_JWS_TEST_PRODUCTION | GATEKIT_JWS_UNSIGNED_LOCAL
    guard o.flags & ~known == 0 else {
        throw .invalid("options->flags has unknown bits 0x\(String(o.flags & ~known, radix: 16))")
    }
    guard o.bundle_id != nil else { throw .invalid("options->bundle_id is NULL") }
    let bundleID = try Arguments.string(o.bundle_id, "options->bundle_id")
    guard o.environment != nil else { throw .invalid("options->environment is NULL") }
    let environment = try AppStoreEnvironment.named(try Arguments.string(o.environment, "options->environment"))
    guard o.app_apple_id >= 0 else { throw .invalid("options->app_apple_id is negative") }
    let anchor = try Arguments.testAnchor(o.test_anchor_der, o.test_anchor_len)
    return try JWSOptions(bundleID: bundleID,
                          appAppleID: o.app_apple_id == 0 ? nil : Int64(o.app_apple_id),
                          environment: environment,
                          verifyTime: o.verify_time == 0 ? nil : Int64(o.verify_time),
                          testAnchorDER: anchor,
                          allowTestSignedProduction: o.flags & GATEKIT_JWS_TEST_PRODUCTION != 0,
                          readsUnsignedLocalData: o.flags & GATEKIT_JWS_UNSIGNED_LOCAL != 0)
}

/// The JWS text's bytes (not copied into a String: base64url decoding rejects non-ASCII).
func jwsBytes(_ p: UnsafePointer<CChar>?) throws(GateKitError) -> UnsafeRawBufferPointer {
    guard let p else { throw .invalid("jws is NULL") }
    let limit = CompactJWS.maximumLength
    let n = strnlen(p, limit + 1)
    guard n <= limit else { throw GateKitError(.ETOOLARGE, "jws is longer than \(limit) bytes") }
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
public func jwsOptionsInit(_ options: UnsafeMutablePointer<gatekit_jws_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("jws_options_init") { () throws(GateKitError) in
        try Arguments.initialiseVersioned(options, version: version, sizes: jwsOptionsSizes, "gatekit_jws_options")
    }
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

@c(jws_verify_realtime_request)
public func jwsVerifyRealtimeRequest(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    verify("jws_verify_realtime_request", .realtimeRequest, out, jws, options)
}

@c(jws_transaction_is_entitled)
public func jwsTransactionIsEntitled(_ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?, _ productID: UnsafePointer<CChar>?, _ atMilliseconds: Int64) -> Int32 {
    exportBoundary("jws_transaction_is_entitled") { () throws(GateKitError) in
        guard atMilliseconds >= 0 else { throw .invalid("at_ms is negative") }
        let product = try Arguments.optionalString(productID, "product_id")
        let transaction = try JWSVerifier.verifyTransaction(try jwsBytes(jws), options: try jwsOptions(options))
        let at = atMilliseconds == 0 ? Clock.nowMilliseconds() : atMilliseconds
        return transaction.isEntitled(to: product, at: at) ? 1 : 0
    }
}

@c(jws_transaction_payload_is_entitled)
public func jwsTransactionPayloadIsEntitled(_ payloadJSON: UnsafePointer<CChar>?, _ productID: UnsafePointer<CChar>?, _ atMilliseconds: Int64) -> Int32 {
    exportBoundary("jws_transaction_payload_is_entitled") { () throws(GateKitError) in
        guard atMilliseconds >= 0 else { throw .invalid("at_ms is negative") }
        let product = try Arguments.optionalString(productID, "product_id")
        guard let json = try Arguments.optionalBytes(payloadJSON, "payload_json", limit: 16 << 20) else { throw .invalid("payload_json is NULL") }
        let transaction = try JWSTransaction(verifiedJSON: json)
        let at = atMilliseconds == 0 ? Clock.nowMilliseconds() : atMilliseconds
        return transaction.isEntitled(to: product, at: at) ? 1 : 0
    }
}

@c(jws_notification_subject)
public func jwsNotificationSubject(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ payloadJSON: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("jws_notification_subject") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        guard let bytes = try Arguments.optionalBytes(payloadJSON, "payload_json", limit: CompactJWS.maximumLength) else { throw .invalid("payload_json is NULL") }
        let json: JSONValue
        do throws(GateKitError) { json = try JSONParser.parse(bytes) } catch { throw GateKitError(.EJWS_MALFORMED, "payload_json is not JSON: \(error.message)") }
        guard case .object = json else { throw GateKitError(.EJWS_MALFORMED, "payload_json is not a JSON object") }
        out.pointee = try Owned.cString(try JWSNotification(json: json).subjectJSON)
        return GATEKIT_OK
    }
}

@c(jws_verify_chain)
public func jwsVerifyChain(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ x5cJSON: UnsafePointer<CChar>?,
                           _ testAnchor: UnsafePointer<UInt8>?, _ testAnchorLength: Int, _ verifyTime: Int64) -> Int32 {
    exportBoundary("jws_verify_chain") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_public_key_pem")
        out.pointee = nil
        guard let x5c = try Arguments.optionalBytes(x5cJSON, "x5c_json", limit: CertificateChain.maximumLength) else { throw .invalid("x5c_json is NULL") }
        let anchor = try Arguments.testAnchor(testAnchor, testAnchorLength)
        let time = verifyTime == 0 ? Clock.nowMilliseconds() / 1000 : verifyTime
        out.pointee = try Owned.cString(try CertificateChain.verifiedLeafKeyPEM(x5c: x5c, testAnchor: anchor, at: time))
        return GATEKIT_OK
    }
}

/// What a `gatekit_jws *` points at: verified data, its JSON and identity as C strings.
final class SignedDataHandle {
    let json: UnsafeMutablePointer<CChar>
    let identity: UnsafeMutablePointer<CChar>
    let isTestSigned: Bool

    init(_ verified: JWSVerifier.Verified) throws(GateKitError) {
        json = try Owned.cString(verified.json)
        do {
            identity = try Owned.cString(verified.identity.hex)
        } catch {
            gatekitFree(json)
            throw error
        }
        isTestSigned = verified.isTestSigned
    }

    deinit {
        gatekitFree(json)
        gatekitFree(identity)
    }

    static func peek(_ p: OpaquePointer?) -> SignedDataHandle? {
        guard let p else { return nil }
        return Unmanaged<SignedDataHandle>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }
}

func jwsKind(_ raw: Int32) throws(GateKitError) -> JWSVerifier.Kind {
    switch raw {
    case GATEKIT_JWS_TRANSACTION: .transaction
    case GATEKIT_JWS_RENEWAL_INFO: .renewalInfo
    case GATEKIT_JWS_NOTIFICATION: .notification
    case GATEKIT_JWS_APP_TRANSACTION: .appTransaction
    case GATEKIT_JWS_REALTIME_REQUEST: .realtimeRequest
    default: throw .invalid("kind \(raw) is not a GATEKIT_JWS_* kind (1 to 5)")
    }
}

@c(jws_verify)
public func jwsVerify(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ rawKind: Int32, _ jws: UnsafePointer<CChar>?,
                      _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    exportBoundary("jws_verify") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let verified = try JWSVerifier.verify(try jwsBytes(jws), kind: try jwsKind(rawKind), options: try jwsOptions(options))
        out.pointee = OpaquePointer(Unmanaged.passRetained(try SignedDataHandle(verified)).toOpaque())
        return GATEKIT_OK
    }
}

@c(jws_json)
public func jwsJSON(_ signed: OpaquePointer?) -> UnsafePointer<CChar>? {
    SignedDataHandle.peek(signed).map { UnsafePointer($0.json) }
}

@c(jws_identity)
public func jwsIdentity(_ signed: OpaquePointer?) -> UnsafePointer<CChar>? {
    SignedDataHandle.peek(signed).map { UnsafePointer($0.identity) }
}

@c(jws_is_test_signed)
public func jwsIsTestSigned(_ signed: OpaquePointer?) -> Int32 {
    exportBoundary("jws_is_test_signed") { () throws(GateKitError) in
        guard let handle = SignedDataHandle.peek(signed) else { throw .invalid("signed_data is NULL") }
        return handle.isTestSigned ? 1 : 0
    }
}

@c(jws_free)
public func jwsFree(_ signed: OpaquePointer?) {
    guard let signed else { return }
    Unmanaged<SignedDataHandle>.fromOpaque(UnsafeRawPointer(signed)).release()
}
