import CGateKitHeader
import Glibc
import GateKitLedger
import GateKitLedgerDelivery
import GateKitSupport

// include/gatekit/ledger_webhooks.h: the ledger's changes delivered to a team's backend.

private func allowed(_ flags: Int32) throws(GateKitError) -> WebhookEndpoint.Allowed {
    let known = GATEKIT_WEBHOOK_ALLOW_PRIVATE | GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP
    guard flags & ~known == 0 else { throw .invalid("flags holds unknown bits: \(flags)") }
    return WebhookEndpoint.Allowed(privateAddresses: flags & GATEKIT_WEBHOOK_ALLOW_PRIVATE != 0,
                                   loopbackHTTP: flags & GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP != 0)
}

@c(ledger_webhook_endpoint_add)
public func ledgerWebhookEndpointAdd(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                     _ url: UnsafePointer<CChar>?, _ types: UnsafePointer<UnsafePointer<CChar>?>?, _ typeCount: Int,
                                     _ description: UnsafePointer<CChar>?, _ flags: Int32) -> Int32 {
    exportBoundary("ledger_webhook_endpoint_add") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let ledger = try ledger(store)
        guard (0...BusinessEvent.allCases.count).contains(typeCount) else { throw .invalid("event_type_count must be 0 to \(BusinessEvent.allCases.count)") }
        var names: [String] = []
        if typeCount > 0 {
            guard let types else { throw .invalid("event_types is NULL with event_type_count \(typeCount)") }
            for i in 0..<typeCount { names.append(try Arguments.string(types[i], "event_types[\(i)]")) }
        }
        let endpoint = try ledger.addWebhookEndpoint(url: try Arguments.string(url, "url"), eventTypes: names,
                                                     description: try Arguments.optionalString(description, "description") ?? "",
                                                     allowed: try allowed(flags))
        out.pointee = try Owned.cString(JSONWriter.serialize(endpoint.json(withSecret: true)))
        return GATEKIT_OK
    }
}

@c(ledger_webhook_endpoint_update)
public func ledgerWebhookEndpointUpdate(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                        _ id: UnsafePointer<CChar>?, _ changeJSON: UnsafePointer<CChar>?, _ flags: Int32) -> Int32 {
    exportBoundary("ledger_webhook_endpoint_update") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let ledger = try ledger(store)
        let id = try Arguments.string(id, "id")
        let text = try Arguments.string(changeJSON, "change_json")
        let json: JSONValue
        do throws(GateKitError) { json = try JSONParser.parse(Array(text.utf8)) } catch { throw .invalid("change_json is not JSON: \(error.message)") }
        guard case .object(let members) = json else { throw .invalid("change_json is a JSON object") }
        var change = Ledger.WebhookEndpointChange()
        for (key, value) in members {
            switch (key, value) {
            case ("url", .string(let url)): change.url = url
            case ("description", .string(let d)): change.description = d
            case ("enabled", .bool(let on)): change.enabled = on
            case ("eventTypes", .array(let list)):
                change.eventTypes = try list.map { (v) throws(GateKitError) -> String in
                    guard let name = v.stringValue else { throw .invalid("change_json's eventTypes is a list of names") }
                    return name
                }
            default: throw .invalid("change_json's member \(Quoted.text(key)) is not url, eventTypes, description or enabled of their types")
            }
        }
        let endpoint = try ledger.updateWebhookEndpoint(id, change, allowed: try allowed(flags))
        out.pointee = try Owned.cString(JSONWriter.serialize(endpoint.json()))
        return GATEKIT_OK
    }
}

@c(ledger_webhook_secret_roll)
public func ledgerWebhookSecretRoll(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                    _ id: UnsafePointer<CChar>?, _ overlapMs: Int64) -> Int32 {
    exportBoundary("ledger_webhook_secret_roll") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let endpoint = try ledger(store).rollWebhookSecret(try Arguments.string(id, "id"), overlapMs: overlapMs)
        out.pointee = try Owned.cString(JSONWriter.serialize(endpoint.json(withSecret: true)))
        return GATEKIT_OK
    }
}

@c(ledger_webhook_report)
public func ledgerWebhookReport(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?) -> Int32 {
    exportBoundary("ledger_webhook_report") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        out.pointee = try Owned.cString(try ledger(store).webhookReportJSON())
        return GATEKIT_OK
    }
}

@c(ledger_webhook_metrics)
public func ledgerWebhookMetrics(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?) -> Int32 {
    exportBoundary("ledger_webhook_metrics") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_text")
        out.pointee = nil
        out.pointee = try Owned.cString(try ledger(store).webhookMetricsText())
        return GATEKIT_OK
    }
}

@c(ledger_webhook_replay)
public func ledgerWebhookReplay(_ store: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ fromSeq: Int64, _ toSeq: Int64,
                                _ fromMs: Int64, _ toMs: Int64) -> Int32 {
    exportBoundary("ledger_webhook_replay") { () throws(GateKitError) in
        let queued = try ledger(store).replayWebhooks(to: try Arguments.string(id, "id"), fromSeq: fromSeq, toSeq: toSeq, fromMs: fromMs, toMs: toMs)
        guard let count = Int32(exactly: queued) else { throw .invalid("the replay queued \(queued) deliveries, more than an int counts") }
        return count
    }
}

@c(ledger_webhook_deliveries)
public func ledgerWebhookDeliveries(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                    _ id: UnsafePointer<CChar>?, _ state: UnsafePointer<CChar>?, _ afterSeq: Int64, _ limit: Int32) -> Int32 {
    exportBoundary("ledger_webhook_deliveries") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        out.pointee = try Owned.cString(try ledger(store).webhookDeliveriesJSON(
            endpoint: try Arguments.string(id, "id"), state: try Arguments.optionalString(state, "state"), afterSeq: afterSeq, limit: Int(limit)))
        return GATEKIT_OK
    }
}

/// Bytes of `gatekit_webhook_delivery_options` per version.
private let deliveryOptionsSizes = [MemoryLayout<gatekit_webhook_delivery_options>.size]

@c(ledger_webhook_delivery_options_init)
public func ledgerWebhookDeliveryOptionsInit(_ options: UnsafeMutablePointer<gatekit_webhook_delivery_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_webhook_delivery_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: deliveryOptionsSizes, "gatekit_webhook_delivery_options")
        guard let options else { return rc }
        let defaults = WebhookDeliverer.Settings(holder: "")
        options.pointee.attempt_timeout_ms = Int32(defaults.attemptTimeoutMs)
        options.pointee.connect_timeout_ms = Int32(defaults.connectTimeoutMs)
        options.pointee.give_up_after_ms = defaults.schedule.giveUpAfterMs
        options.pointee.disable_after_ms = defaults.schedule.disableAfterMs
        return rc
    }
}

/// Workers named by no host: unique to the process and the call.
private let workerCount = Lock()
nonisolated(unsafe) private var workersMade: UInt64 = 0

private func deliverer(_ ledger: Ledger, _ options: UnsafePointer<gatekit_webhook_delivery_options>?) throws(GateKitError) -> WebhookDeliverer {
    let o = try Arguments.versioned(options, sizes: deliveryOptionsSizes, zero: gatekit_webhook_delivery_options(),
                                    initializer: "ledger_webhook_delivery_options_init")
    let named = try Arguments.optionalString(o.worker, "options->worker")
    let n = workerCount.withLock { () -> UInt64 in workersMade &+= 1; return workersMade }
    var hostName = [CChar](repeating: 0, count: 256)
    _ = gethostname(&hostName, hostName.count - 1)
    let host = String(decoding: hostName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var settings = WebhookDeliverer.Settings(holder: named ?? "\(host)/\(getpid())/\(n)")
    settings.certificateAuthorities = try Arguments.optionalString(o.ca_file, "options->ca_file").map { (path) throws(GateKitError) in
        try TrustedFile.read(path, limit: 1 << 20, what: "ca_file")
    }
    settings.attemptTimeoutMs = Int(o.attempt_timeout_ms)
    settings.connectTimeoutMs = Int(o.connect_timeout_ms)
    settings.schedule = DeliverySchedule(giveUpAfterMs: o.give_up_after_ms, disableAfterMs: o.disable_after_ms)
    let allowed = try allowed(o.flags)
    settings.allowPrivateAddresses = allowed.privateAddresses
    settings.allowLoopbackHTTP = allowed.loopbackHTTP
    return try WebhookDeliverer(ledger: ledger, settings: settings)
}

@c(ledger_webhook_deliver)
public func ledgerWebhookDeliver(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                 _ options: UnsafePointer<gatekit_webhook_delivery_options>?, _ budgetMs: Int32) -> Int32 {
    exportBoundary("ledger_webhook_deliver") { () throws(GateKitError) in
        out?.pointee = nil
        guard (0...3_600_000).contains(budgetMs) else { throw .invalid("budget_ms must be 0 to 3600000, not \(budgetMs)") }
        let pass = try deliverer(try ledger(store), options).deliverDue(budgetMs: Int(budgetMs))
        if let out { out.pointee = try Owned.cString(JSONWriter.serialize(pass.json)) }
        return GATEKIT_OK
    }
}

/// What a `gatekit_webhook_delivery *` points to: the thread and what tells it to stop. The
/// thread is the process's that started it: a forked child has no such thread to join.
final class DeliveryThread: @unchecked Sendable {
    private let generation = ForkGeneration.current
    private let lock = Lock()
    private var stopping = false
    private var failure: GateKitError?
    private var thread: BackgroundThread?

    init(_ deliverer: WebhookDeliverer) throws(GateKitError) {
        thread = try BackgroundThread.start("webhook delivery") { [self] in
            let error = deliverer.run { self.lock.withLock { self.stopping } }
            self.lock.withLock { self.failure = error }
        }
    }

    /// Whether this process started the thread (not a forked child of that process).
    var startedHere: Bool { generation == ForkGeneration.current }

    func stop() -> GateKitError? {
        lock.withLock { stopping = true }
        thread?.finish()
        return lock.withLock { failure }
    }
}

@c(ledger_webhook_delivery_start)
public func ledgerWebhookDeliveryStart(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ store: OpaquePointer?,
                                       _ options: UnsafePointer<gatekit_webhook_delivery_options>?) -> Int32 {
    exportBoundary("ledger_webhook_delivery_start") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let running = try DeliveryThread(try deliverer(try ledger(store), options))
        out.pointee = OpaquePointer(Unmanaged.passRetained(running).toOpaque())
        return GATEKIT_OK
    }
}

@c(ledger_webhook_delivery_stop)
public func ledgerWebhookDeliveryStop(_ delivery: OpaquePointer?) -> Int32 {
    exportBoundary("ledger_webhook_delivery_stop") { () throws(GateKitError) in
        guard let delivery else { return GATEKIT_OK }
        let handle = Unmanaged<DeliveryThread>.fromOpaque(UnsafeRawPointer(delivery))
        // A forked child leaves the parent's handle alone (neither joined nor freed here).
        guard handle.takeUnretainedValue().startedHere else {
            throw GateKitError(.EFORKED, "this delivery thread was started before the process forked: it runs in the parent, which stops it")
        }
        if let error = handle.takeRetainedValue().stop() { throw error }
        return GATEKIT_OK
    }
}
