import GateKitStore
import GateKitSupport

/// The payment rows (`ledger_payments`, `ledger_payment_revocations`, migrations 24 and 26) a record
/// reads where its store answers payments apart from the purchase (Stripe).
enum PaymentRows {
    private static let linkColumns = "payment, original_transaction_id, transaction_id, period_start_ms, period_end_ms, signed_ms"

    private static func link(_ s: any DatabaseStatement) -> PaymentLink {
        let item = s.text(2) ?? ""
        return PaymentLink(payment: s.text(0) ?? "", purchaseID: s.text(1) ?? "", transactionID: item.isEmpty ? nil : item,
                           periodStartMs: s.optionalInt64(3), periodEndMs: s.optionalInt64(4), vouchedMs: s.int64(5))
    }

    /// What the payments of `purchase` paid for.
    static func links(_ db: any DatabaseConnection, purchase: String, scope: LedgerScope) throws(GateKitError) -> [PaymentLink] {
        let s = try db.statement("SELECT \(linkColumns) FROM ledger_payments WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: purchase)
        var out: [PaymentLink] = []
        while try s.step() { out.append(link(s)) }
        return out
    }

    /// The purchases `payment` paid for.
    static func purchases(_ db: any DatabaseConnection, payment: String, scope: LedgerScope) throws(GateKitError) -> [String] {
        let s = try db.statement("SELECT DISTINCT original_transaction_id FROM ledger_payments WHERE environment = ?1 AND test_signed = ?2 AND payment = ?3")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: payment)
        var out: [String] = []
        while try s.step() { if let p = s.text(0) { out.append(p) } }
        return out.sorted()
    }

    /// Every answer that `payment` was taken back.
    static func revocations(_ db: any DatabaseConnection, payment: String, scope: LedgerScope) throws(GateKitError) -> [PaymentRevocation] {
        let s = try db.statement("SELECT \(revocationColumns) FROM ledger_payment_revocations WHERE environment = ?1 AND test_signed = ?2 AND payment = ?3")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: payment)
        var out: [PaymentRevocation] = []
        while try s.step() { out.append(revocation(s)) }
        return out
    }

    /// In `revocation(_:)`'s order (`itemized` names them with its table's alias).
    private static let revocationColumns = "payment, source_id, revocation_ms, revocation_reason, refund_kind, signed_ms, identity, refund_ms, refund_amount, refund_currency"

    private static func revocation(_ s: any DatabaseStatement) -> PaymentRevocation {
        PaymentRevocation(payment: s.text(0) ?? "", sourceID: s.text(1) ?? "", revocationMs: s.optionalInt64(2),
                          reason: s.optionalInt64(3).map(RevocationReason.init(stored:)),
                          refund: s.text(4).flatMap(RefundKind.init(rawValue:)), vouchedMs: s.int64(5), identity: s.text(6) ?? "",
                          moneyBack: s.optionalInt64(7).flatMap { at in
                              s.optionalInt64(8).map { PaymentRevocation.MoneyBack(atMs: at, milliunits: $0, currency: s.text(9) ?? "") }
                          })
    }

    /// The record's payments and their revocations, read anew for each of its purchases whose
    /// store answers payments apart; `pending`: what the item being recorded adds (not yet written).
    static func read(_ db: any DatabaseConnection, into record: inout CustomerRecord, purchases: [String], scope: LedgerScope,
                     pending: (links: [PaymentLink], revocations: [PaymentRevocation]) = ([], [])) throws(GateKitError) {
        guard !purchases.isEmpty else { return }
        var links: [PaymentLink] = []
        for p in purchases { links += try PaymentRows.links(db, purchase: p, scope: scope) }
        links += pending.links.filter { purchases.contains($0.purchaseID) }
        var revocations: [PaymentRevocation] = []
        for payment in Set(links.map(\.payment)).sorted() { revocations += try PaymentRows.revocations(db, payment: payment, scope: scope) }
        let paid = Set(links.map(\.payment))
        revocations += pending.revocations.filter { paid.contains($0.payment) }
        record.payments = links
        record.revocations = revocations
    }

    /// The payment answers, signed by `signedBy`, of the purchases `purchasesWhere` selects (a
    /// condition on `original_transaction_id` whose parameters, from ?4, `bind` binds), by
    /// purchase, each row with the item that brought it: what the metrics read.
    static func itemized(_ db: any DatabaseConnection, scope: LedgerScope, purchasesWhere condition: String, signedBy: Int64,
                         bind: (any DatabaseStatement) -> Void) throws(GateKitError) -> [String: PaymentAnswers.Itemized] {
        var out: [String: PaymentAnswers.Itemized] = [:]
        let l = try db.statement("""
            SELECT \(linkColumns), item_id FROM ledger_payments
            WHERE environment = ?1 AND test_signed = ?2 AND signed_ms <= ?3 AND \(condition)
            """)
        defer { l.reset() }
        l.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, signedBy)
        bind(l)
        while try l.step() {
            let link = link(l)
            out[link.purchaseID, default: PaymentAnswers.Itemized()].links.append((link, l.int64(6)))
        }
        guard !out.isEmpty else { return out }
        // A revocation names its payment: it reaches each purchase that payment paid for.
        let r = try db.statement("""
            SELECT r.payment, r.source_id, r.revocation_ms, r.revocation_reason, r.refund_kind, r.signed_ms, r.identity,
                   r.refund_ms, r.refund_amount, r.refund_currency, r.item_id, p.original_transaction_id
            FROM ledger_payment_revocations AS r
            JOIN (SELECT DISTINCT payment, original_transaction_id FROM ledger_payments
                  WHERE environment = ?1 AND test_signed = ?2 AND \(condition)) AS p ON p.payment = r.payment
            WHERE r.environment = ?1 AND r.test_signed = ?2 AND r.signed_ms <= ?3
            """)
        defer { r.reset() }
        r.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, signedBy)
        bind(r)
        while try r.step() {
            out[r.text(11) ?? "", default: PaymentAnswers.Itemized()].revocations.append((revocation(r), r.int64(10)))
        }
        return out
    }

    /// The purchases of `record` whose store answers payments apart.
    static func purchasesAnsweredApart(_ record: CustomerRecord) -> [String] {
        Set(record.transactions.filter { $0.store.rules.revokedByOwnAnswers }.map(\.purchaseID)).sorted()
    }
}
