import CGateKitHeader
import Glibc
import GateKitPlayAPI
import GateKitPlayData
import GateKitSupport

/// Bytes of `gatekit_play_client_options` per version.
private let clientOptionsSizes = [MemoryLayout<gatekit_play_client_options>.size]

@c(play_client_options_init)
public func playClientOptionsInit(_ options: UnsafeMutablePointer<gatekit_play_client_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("play_client_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: clientOptionsSizes, "gatekit_play_client_options")
        guard let options else { return rc }
        let defaults = CTransport(defaults: PlayDeveloperClient.Options(packageName: "", serviceAccountFile: nil))
        options.pointee.timeout_ms = defaults.timeoutMs
        options.pointee.connect_timeout_ms = defaults.connectTimeoutMs
        options.pointee.max_retries = defaults.maxRetries
        options.pointee.max_retry_wait_ms = defaults.maxRetryWaitMs
        return rc
    }
}

@c(play_client_new)
public func playClientNew(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ options: UnsafePointer<gatekit_play_client_options>?) -> Int32 {
    exportBoundary("play_client_new") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let o = try Arguments.versioned(options, sizes: clientOptionsSizes, zero: gatekit_play_client_options(),
                                        initializer: "play_client_options_init")
        var core = PlayDeveloperClient.Options(packageName: try Arguments.string(o.package_name, "options->package_name"),
                                               serviceAccountFile: try Arguments.optionalString(o.service_account_file, "options->service_account_file"))
        core.serviceAccountJSON = try Arguments.optionalBytes(o.service_account_json, "options->service_account_json",
                                                              limit: ServiceAccountKey.maximumLength)
        guard o.metadata_server == 0 || o.metadata_server == 1 else { throw .invalid("options->metadata_server must be 0 or 1, not \(o.metadata_server)") }
        core.metadataServer = o.metadata_server == 1
        try CTransport(baseURL: o.base_url, caFile: o.ca_file, timeoutMs: o.timeout_ms, connectTimeoutMs: o.connect_timeout_ms,
                       maxRetries: o.max_retries, maxRetryWaitMs: o.max_retry_wait_ms, userAgent: o.user_agent).apply(to: &core)
        let client = try PlayDeveloperClient(options: core)
        out.pointee = OpaquePointer(Unmanaged.passRetained(client).toOpaque())
        return GATEKIT_OK
    }
}

@c(play_client_free)
public func playClientFree(_ client: OpaquePointer?) {
    guard let client else { return }
    Unmanaged<PlayDeveloperClient>.fromOpaque(UnsafeRawPointer(client)).release()
}

/// Sends one endpoint's request and fills `*out_json` as include/gatekit/play.h describes.
private func call(_ function: StaticString, _ client: OpaquePointer?, _ out: OutString?,
                  _ endpoint: () throws(GateKitError) -> PlayEndpoint) -> Int32 {
    out?.pointee = nil
    return exportBoundary(function) { () throws(GateKitError) in
        let play = try playClient(client)
        let answered = try withPlayFailure(out) { () throws(GateKitError) -> PlayDeveloperClient.Outcome in try play.send(try endpoint()) }
        switch answered {
        case let .success(answer):
            let body = try answer.body.map(Owned.cString)
            if let out { out.pointee = body } else { free(body) }
            return GATEKIT_OK
        case let .failure(failure):
            if let out { out.pointee = try Owned.cString(failure.json) }
            throw GateKitError(.EPLAY_API, failure.description)
        }
    }
}

private func text(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String { try Arguments.string(p, name) }

/// A request object's bytes (nil for NULL), read up to one byte past the limit to say it is too long.
private func request(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> [UInt8]? {
    try Arguments.optionalBytes(p, name, limit: PlayEndpoint.maximumBodyLength)
}

@c(play_subscription_get)
public func playSubscriptionGet(_ out: OutString?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    call("play_subscription_get", client, out) { () throws(GateKitError) in try .subscriptionGet(token: try text(token, "purchase_token")) }
}

@c(play_subscription_revoke)
public func playSubscriptionRevoke(_ out: OutString?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?) -> Int32 {
    call("play_subscription_revoke", client, out) { () throws(GateKitError) in
        try .subscriptionRevoke(token: try text(token, "purchase_token"), request: try request(body, "request_json"))
    }
}

@c(play_subscription_cancel)
public func playSubscriptionCancel(_ out: OutString?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?) -> Int32 {
    call("play_subscription_cancel", client, out) { () throws(GateKitError) in
        try .subscriptionCancel(token: try text(token, "purchase_token"), request: try request(body, "request_json"))
    }
}

@c(play_subscription_defer)
public func playSubscriptionDefer(_ out: OutString?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?) -> Int32 {
    call("play_subscription_defer", client, out) { () throws(GateKitError) in
        try .subscriptionDefer(token: try text(token, "purchase_token"), request: try request(body, "request_json"))
    }
}

@c(play_subscription_acknowledge)
public func playSubscriptionAcknowledge(_ out: OutString?, _ client: OpaquePointer?, _ subscription: UnsafePointer<CChar>?,
                                        _ token: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?) -> Int32 {
    call("play_subscription_acknowledge", client, out) { () throws(GateKitError) in
        try .subscriptionAcknowledge(subscriptionID: try text(subscription, "subscription_id"), token: try text(token, "purchase_token"),
                                     request: try request(body, "request_json"))
    }
}

@c(play_product_get)
public func playProductGet(_ out: OutString?, _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?, _ token: UnsafePointer<CChar>?) -> Int32 {
    call("play_product_get", client, out) { () throws(GateKitError) in
        try .productGet(productID: try text(product, "product_id"), token: try text(token, "purchase_token"))
    }
}

@c(play_product_get_v2)
public func playProductGetV2(_ out: OutString?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    call("play_product_get_v2", client, out) { () throws(GateKitError) in try .productGetV2(token: try text(token, "purchase_token")) }
}

@c(play_product_acknowledge)
public func playProductAcknowledge(_ out: OutString?, _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?,
                                   _ token: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?) -> Int32 {
    call("play_product_acknowledge", client, out) { () throws(GateKitError) in
        try .productAcknowledge(productID: try text(product, "product_id"), token: try text(token, "purchase_token"),
                                request: try request(body, "request_json"))
    }
}

@c(play_product_consume)
public func playProductConsume(_ out: OutString?, _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?, _ token: UnsafePointer<CChar>?) -> Int32 {
    call("play_product_consume", client, out) { () throws(GateKitError) in
        try .productConsume(productID: try text(product, "product_id"), token: try text(token, "purchase_token"))
    }
}

@c(play_voided_purchases_list)
public func playVoidedPurchasesList(_ out: OutString?, _ client: OpaquePointer?, _ query: UnsafePointer<CChar>?) -> Int32 {
    call("play_voided_purchases_list", client, out) { () throws(GateKitError) in try .voidedPurchases(query: try request(query, "query_json")) }
}

@c(play_order_get)
public func playOrderGet(_ out: OutString?, _ client: OpaquePointer?, _ order: UnsafePointer<CChar>?) -> Int32 {
    call("play_order_get", client, out) { () throws(GateKitError) in try .orderGet(orderID: try text(order, "order_id")) }
}

@c(play_orders_batch_get)
public func playOrdersBatchGet(_ out: OutString?, _ client: OpaquePointer?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> Int32 {
    call("play_orders_batch_get", client, out) { () throws(GateKitError) in
        guard count >= 1, count <= 1000 else { throw .invalid("count must be 1 to 1000, not \(UInt(bitPattern: count))") }
        guard let ids else { throw .invalid("order_ids is NULL") }
        var list: [String] = []
        for i in 0..<count { list.append(try text(ids[i], "order_ids[\(i)]")) }
        return try .ordersBatchGet(orderIDs: list)
    }
}

@c(play_purchase_is_test)
public func playPurchaseIsTest(_ json: UnsafeRawPointer?, _ len: Int, _ resource: Int32) -> Int32 {
    exportBoundary("play_purchase_is_test") { () throws(GateKitError) in
        guard json != nil else { throw .invalid("json is NULL") }
        guard let kind = PlayTestPurchase.Resource(rawValue: resource) else {
            throw .invalid("resource \(resource) is not a GATEKIT_PLAY_RESOURCE_* value")
        }
        let bytes = try Arguments.buffer(json, len, "json")
        guard bytes.count <= PlayReader.maximumLength else {  // refused before it is copied
            throw GateKitError(.EPLAY_RESPONSE, "the \(kind.name) is \(bytes.count) bytes; at most \(PlayReader.maximumLength) are read")
        }
        return try PlayTestPurchase.isTest(json: Array(bytes), kind) ? 1 : 0
    }
}
