import CGateKitHeader
import GateKitLedger
import GateKitLedgerSync
import GateKitPlayAPI
import GateKitPlayData
import GateKitSupport
import Glibc

// include/gatekit/ledger_play.h: Google Play's answers and notifications into the ledger.

/// The answer's bytes, at most a SubscriptionPurchaseV2's limit (1 MiB).
private func answer(_ data: UnsafeRawPointer?, _ len: Int) throws(GateKitError) -> [UInt8] {
    guard len >= 0, len <= SubscriptionPurchase.maximumLength else {
        throw GateKitError(.ETOOLARGE, "answer_len \(UInt(bitPattern: len)) is over \(SubscriptionPurchase.maximumLength) bytes (a Play purchase answer is a few KB)")
    }
    return Array(try Arguments.buffer(data, len, "answer"))
}

private func playAnswer(_ package: UnsafePointer<CChar>?, _ token: UnsafePointer<CChar>?, _ data: UnsafeRawPointer?, _ len: Int,
                        _ answeredMs: Int64) throws(GateKitError) -> Ledger.PlayAnswer {
    Ledger.PlayAnswer(packageName: try Arguments.string(package, "package_name"), purchaseToken: try Arguments.string(token, "purchase_token"),
                      bytes: try answer(data, len), answeredMs: answeredMs == 0 ? nil : answeredMs)
}

/// One answer's ingestion by `record` (`function`: the export's name, for the last error).
private func ingestAnswer(_ function: StaticString, _ out: OutString?, _ store: OpaquePointer?, _ package: UnsafePointer<CChar>?,
                          _ token: UnsafePointer<CChar>?, _ data: UnsafeRawPointer?, _ len: Int, _ answeredMs: Int64,
                          _ record: @escaping (Ledger, Ledger.PlayAnswer) throws(GateKitError) -> IngestReport) -> Int32 {
    out?.pointee = nil
    return exportBoundary(function) { () throws(GateKitError) in
        let ledger = try ledger(store)
        let input = try playAnswer(package, token, data, len, answeredMs)
        return try reported(out) { () throws(GateKitError) in try record(ledger, input) }
    }
}

@c(ledger_ingest_play_subscription)
public func ledgerIngestPlaySubscription(_ out: OutString?, _ store: OpaquePointer?, _ package: UnsafePointer<CChar>?,
                                         _ token: UnsafePointer<CChar>?, _ data: UnsafeRawPointer?, _ len: Int, _ answeredMs: Int64) -> Int32 {
    ingestAnswer("ledger_ingest_play_subscription", out, store, package, token, data, len, answeredMs) { (l, a) throws(GateKitError) in
        try l.ingestPlaySubscription(a)
    }
}

@c(ledger_ingest_play_product)
public func ledgerIngestPlayProduct(_ out: OutString?, _ store: OpaquePointer?, _ package: UnsafePointer<CChar>?,
                                    _ token: UnsafePointer<CChar>?, _ data: UnsafeRawPointer?, _ len: Int, _ answeredMs: Int64) -> Int32 {
    ingestAnswer("ledger_ingest_play_product", out, store, package, token, data, len, answeredMs) { (l, a) throws(GateKitError) in
        try l.ingestPlayProduct(a)
    }
}

@c(ledger_ingest_play_product_v1)
public func ledgerIngestPlayProductV1(_ out: OutString?, _ store: OpaquePointer?, _ package: UnsafePointer<CChar>?,
                                      _ productID: UnsafePointer<CChar>?, _ token: UnsafePointer<CChar>?, _ data: UnsafeRawPointer?,
                                      _ len: Int, _ answeredMs: Int64) -> Int32 {
    ingestAnswer("ledger_ingest_play_product_v1", out, store, package, token, data, len, answeredMs) { (l, a) throws(GateKitError) in
        try l.ingestPlayProductV1(a, productID: try Arguments.string(productID, "product_id"))
    }
}

@c(ledger_ingest_play_push)
public func ledgerIngestPlayPush(_ out: OutString?, _ store: OpaquePointer?, _ verifier: OpaquePointer?, _ client: OpaquePointer?,
                                 _ authorization: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?, _ len: Int) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_ingest_play_push") { () throws(GateKitError) in
        let ledger = try ledger(store)
        guard let verifier else { throw .invalid("verifier is NULL") }
        let push = Unmanaged<PushVerifier>.fromOpaque(UnsafeRawPointer(verifier)).takeUnretainedValue()
        let play = try playClient(client)
        let (header, bytes) = try pushRequest(authorization, body, len)
        return try withPlayFailure(out) { () throws(GateKitError) in
            try reported(out) { () throws(GateKitError) in try ledger.ingestPlayPush(authorization: header, body: bytes, verifier: push, client: play) }
        }
    }
}

@c(ledger_ingest_play_voided)
public func ledgerIngestPlayVoided(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                                   _ page: UnsafeRawPointer?, _ len: Int) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_ingest_play_voided") { () throws(GateKitError) in
        let ledger = try ledger(store)
        let play = try playClient(client)
        let bytes = Array(try Arguments.buffer(page, len, "page"))
        let report = try withPlayFailure(out) { () throws(GateKitError) in try PlayVoidedIngest.ingest(ledger, page: bytes, client: play) }
        if let out { out.pointee = try Owned.cString(report.json) }
        return GATEKIT_OK
    }
}

/// `body`, with Google's error answer (GATEKIT_EPLAY_API) in `*out` as the Play client's own
/// calls give it (include/gatekit/play.h's error JSON), so a host reads its status and reason.
func withPlayFailure<T>(_ out: OutString?, _ body: () throws(GateKitError) -> T) throws(GateKitError) -> T {
    do {
        return try body()
    } catch {
        if error.code == .EPLAY_API, let detail = error.detail, let out { out.pointee = try Owned.cString(detail) }
        throw error
    }
}

/// The client a `gatekit_play_client *` points at (the Play exports' too).
func playClient(_ client: OpaquePointer?) throws(GateKitError) -> PlayDeveloperClient {
    guard let client else { throw .invalid("client is NULL") }
    return Unmanaged<PlayDeveloperClient>.fromOpaque(UnsafeRawPointer(client)).takeUnretainedValue()
}

/// Bytes of `gatekit_ledger_play_sync_options` per version.
private let playSyncOptionsSizes = [MemoryLayout<gatekit_ledger_play_sync_options>.size]

@c(ledger_play_sync_options_init)
public func ledgerPlaySyncOptionsInit(_ options: UnsafeMutablePointer<gatekit_ledger_play_sync_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_play_sync_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: playSyncOptionsSizes, "gatekit_ledger_play_sync_options")
        guard let options else { return rc }
        let defaults = PlaySync.Options()
        options.pointee.overlap_ms = defaults.overlapMs
        options.pointee.lease_ms = defaults.leaseMs
        options.pointee.max_refreshes = Int32(defaults.maximumRefreshes)
        return rc
    }
}

@c(ledger_sync_play)
public func ledgerSyncPlay(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                           _ options: UnsafePointer<gatekit_ledger_play_sync_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_sync_play") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let play = try playClient(client)
        var core = PlaySync.Options()
        if options != nil {
            let o = try Arguments.versioned(options, sizes: playSyncOptionsSizes, zero: gatekit_ledger_play_sync_options(),
                                            initializer: "ledger_play_sync_options_init")
            guard o.budget_ms >= 0, o.budget_ms <= 86_400_000, o.max_pages >= 0, o.max_refreshes >= 0, o.overlap_ms >= 0,
                  o.overlap_ms <= 2_592_000_000, o.lease_ms > 0, o.lease_ms <= 86_400_000 else {
                throw .invalid("budget_ms (at most a day), max_pages, max_refreshes and overlap_ms (at most the 30 days Google keeps) must not be negative; lease_ms is 1 ms to a day")
            }
            core.overlapMs = o.overlap_ms
            core.budgetMs = o.budget_ms == 0 ? core.budgetMs : o.budget_ms
            core.maximumPages = o.max_pages == 0 ? nil : Int(o.max_pages)
            core.leaseMs = o.lease_ms
            core.maximumRefreshes = Int(o.max_refreshes)
        }
        let report = try withPlayFailure(out) { () throws(GateKitError) in try PlaySync.run(ledger: handle.ledger, client: play, options: core) }
        if let out { out.pointee = try Owned.cString(report.json) }
        return report.outcome.rawValue
    }
}

@c(ledger_set_play_refresher)
public func ledgerSetPlayRefresher(_ store: OpaquePointer?, _ client: OpaquePointer?) -> Int32 {
    exportBoundary("ledger_set_play_refresher") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        handle.setRefresher(try client.map { (c) throws(GateKitError) in PlayRefresher(client: try playClient(c)) }, of: .play)
        return GATEKIT_OK
    }
}

/// Most answers one ledger_ingest_play_batch call takes.
private let maximumPlayBatch = 10_000

@c(ledger_ingest_play_batch)
public func ledgerIngestPlayBatch(_ out: OutString?, _ store: OpaquePointer?, _ package: UnsafePointer<CChar>?, _ kind: Int32,
                                  _ tokens: UnsafePointer<UnsafePointer<CChar>?>?, _ answers: UnsafePointer<UnsafePointer<CChar>?>?,
                                  _ count: Int, _ answeredMs: Int64) -> Int32 {
    exportBoundary("ledger_ingest_play_batch") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in  // helper threads at work: no fork meanwhile
            out?.pointee = nil
            let ledger = try ledger(store)
            guard kind == GATEKIT_LEDGER_PLAY_SUBSCRIPTION || kind == GATEKIT_LEDGER_PLAY_PRODUCT else {
                throw .invalid("kind must be GATEKIT_LEDGER_PLAY_SUBSCRIPTION or GATEKIT_LEDGER_PLAY_PRODUCT, not \(kind)")
            }
            guard count >= 0, count <= maximumPlayBatch else { throw .invalid("count is \(UInt(bitPattern: count)); at most \(maximumPlayBatch) answers") }
            guard (tokens != nil && answers != nil) || count == 0 else { throw .invalid("purchase_tokens or answers is NULL but count is \(count)") }
            let packageName = try Arguments.string(package, "package_name")
            var batch: [(answer: Ledger.PlayAnswer, isSubscription: Bool)] = []
            batch.reserveCapacity(count)
            for i in 0..<count {
                let token = try Arguments.string(tokens?[i], "purchase_tokens[\(i)]")
                guard let text = answers?[i] else { throw .invalid("answers[\(i)] is NULL") }
                let length = strnlen(text, SubscriptionPurchase.maximumLength + 1)
                guard length <= SubscriptionPurchase.maximumLength else {
                    throw GateKitError(.ETOOLARGE, "answers[\(i)] is over \(SubscriptionPurchase.maximumLength) bytes")
                }
                let bytes = Array(try Arguments.string(text, "answers[\(i)]").utf8)  // UTF-8, as JSON is
                batch.append((Ledger.PlayAnswer(packageName: packageName, purchaseToken: token, bytes: bytes, answeredMs: answeredMs == 0 ? nil : answeredMs),
                              kind == GATEKIT_LEDGER_PLAY_SUBSCRIPTION))
            }
            return try batchReported(out, try ledger.ingestPlayBatch(batch))
        }
    }
}

@c(ledger_play_acknowledge)
public func ledgerPlayAcknowledge(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_play_acknowledge") { () throws(GateKitError) in
        let ledger = try ledger(store)
        let play = try playClient(client)
        let purchaseToken = try Arguments.string(token, "purchase_token")
        return try withPlayFailure(out) { () throws(GateKitError) in
            try reported(out) { () throws(GateKitError) in try ledger.acknowledgePlay(token: purchaseToken, client: play) }
        }
    }
}
