import GateKitJWS
import GateKitStore
import GateKitSupport

/// Apple's signed items in batches: each verified as the single-item functions do, recorded
/// together by the core's batch (`LedgerBatch.swift`).
extension Ledger {
    /// Several signed items of one kind, each verified as the single-item functions do (on
    /// every core: verification is most of an item's cost), then recorded together in one
    /// durable transaction (one fsync for all: what a backlog or a page
    /// of the App Store Server API's transaction history wants). An item that fails
    /// verification is reported in its place and skipped; a store failure records none.
    public func ingestBatch(_ texts: [UnsafeRawBufferPointer], kind: JWSVerifier.Kind, options: JWSOptions) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        guard kind != .realtimeRequest else { throw .invalid("realtime requests are not ledger data (they carry no purchase)") }
        return try verifyAndRecord(texts.count, alongside: .subjects([]), { (i) throws(GateKitError) in
            try self.pendingItem(texts[i], kind: kind, options: options)
        }, { (_) throws(GateKitError) in }).reports
    }

    /// Signed items of any kinds, each verified as the single-item functions do, recorded in one
    /// durable transaction together with `alongside` (a sync's checkpoint, in the same commit:
    /// both or neither). `scope` names what `alongside` reads to decide what it writes. Every
    /// item is verified before the write begins, on either backend: what a server sent is
    /// untrusted, and verifying it must not hold other writers off.
    package func ingestTogether<T>(_ items: [(text: [UInt8], kind: JWSVerifier.Kind)], options: JWSOptions, alongside scope: WriteScope,
                                   _ alongside: (any DatabaseConnection) throws(GateKitError) -> T) throws(GateKitError) -> (reports: [Result<IngestReport, GateKitError>], alongside: T) {
        try verifyAndRecord(items.count, alongside: scope, allBeforeWrite: true, { (i) throws(GateKitError) in
            try self.pendingItem(items[i].text, kind: items[i].kind, options: options)
        }, alongside)
    }
}
