import GateKitStore
import GateKitSupport

/// What one write transaction's ingestions add to the ledger, gathered and sent before it
/// commits as multi-row INSERTs (`RowInserts`), parents before children. Until then recording
/// reads its own writes from `Ledger.RecordingState` (the items recorded, each subscription's
/// record and answers), never from the store.
struct LedgerWrites {
    private var items: RowInserts
    private var transactions = RowInserts(
        into: "ledger_transactions(environment, test_signed, \(LedgerRows.transactionColumns), granted_by, note, item_id, header_id, body, \(SaleColumns.names))",
        values: Array(repeating: "?", count: 34), then: "ON CONFLICT DO NOTHING")
    private var renewals = RowInserts(
        into: "ledger_renewals(environment, test_signed, \(LedgerRows.renewalColumns), item_id, header_id, body)",
        values: Array(repeating: "?", count: 16), then: "ON CONFLICT DO NOTHING")
    private var products = RowInserts(into: "ledger_products(environment, test_signed, product_id, group_id)",
                                      values: Array(repeating: "?", count: 4), then: "ON CONFLICT DO NOTHING")
    private var subjects = RowInserts(into: "ledger_item_subjects(original_transaction_id, item_id)",
                                      values: ["?", "?"], then: "ON CONFLICT DO NOTHING")
    private var payments = RowInserts(
        into: "ledger_payments(environment, test_signed, payment, original_transaction_id, transaction_id, period_start_ms, period_end_ms, signed_ms, item_id)",
        values: Array(repeating: "?", count: 9))
    private var paymentRevocations = RowInserts(
        into: "ledger_payment_revocations(environment, test_signed, payment, source_id, revocation_ms, revocation_reason, refund_kind, signed_ms, identity, item_id, refund_ms, refund_amount, refund_currency)",
        values: Array(repeating: "?", count: 13))
    private var statusChanges = RowInserts(
        into: "ledger_status_changes(environment, test_signed, original_transaction_id, group_id, from_status, to_status, item_id, at_ms)",
        values: Array(repeating: "?", count: 8))
    /// Each product's newest answer, in the order first kept (one row per key: an upsert may
    /// not touch a row twice in one statement).
    private var answers: [AnswerKey: [RowInserts.Value]] = [:]
    private var answerOrder: [AnswerKey] = []

    private struct AnswerKey: Hashable {
        let scope: LedgerScope
        let original: String
        let product: String
    }

    /// On PostgreSQL the product → group rows were committed before the transaction
    /// (`Ledger.storeSharedRowsAhead`): nothing to add.
    private let productsCommittedAhead: Bool

    /// Items carry the id drawn for them: PostgreSQL's identity column takes it only when told.
    init(_ dialect: SQLDialect) {
        productsCommittedAhead = dialect == .postgresql
        let overriding = dialect == .postgresql ? " OVERRIDING SYSTEM VALUE" : ""
        items = RowInserts(into: """
            ledger_items(id, environment, test_signed, identity, kind, notification_uuid, notification_type, subtype,
                signed_ms, ingested_ms, outcome, header_id, body, store_kind)\(overriding)
            """, values: Array(repeating: "?", count: 14))
    }

    mutating func addItem(_ item: Ledger.PendingItem, id: Int64, outcome: IngestReport.Outcome, header: Int64?, now: Int64) throws(GateKitError) {
        try items.append([.integer(id), .text(item.scope.environment), .integer(item.scope.testFlag), .text(item.identity),
                          .integer(item.kind.storedKind), .text(item.notificationUUID), .text(item.notificationType), .text(item.subtype),
                          .integer(item.vouchedMs), .integer(now), .integer(Int64(outcome.rawValue)), .integer(header), .text(item.body),
                          .text(item.kind.storeKind)])
    }

    /// `body` nil: the version's signed text is its item's own (or, for a receipt purchase,
    /// none); otherwise `header` is its header's row.
    mutating func add(_ v: TransactionVersion, scope: LedgerScope, item: Int64, header: Int64?, body: String?,
                      attribution: Attribution? = nil) throws(GateKitError) {
        try transactions.append([
            .text(scope.environment), .integer(scope.testFlag), .text(v.transactionID), .text(v.purchaseID),
            .text(v.appAccountToken), .text(v.productID), .text(v.groupID), .integer(v.productType.rawValue),
            .integer(v.familyShared ? 1 : 0), .integer(v.purchaseMs), .integer(v.originalPurchaseMs), .integer(v.expiresMs),
            .integer(v.revocationMs), .integer(v.revocationReason?.rawValue), .integer(v.isUpgraded ? 1 : 0), .integer(v.offer?.rawValue),
            .integer(v.vouchedMs), .text(v.identity), .text(v.store.code), .text(v.replaces), .integer(v.isPending ? 1 : nil),
            .integer(v.acknowledged.map { $0 ? 1 : 0 }), .text(v.storeState), .text(attribution?.grantedBy), .text(attribution?.note),
            .integer(item), .integer(header), .text(body),
        ] + SaleColumns.values(v.sale))
        if let group = v.groupID, !productsCommittedAhead {
            try products.append([.text(scope.environment), .integer(scope.testFlag), .text(v.productID), .text(group)])
        }
    }

    /// `body` nil: the version's signed text is its item's own.
    mutating func add(_ v: RenewalVersion, scope: LedgerScope, item: Int64, header: Int64?, body: String?) throws(GateKitError) {
        try renewals.append([
            .text(scope.environment), .integer(scope.testFlag), .text(v.purchaseID), .text(v.productID),
            .text(v.autoRenewProductID), .integer(v.willAutoRenew.map { $0 ? 1 : 0 }), .integer(v.isInBillingRetryPeriod ? 1 : 0),
            .integer(v.gracePeriodExpiresMs), .integer(v.expirationCause?.rawValue), .integer(v.renewalMs), .integer(v.vouchedMs),
            .text(v.identity), .integer(v.pausedUntilMs), .integer(item), .integer(header), .text(body),
        ])
    }

    mutating func add(_ link: PaymentLink, scope: LedgerScope, item: Int64) throws(GateKitError) {
        try payments.append([.text(scope.environment), .integer(scope.testFlag), .text(link.payment), .text(link.purchaseID),
                             .text(link.transactionID ?? ""), .integer(link.periodStartMs), .integer(link.periodEndMs),
                             .integer(link.vouchedMs), .integer(item)])
    }

    mutating func add(_ r: PaymentRevocation, scope: LedgerScope, item: Int64) throws(GateKitError) {
        try paymentRevocations.append([.text(scope.environment), .integer(scope.testFlag), .text(r.payment), .text(r.sourceID),
                                       .integer(r.revocationMs), .integer(r.reason?.rawValue), .text(r.refund?.rawValue),
                                       .integer(r.vouchedMs), .text(r.identity), .integer(item), .integer(r.moneyBack?.atMs),
                                       .integer(r.moneyBack?.milliunits), .text(r.moneyBack?.currency)])
    }

    mutating func addSubject(item: Int64, purchaseID: String) throws(GateKitError) {
        try subjects.append([.text(purchaseID), .integer(item)])
    }

    mutating func addStatusChange(_ change: IngestReport.StatusChange, scope: LedgerScope, item: Int64, at: Int64) throws(GateKitError) {
        try statusChanges.append([.text(scope.environment), .integer(scope.testFlag), .text(change.purchaseID),
                                  .text(change.groupID), .integer(change.from?.rawValue), .integer(change.to.rawValue),
                                  .integer(item), .integer(at)])
    }

    /// The entries `kept` changed; a later entry of the same product replaces an earlier one.
    mutating func keep(scope: LedgerScope, original: String, _ kept: ChangeFeedRows.Kept) {
        for product in kept.changed {
            guard let entry = kept.stored[product] else { continue }
            let key = AnswerKey(scope: scope, original: original, product: product)
            if answers[key] == nil { answerOrder.append(key) }
            answers[key] = ChangeFeedRows.answerRow(scope: scope, original: original, product: product, entry)
        }
    }

    /// Sends everything gathered, parents first (items before the rows that name them).
    mutating func flush(_ db: any DatabaseConnection) throws(GateKitError) {
        try items.flush(db)
        try transactions.flush(db)
        try renewals.flush(db)
        try products.flush(db)
        try subjects.flush(db)
        try payments.flush(db)
        try paymentRevocations.flush(db)
        try statusChanges.flush(db)
        guard !answerOrder.isEmpty else { return }
        var rows = ChangeFeedRows.answerRows()
        for key in answerOrder { if let row = answers[key] { try rows.append(row) } }
        try rows.flush(db)
        answers.removeAll(keepingCapacity: true)
        answerOrder.removeAll(keepingCapacity: true)
    }
}
