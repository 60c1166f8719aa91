import GateKitJWS
import GateKitReceipts
import GateKitStore
import GateKitSupport
import GateKitTrust

/// Ingestion of Apple's data, the first two stages of the write path: verify (the signed data
/// or the receipt, in the same call: never decoded JSON from the caller) and map to the model
/// (`PendingItem`); then `commit` (LedgerRecording.swift) records it in one durable
/// transaction. Idempotent and order-independent: items dedupe on
/// their replay identity (notifications also on notificationUUID), and versions on
/// (transaction id, identity), so any permutation of the same items, each any number of
/// times, leaves the same versions — and the answers only ever read the newest of them.
extension Ledger {
    public func ingestNotification<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingNotification(text, options: options))
    }

    public func ingestTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingTransaction(text, options: options))
    }

    public func ingestRenewalInfo<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingRenewalInfo(text, options: options))
    }

    /// An AppTransaction is recorded (history) and changes no entitlement.
    public func ingestAppTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        try commit(try pendingAppTransaction(text, options: options))
    }

    func pendingItem<C: Collection>(_ text: C, kind: JWSVerifier.Kind, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        switch kind {
        case .notification: try pendingNotification(text, options: options)
        case .transaction: try pendingTransaction(text, options: options)
        case .renewalInfo: try pendingRenewalInfo(text, options: options)
        case .appTransaction: try pendingAppTransaction(text, options: options)
        case .realtimeRequest: throw .invalid("realtime requests are not ledger data (they carry no purchase)")
        }
    }

    func pendingNotification<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let verified = try JWSVerifier.verifyNotification(text, options: options, withJSON: false)
        let n = verified.notification
        var item = try pending(.notification, text, testData: n.provenance?.isTestSigned, options: options,
                               identity: verified.identity, vouchedMs: n.signedDate)
        item.notificationUUID = n.notificationUUID
        item.notificationType = n.notificationType
        item.subtype = n.subtype
        if let t = verified.transaction, let signed = n.data?.signedTransactionInfo {
            item.transactions.append((try version(t), try split(signed, "data.signedTransactionInfo")))
        }
        if let r = verified.renewalInfo, let signed = n.data?.signedRenewalInfo {
            item.renewals.append((try version(r), try split(signed, "data.signedRenewalInfo")))
        }
        return item
    }

    func pendingTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let t = try JWSVerifier.verifyTransaction(text, options: options)
        let identity = try identity(t.provenance)
        var item = try pending(.transaction, text, testData: t.provenance?.isTestSigned, options: options, identity: identity, vouchedMs: t.signedDate)
        item.transactions.append((try version(t), nil))  // its signed text is the item's
        return item
    }

    func pendingRenewalInfo<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let r = try JWSVerifier.verifyRenewalInfo(text, options: options)
        let identity = try identity(r.provenance)
        var item = try pending(.renewalInfo, text, testData: r.provenance?.isTestSigned, options: options, identity: identity, vouchedMs: r.signedDate)
        item.renewals.append((try version(r), nil))  // its signed text is the item's
        return item
    }

    func pendingAppTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        let a = try JWSVerifier.verifyAppTransaction(text, options: options)
        let identity = try identity(a.provenance)
        let vouchedMs = a.json["signedDate"]?.int64Value ?? a.receiptCreationDate
        return try pending(.appTransaction, text, testData: a.provenance?.isTestSigned, options: options,
                           identity: identity, vouchedMs: vouchedMs)
    }

    /// A validated app receipt: each purchase becomes a transaction version signed when the
    /// receipt was created. Receipts carry no group ids or tokens: those come from signed
    /// transactions of the same products (see `CustomerRecord.view`).
    public func ingestReceipt(_ input: UnsafeRawBufferPointer, options: ReceiptValidationOptions) throws(GateKitError) -> IngestReport {
        let validated = try ReceiptValidator.validate(input, options: options)
        let receipt = validated.receipt
        let environment: AppStoreEnvironment
        switch receipt.environmentClass {
        case .production: environment = .production
        case .sandbox: environment = .sandbox
        case .xcode: environment = .xcode
        case .unknown: throw GateKitError(.ERECEIPT_ENVIRONMENT, "the receipt's environment \(Quoted.text(receipt.environment)) is not one the ledger keeps")
        }
        guard let created = receipt.creationDate?.milliseconds else {
            throw GateKitError(.ERECEIPT_NO_CREATION_DATE, "the receipt has no creation date: its purchases cannot be ordered")
        }
        let identity = try validated.identity()
        var item = PendingItem(kind: .receipt, scope: LedgerScope(environment: environment, testData: validated.isTestSigned),
                               appID: options.bundleID, identity: identity.hex, vouchedMs: created, header: nil,
                               body: try ReceiptJSON.verifyReceiptBody(validated, identity: identity))
        var versions: [(TransactionVersion, LedgerRows.SignedText?)] = []
        for purchase in receipt.purchases {
            guard let v = TransactionVersion(purchase, receiptCreatedMs: created, identity: identity.hex) else { continue }
            for id in [v.transactionID, v.purchaseID, v.productID] where id.utf8.contains(0) {
                throw GateKitError(.ERECEIPT_PAYLOAD, "a purchase's identifier \(Quoted.text(id)) contains a NUL character")
            }
            versions.append((v, nil))
        }
        item.transactions = versions  // once: the item's subscriptions are worked out on each change
        return try commit(item)
    }

    // MARK: steps

    func identity(_ provenance: Provenance?) throws(GateKitError) -> ReplayIdentity {
        guard let provenance else { throw .internalError("verified data without provenance") }
        return try provenance.identity()
    }

    func pending<C: Collection>(_ kind: IngestReport.Kind, _ text: C, testData: Bool?, options: JWSOptions,
                                        identity: ReplayIdentity, vouchedMs: Int64?) throws(GateKitError) -> PendingItem where C.Element == UInt8 {
        guard let testData else { throw .internalError("verified data without provenance") }
        guard let signed = LedgerRows.SignedText(bytes: text) else { throw .internalError("\(kind.name): verified text is not a compact JWS") }
        return PendingItem(kind: kind, scope: LedgerScope(environment: options.environment, testData: testData),
                           appID: options.bundleID, identity: identity.hex, vouchedMs: vouchedMs ?? 0, header: signed.header, body: signed.body)
    }

    func split(_ text: String, _ what: String) throws(GateKitError) -> LedgerRows.SignedText {
        guard let signed = LedgerRows.SignedText(text) else { throw .internalError("\(what): verified text is not a compact JWS") }
        return signed
    }

    func version(_ t: JWSTransaction) throws(GateKitError) -> TransactionVersion {
        guard let v = TransactionVersion(t, identity: try identity(t.provenance).hex) else {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "the transaction lacks transactionId, originalTransactionId, productId or signedDate, which the ledger keys on")
        }
        return v
    }

    func version(_ r: JWSRenewalInfo) throws(GateKitError) -> RenewalVersion {
        try SignedKind.requireRenewalInfo(r.json, path: "renewalInfo")
        guard let v = RenewalVersion(r, identity: try identity(r.provenance).hex) else {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "the renewal info lacks originalTransactionId or signedDate, which the ledger keys on")
        }
        return v
    }
}
