import CGateKitHeader
import GateKitLedger
import GateKitPlayAPI
import GateKitSupport

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

@c(ledger_ingest_play_push)
public func ledgerIngestPlayPush(_ out: OutString?, _ store: OpaquePointer?, _ verifier: OpaquePointer?, _ client: OpaquePointer?,
                                 _ authorization: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?, _ len: Int) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_ingest_play_push") { () throws(GateKitError) in
        let ledger = try ledger(store)
        guard let verifier else { throw .invalid("verifier is NULL") }
        guard let client else { throw .invalid("client is NULL") }
        let push = Unmanaged<PushVerifier>.fromOpaque(UnsafeRawPointer(verifier)).takeUnretainedValue()
        let play = Unmanaged<PlayDeveloperClient>.fromOpaque(UnsafeRawPointer(client)).takeUnretainedValue()
        let header = try Arguments.string(authorization, "authorization")
        guard len >= 0, len <= DeveloperNotification.maximumBodyLength else {
            throw GateKitError(.ETOOLARGE, "body_len \(UInt(bitPattern: len)) is over \(DeveloperNotification.maximumBodyLength) bytes")
        }
        let bytes = Array(try Arguments.buffer(body, len, "body"))
        return try reported(out) { () throws(GateKitError) in
            try ledger.ingestPlayPush(authorization: header, body: bytes, verifier: push, client: play)
        }
    }
}
