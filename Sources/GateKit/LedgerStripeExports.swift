import CGateKitHeader
import GateKitLedger
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
