import CGateKitHeader
import Glibc
import GateKitLedger
import GateKitLedgerSync
import GateKitStripeAPI
import GateKitStripeData
import GateKitSupport

// include/gatekit/ledger_stripe.h: Stripe's answers into the ledger.

/// Bytes of `gatekit_ledger_stripe_options` per version.
private let stripeOptionsSizes = [MemoryLayout<gatekit_ledger_stripe_options>.size]

@c(ledger_stripe_options_init)
public func ledgerStripeOptionsInit(_ options: UnsafeMutablePointer<gatekit_ledger_stripe_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_stripe_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: stripeOptionsSizes, "gatekit_ledger_stripe_options")
        options?.pointee.past_due_grace_ms = -1
        return rc
    }
}

/// The core's options from the C struct (NULL: the defaults).
private func stripeOptions(_ options: UnsafePointer<gatekit_ledger_stripe_options>?) throws(GateKitError) -> Ledger.StripeOptions {
    var core = Ledger.StripeOptions()
    guard options != nil else { return core }
    let o = try Arguments.versioned(options, sizes: stripeOptionsSizes, zero: gatekit_ledger_stripe_options(),
                                    initializer: "ledger_stripe_options_init")
    guard o.past_due_grace_ms >= -1 else {
        throw .invalid("options->past_due_grace_ms must be -1 (the whole period Stripe collects for), 0 (none) or a length in ms, not \(o.past_due_grace_ms)")
    }
    core.pastDueGraceMs = o.past_due_grace_ms == -1 ? nil : o.past_due_grace_ms
    if let key = try Arguments.optionalString(o.account_metadata_key, "options->account_metadata_key") { core.accountMetadataKey = key }
    guard let disputes = Ledger.StripeOptions.DisputePolicy(rawValue: o.dispute_policy) else {
        throw .invalid("options->dispute_policy must be GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_OPENED (0), _REVOKE_WHEN_LOST (1) or _NEVER (2), not \(o.dispute_policy)")
    }
    core.disputes = disputes
    return core
}

@c(ledger_ingest_stripe)
public func ledgerIngestStripe(_ out: OutString?, _ store: OpaquePointer?, _ object: UnsafeRawPointer?, _ len: Int, _ answeredMs: Int64,
                               _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_ingest_stripe") { () throws(GateKitError) in
        let ledger = try ledger(store)
        guard len >= 0, len <= StripeReader.maximumLength else {
            throw GateKitError(.ETOOLARGE, "object_len \(UInt(bitPattern: len)) is over \(StripeReader.maximumLength) bytes (a Stripe object is a few KB)")
        }
        let answer = Ledger.StripeAnswer(bytes: Array(try Arguments.buffer(object, len, "object")), answeredMs: answeredMs == 0 ? nil : answeredMs)
        let core = try stripeOptions(options)
        return try reported(out) { () throws(GateKitError) in try ledger.ingestStripeObject(answer, options: core) }
    }
}

/// Most answers one ledger_ingest_stripe_batch call takes.
private let maximumStripeBatch = 10_000

@c(ledger_ingest_stripe_batch)
public func ledgerIngestStripeBatch(_ out: OutString?, _ store: OpaquePointer?, _ objects: UnsafePointer<UnsafePointer<CChar>?>?,
                                    _ count: Int, _ answeredMs: Int64, _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    exportBoundary("ledger_ingest_stripe_batch") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in  // helper threads at work: no fork meanwhile
            out?.pointee = nil
            let ledger = try ledger(store)
            guard count >= 0, count <= maximumStripeBatch else { throw .invalid("count is \(UInt(bitPattern: count)); at most \(maximumStripeBatch) objects") }
            guard objects != nil || count == 0 else { throw .invalid("objects is NULL but count is \(count)") }
            let core = try stripeOptions(options)
            var batch: [Ledger.StripeAnswer] = []
            batch.reserveCapacity(count)
            for i in 0..<count {
                guard let text = objects?[i] else { throw .invalid("objects[\(i)] is NULL") }
                guard strnlen(text, StripeReader.maximumLength + 1) <= StripeReader.maximumLength else {
                    throw GateKitError(.ETOOLARGE, "objects[\(i)] is over \(StripeReader.maximumLength) bytes (a Stripe object is a few KB)")
                }
                batch.append(Ledger.StripeAnswer(bytes: Array(try Arguments.string(text, "objects[\(i)]").utf8),
                                                 answeredMs: answeredMs == 0 ? nil : answeredMs))
            }
            return try batchReported(out, try ledger.ingestStripeBatch(batch, options: core))
        }
    }
}

@c(ledger_refresh_stripe)
public func ledgerRefreshStripe(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?, _ objectID: UnsafePointer<CChar>?,
                                _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_refresh_stripe") { () throws(GateKitError) in
        let ledger = try ledger(store)
        let stripe = try stripeClient(client)
        let id = try Arguments.string(objectID, "object_id")
        let core = try stripeOptions(options)
        return try withStripeFailure(out) { () throws(GateKitError) in
            try reported(out) { () throws(GateKitError) in try ledger.refreshStripe(objectID: id, client: stripe, options: core) }
        }
    }
}

@c(ledger_ingest_stripe_webhook)
public func ledgerIngestStripeWebhook(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                                      _ signatureHeader: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?, _ bodyLength: Int,
                                      _ secrets: UnsafePointer<UnsafePointer<CChar>?>?, _ secretCount: Int, _ toleranceSeconds: Int32,
                                      _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_ingest_stripe_webhook") { () throws(GateKitError) in
        let ledger = try ledger(store)
        let stripe = try stripeClient(client)
        let (header, bytes) = try webhookDelivery(signatureHeader, body, bodyLength)
        let verifier = try webhookVerifier(secrets, secretCount, toleranceSeconds)
        let core = try stripeOptions(options)
        let report = try withStripeFailure(out) { () throws(GateKitError) in
            try ledger.ingestStripeWebhook(body: Array(bytes), signatureHeader: header, verifier: verifier, client: stripe, options: core)
        }
        if let out { out.pointee = try Owned.cString(report.json) }
        return report.ingested?.outcome.rawValue ?? GATEKIT_OK
    }
}

/// Bytes of `gatekit_ledger_stripe_sync_options` per version.
private let stripeSyncOptionsSizes = [MemoryLayout<gatekit_ledger_stripe_sync_options>.size]

@c(ledger_stripe_sync_options_init)
public func ledgerStripeSyncOptionsInit(_ options: UnsafeMutablePointer<gatekit_ledger_stripe_sync_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_stripe_sync_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: stripeSyncOptionsSizes, "gatekit_ledger_stripe_sync_options")
        guard let options else { return rc }
        let defaults = StripeSync.Options()
        options.pointee.overlap_ms = defaults.overlapMs
        options.pointee.lease_ms = defaults.leaseMs
        return rc
    }
}

@c(ledger_sync_stripe)
public func ledgerSyncStripe(_ out: OutString?, _ store: OpaquePointer?, _ client: OpaquePointer?,
                             _ sync: UnsafePointer<gatekit_ledger_stripe_sync_options>?,
                             _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    out?.pointee = nil
    return exportBoundary("ledger_sync_stripe") { () throws(GateKitError) in
        let ledger = try ledger(store)
        let stripe = try stripeClient(client)
        var core = StripeSync.Options()
        if sync != nil {
            let o = try Arguments.versioned(sync, sizes: stripeSyncOptionsSizes, zero: gatekit_ledger_stripe_sync_options(),
                                            initializer: "ledger_stripe_sync_options_init")
            guard o.budget_ms >= 0, o.budget_ms <= 86_400_000, o.max_pages >= 0, o.overlap_ms >= 0, o.overlap_ms <= 2_592_000_000,
                  o.lease_ms > 0, o.lease_ms <= 86_400_000 else {
                throw .invalid("budget_ms (at most a day), max_pages and overlap_ms (at most the 30 days Stripe keeps) must not be negative; lease_ms is 1 ms to a day")
            }
            core.overlapMs = o.overlap_ms
            core.budgetMs = o.budget_ms == 0 ? core.budgetMs : o.budget_ms
            core.maximumPages = o.max_pages == 0 ? nil : Int(o.max_pages)
            core.leaseMs = o.lease_ms
        }
        core.ingest = try stripeOptions(options)
        let report = try withStripeFailure(out) { () throws(GateKitError) in try StripeSync.run(ledger: ledger, client: stripe, options: core) }
        if let out { out.pointee = try Owned.cString(report.json) }
        return report.outcome.rawValue
    }
}

@c(ledger_set_stripe_refresher)
public func ledgerSetStripeRefresher(_ store: OpaquePointer?, _ client: OpaquePointer?,
                                     _ options: UnsafePointer<gatekit_ledger_stripe_options>?) -> Int32 {
    exportBoundary("ledger_set_stripe_refresher") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        let core = try stripeOptions(options)
        handle.setRefresher(try client.map { (c) throws(GateKitError) in try StripeRefresher(client: try stripeClient(c), options: core) },
                            of: .stripe)
        return GATEKIT_OK
    }
}
