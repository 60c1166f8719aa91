import CGateKitHeader
import Glibc
import GateKitStripeAPI
import GateKitSupport

// include/gatekit/stripe.h: Stripe's API client.

/// Bytes of `gatekit_stripe_client_options` per version.
private let clientOptionsSizes = [MemoryLayout<gatekit_stripe_client_options>.size]

@c(stripe_client_options_init)
public func stripeClientOptionsInit(_ options: UnsafeMutablePointer<gatekit_stripe_client_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("stripe_client_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: clientOptionsSizes, "gatekit_stripe_client_options")
        guard let options else { return rc }
        let defaults = CTransport(defaults: StripeClient.Options())
        options.pointee.timeout_ms = defaults.timeoutMs
        options.pointee.connect_timeout_ms = defaults.connectTimeoutMs
        options.pointee.max_retries = defaults.maxRetries
        options.pointee.max_retry_wait_ms = defaults.maxRetryWaitMs
        return rc
    }
}

@c(stripe_client_new)
public func stripeClientNew(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ options: UnsafePointer<gatekit_stripe_client_options>?) -> Int32 {
    exportBoundary("stripe_client_new") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let o = try Arguments.versioned(options, sizes: clientOptionsSizes, zero: gatekit_stripe_client_options(),
                                        initializer: "stripe_client_options_init")
        var core = StripeClient.Options()
        core.apiKeyFile = try Arguments.optionalString(o.api_key_file, "options->api_key_file")
        core.apiKey = try Arguments.optionalString(o.api_key, "options->api_key")
        try CTransport(baseURL: o.base_url, caFile: o.ca_file, timeoutMs: o.timeout_ms, connectTimeoutMs: o.connect_timeout_ms,
                       maxRetries: o.max_retries, maxRetryWaitMs: o.max_retry_wait_ms, userAgent: o.user_agent).apply(to: &core)
        let client = try StripeClient(options: core)
        out.pointee = OpaquePointer(Unmanaged.passRetained(client).toOpaque())
        return GATEKIT_OK
    }
}

@c(stripe_client_free)
public func stripeClientFree(_ client: OpaquePointer?) {
    guard let client else { return }
    Unmanaged<StripeClient>.fromOpaque(UnsafeRawPointer(client)).release()
}

@c(stripe_client_is_test)
public func stripeClientIsTest(_ client: OpaquePointer?) -> Int32 {
    exportBoundary("stripe_client_is_test") { () throws(GateKitError) in try stripeClient(client).isTest ? 1 : 0 }
}

@c(stripe_api_version)
public func stripeAPIVersion() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(StripeClient.apiVersionText.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// The client a `gatekit_stripe_client *` points at (the ledger's Stripe exports' too).
func stripeClient(_ client: OpaquePointer?) throws(GateKitError) -> StripeClient {
    guard let client else { throw .invalid("client is NULL") }
    return Unmanaged<StripeClient>.fromOpaque(UnsafeRawPointer(client)).takeUnretainedValue()
}

/// `body`, with Stripe's error answer (GATEKIT_ESTRIPE_API) in `*out` as the client's own
/// calls give it (include/gatekit/stripe.h's error JSON).
func withStripeFailure<T>(_ out: OutString?, _ body: () throws(GateKitError) -> T) throws(GateKitError) -> T {
    do {
        return try body()
    } catch {
        if error.code == .ESTRIPE_API, let detail = error.detail, let out { out.pointee = try Owned.cString(detail) }
        throw error
    }
}

/// Fills `*out` with a success answer's body, or with the failure's JSON and throws.
private func answered(_ out: OutString?, _ path: String, _ outcome: StripeClient.Outcome) throws(GateKitError) -> Int32 {
    switch outcome {
    case let .success(answer):
        if let out { out.pointee = try Owned.cString(String(decoding: answer.body, as: UTF8.self)) }
        return GATEKIT_OK
    case let .failure(failure):
        throw GateKitError(.ESTRIPE_API, "\(path): \(failure.description)", detail: failure.json)
    }
}

@c(stripe_get)
public func stripeGet(_ out: OutString?, _ client: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ query: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("stripe_get") { () throws(GateKitError) in
        let stripe = try stripeClient(client)
        let path = try Arguments.string(path, "path")
        let query = try Arguments.optionalString(query, "query") ?? ""
        return try withStripeFailure(out) { () throws(GateKitError) in try answered(out, path, try stripe.get(path, query: query)) }
    }
}

@c(stripe_post)
public func stripePost(_ out: OutString?, _ client: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ form: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("stripe_post") { () throws(GateKitError) in
        let stripe = try stripeClient(client)
        let path = try Arguments.string(path, "path")
        let form = try Arguments.optionalBytes(form, "form", limit: StripeClient.maximumFormLength).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return try withStripeFailure(out) { () throws(GateKitError) in try answered(out, path, try stripe.post(path, form: form)) }
    }
}

@c(stripe_list)
public func stripeList(_ out: OutString?, _ client: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ query: UnsafePointer<CChar>?,
                       _ maximumPages: Int32) -> Int32 {
    out?.pointee = nil
    return exportBoundary("stripe_list") { () throws(GateKitError) in
        let stripe = try stripeClient(client)
        let path = try Arguments.string(path, "path")
        let query = try Arguments.optionalString(query, "query") ?? ""
        return try withStripeFailure(out) { () throws(GateKitError) in
            switch try stripe.list(path, query: query, maximumPages: Int(maximumPages)) {
            case let .failure(failure): throw GateKitError(.ESTRIPE_API, "\(path): \(failure.description)", detail: failure.json)
            case let .success(objects, more):
                let list: JSONValue = .object([("object", .string("list")), ("data", .array(objects)), ("has_more", .bool(more))])
                if let out { out.pointee = try Owned.cString(JSONWriter.serialize(list)) }
                return GATEKIT_OK
            }
        }
    }
}
