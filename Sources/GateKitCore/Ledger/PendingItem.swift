import GateKitStore

/// The write path's unit: an item a store told the ledger, verified and mapped to the model (its
/// transaction and renewal versions), about to be recorded.
extension Ledger {
    /// An item about to be recorded, with the versions it carries.
    package struct PendingItem {
        let kind: IngestReport.Kind
        let scope: LedgerScope
        /// The app the item was verified for (a store's ledger holds one app's data).
        let appID: String
        let identity: String
        let vouchedMs: Int64
        package var notificationUUID: String?
        package var notificationType: String?
        var subtype: String?
        /// The item's own signed text (a JWS, its header stored once), or a receipt's JSON
        /// with no header.
        let header: String?
        let body: String
        var transactions: [(TransactionVersion, LedgerRows.SignedText?)] = [] { didSet { originals = speaksOf() } }
        /// Each version with its own signed text; nil when that is the item's own.
        var renewals: [(RenewalVersion, LedgerRows.SignedText?)] = [] { didSet { originals = speaksOf() } }
        /// Where the store answers payments apart (Stripe): what the item says each payment paid
        /// for, and that a payment was taken back, with the purchases that payment paid for.
        var payments: [PaymentLink] = [] { didSet { originals = speaksOf() } }
        var paymentRevocations: [PaymentRevocation] = []
        var revokedPurchases: [String] = [] { didSet { originals = speaksOf() } }
        /// The keys the seller gave the plans the item names (Stripe's price `lookup_key`).
        var lookupKeys: [LookupKey] = []
        /// The app's user the item names for its purchase (a Stripe answer's metadata or
        /// `client_reference_id`): recording links the purchase to that app account unless an
        /// account holds it already (a link the host made, or a transfer, is never undone).
        var accountLink: AccountLink?

        struct AccountLink {
            let appUserID: String
            let purchaseID: String
            let atMs: Int64
            let cause: String
        }
        /// Who gave its versions by hand and why (a support grant); nil for what a store sold.
        /// Kept with the rows, never in the model: every version of every question would carry it.
        var attribution: Attribution?

        /// The subscriptions the item speaks of, sorted: kept as its versions are added, since
        /// every stage of recording reads it.
        private(set) var originals: [String] = []

        private func speaksOf() -> [String] {
            // A replacing purchase speaks of the one it replaces too: that one's answers change.
            Array(Set(transactions.map(\.0.purchaseID) + transactions.compactMap(\.0.replaces)
                      + renewals.map(\.0.purchaseID) + payments.map(\.purchaseID) + revokedPurchases)).sorted()
        }

        /// What recording the item reads to decide what it writes: its subscriptions (write
        /// transactions on the same subscription run one at a time).
        var subjects: [String] {
            originals.map { "ledger/\(scope.environment)/\(scope.testFlag)/\($0)" }
                + (accountLink.map { [Ledger.subject(scope.environment, $0.purchaseID)] } ?? [])
        }

        /// New unless, for every version it carries, a version as new or newer is held
        /// (`records`: its subscriptions' compacted records, which keep the newest); an item
        /// that carries no version (a notification about nothing the ledger keys on) is new.
        func outcome(against records: [String: CustomerRecord]) -> IngestReport.Outcome {
            if transactions.isEmpty && renewals.isEmpty { return .new }
            for (v, _) in transactions where !(records[v.purchaseID]?.transactions.contains {
                $0.transactionID == v.transactionID && !v.isNewer(than: $0)
            } ?? false) { return .new }
            for (v, _) in renewals where !(records[v.purchaseID]?.renewals.contains {
                $0.purchaseID == v.purchaseID && !v.isNewer(than: $0)
            } ?? false) { return .new }
            return .superseded
        }

        /// The report of its recording.
        func report(_ outcome: IngestReport.Outcome, _ changes: [IngestReport.StatusChange]) -> IngestReport {
            IngestReport(outcome: outcome, kind: kind, scope: scope, identity: identity, notificationType: notificationType,
                         subtype: subtype, notificationUUID: notificationUUID, purchaseIDs: originals,
                         appAccountToken: transactions.lazy.compactMap(\.0.appAccountToken).first, statusChanges: changes,
                         subject: kind.store.rules.reportsSubject ? transactions.first?.0.purchaseID : nil,
                         acknowledged: transactions.lazy.compactMap(\.0.acknowledged).min { !$0 && $1 })
        }
    }
}
