import CGateKitHeader
import Glibc
import GateKitPlayAPI
import GateKitPlayData
import GateKitSupport

/// Bytes of `gatekit_play_push_options` per version.
private let pushOptionsSizes = [MemoryLayout<gatekit_play_push_options>.size]

@c(play_push_options_init)
public func playPushOptionsInit(_ options: UnsafeMutablePointer<gatekit_play_push_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("play_push_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: pushOptionsSizes, "gatekit_play_push_options")
        guard let options else { return rc }
        let defaults = PushVerifier.Options(packageName: "", audience: "", serviceAccountEmail: "")
        options.pointee.timeout_ms = Int32(defaults.timeoutMilliseconds)
        options.pointee.max_token_age_s = Int32(defaults.maximumTokenAgeSeconds)
        options.pointee.clock_skew_s = Int32(defaults.clockSkewSeconds)
        options.pointee.key_refresh_interval_ms = Int32(defaults.keyRefreshIntervalMilliseconds)
        options.pointee.duplicate_window = Int32(defaults.duplicateWindow)
        return rc
    }
}

@c(play_push_verifier_new)
public func playPushVerifierNew(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ options: UnsafePointer<gatekit_play_push_options>?) -> Int32 {
    exportBoundary("play_push_verifier_new") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let o = try Arguments.versioned(options, sizes: pushOptionsSizes, zero: gatekit_play_push_options(), initializer: "play_push_options_init")
        var core = PushVerifier.Options(packageName: try Arguments.string(o.package_name, "options->package_name"),
                                        audience: try Arguments.string(o.audience, "options->audience"),
                                        serviceAccountEmail: try Arguments.string(o.service_account_email, "options->service_account_email"))
        core.issuer = try Arguments.optionalString(o.issuer, "options->issuer")
        core.keysURL = try Arguments.optionalString(o.keys_url, "options->keys_url")
        core.keysJSON = try Arguments.optionalBytes(o.keys_json, "options->keys_json", limit: JSONWebKeySet.maximumLength)
        core.caFile = try Arguments.optionalString(o.ca_file, "options->ca_file")
        core.timeoutMilliseconds = Int(o.timeout_ms)
        core.maximumTokenAgeSeconds = Int(o.max_token_age_s)
        core.clockSkewSeconds = Int(o.clock_skew_s)
        core.keyRefreshIntervalMilliseconds = Int(o.key_refresh_interval_ms)
        core.duplicateWindow = Int(o.duplicate_window)
        let verifier = try PushVerifier(options: core)
        out.pointee = OpaquePointer(Unmanaged.passRetained(verifier).toOpaque())
        return GATEKIT_OK
    }
}

@c(play_push_verifier_free)
public func playPushVerifierFree(_ verifier: OpaquePointer?) {
    guard let verifier else { return }
    Unmanaged<PushVerifier>.fromOpaque(UnsafeRawPointer(verifier)).release()
}

@c(play_verify_push)
public func playVerifyPush(_ out: OutString?, _ verifier: OpaquePointer?, _ authorization: UnsafePointer<CChar>?,
                           _ body: UnsafeRawPointer?, _ length: Int) -> Int32 {
    out?.pointee = nil
    return exportBoundary("play_verify_push") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        guard let verifier else { throw .invalid("verifier is NULL") }
        let push = Unmanaged<PushVerifier>.fromOpaque(UnsafeRawPointer(verifier)).takeUnretainedValue()
        let (header, bytes) = try pushRequest(authorization, body, length)
        out.pointee = try Owned.cString(utf8: try push.verify(authorization: header, body: bytes).json)
        return GATEKIT_OK
    }
}

/// A push's Authorization header and body as the exports take them: one refusal for a missing
/// header (the push subscription sends none), whichever export received it.
func pushRequest(_ authorization: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?, _ length: Int) throws(GateKitError) -> ([UInt8], [UInt8]) {
    guard let authorization else {
        throw GateKitError(.EPUSH_TOKEN, "the push carried no Authorization header (authorization is NULL): is authentication enabled on the push subscription?")
    }
    guard length >= 0, length <= DeveloperNotification.maximumBodyLength else {
        throw GateKitError(.ETOOLARGE, "body_len \(UInt(bitPattern: length)) is over \(DeveloperNotification.maximumBodyLength) bytes")
    }
    let header = Array(UnsafeRawBufferPointer(start: authorization, count: strnlen(authorization, CompactJWT.maximumLength + 64)))
    return (header, Array(try Arguments.buffer(body, length, "body")))
}
