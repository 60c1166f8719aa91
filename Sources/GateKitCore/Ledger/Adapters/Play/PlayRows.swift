import GateKitStore
import GateKitSupport

/// What the Play adapter looks up in the ledger's own tables: where a purchase token is held,
/// which pushes and voids were recorded, and the Play tokens in token order (the syncs in
/// LedgerSync ask Google; these only read).
extension Ledger {
    /// Where the ledger holds a Play purchase token, and whether it is a subscription.
    public struct PlayHolding: Sendable, Equatable {
        public let scope: LedgerScope
        public let isSubscription: Bool

        package init(scope: LedgerScope, isSubscription: Bool) {
            self.scope = scope
            self.isSubscription = isSubscription
        }
    }

    /// Nil when the ledger holds no Play purchase with this token.
    public func playHolding(token: String) throws(GateKitError) -> PlayHolding? {
        try store.read { (db) throws(GateKitError) -> PlayHolding? in
            for test in [false, true] {
                let scope = LedgerScope(environment: .production, testData: test)
                let s = try db.statement("""
                    SELECT product_type FROM ledger_transactions
                    WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 AND store = 'play' LIMIT 1
                    """)
                defer { s.reset() }
                s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: token)
                if try s.step() { return PlayHolding(scope: scope, isSubscription: s.int64(0) == ProductType.autoRenewable.rawValue) }
            }
            return nil
        }
    }

    /// Up to `limit` Play purchase tokens after `cursor` (in token order), each with whether it
    /// is test data.
    package func playTokens(after cursor: String?, limit: Int) throws(GateKitError) -> [(String, Bool)] {
        try store.read { (db) throws(GateKitError) -> [(String, Bool)] in
            // The named stores' purchases in order (schema 22), named on SQLite, whose planner
            // knows no statistics.
            let s = try db.statement("""
                SELECT DISTINCT original_transaction_id, test_signed FROM ledger_transactions
                \(db.dialect == .sqlite ? "INDEXED BY ledger_transactions_by_store_purchase" : "")
                WHERE environment = 'Production' AND store = ?3 AND original_transaction_id > ?1
                ORDER BY original_transaction_id, test_signed LIMIT ?2
                """)
            defer { s.reset() }
            s.bind(1, text: cursor ?? "").bind(2, Int64(limit)).bind(3, text: PurchaseStore.play.code)
            var out: [(String, Bool)] = []
            while try s.step() { out.append((s.text(0) ?? "", s.int64(1) == 1)) }
            return out
        }
    }

    /// Every version the ledger holds of `token`'s subscription (and those that replaced it).
    package func wholeRecord(of token: String, scope: LedgerScope) throws(GateKitError) -> CustomerRecord {
        try store.read { (db) throws(GateKitError) in try LedgerRows.record(db, customer: .purchaseID(token), scope: scope) }
    }

    /// Where a push with this message id naming this purchase token stands: recorded before
    /// (a redelivery), or new with the key it is recorded under. The key is the message id, or,
    /// when another push naming another purchase holds that id (one sent under a replayed token
    /// before Google used the id), the id and the token.
    package enum RecordedPush: Equatable {
        case duplicate(LedgerScope)
        case new(key: String)
    }

    package func recordedPush(_ messageID: String, naming token: String?) throws(GateKitError) -> RecordedPush {
        let qualified = "\(messageID) \(token ?? "")"
        return try store.read { (db) throws(GateKitError) -> RecordedPush in
            var taken = false
            for test in [false, true] {
                let scope = LedgerScope(environment: .production, testData: test)
                let s = try db.statement("""
                    SELECT i.notification_uuid = ?4 OR ?5 IS NULL OR EXISTS (
                        SELECT 1 FROM ledger_item_subjects AS j WHERE j.item_id = i.id AND j.original_transaction_id = ?5)
                    FROM ledger_items AS i WHERE i.environment = ?1 AND i.test_signed = ?2 AND i.notification_uuid IN (?3, ?4)
                    AND i.store_kind = 'play-notification'
                    """)
                defer { s.reset() }
                s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: messageID).bind(4, text: qualified).bind(5, text: token)
                while try s.step() {
                    if s.int64(0) == 1 { return .duplicate(scope) }
                    taken = true
                }
            }
            return .new(key: taken ? qualified : messageID)
        }
    }

    /// The scope a void's record was kept in, if it was (test data or not).
    package func recordedVoid(_ key: String) throws(GateKitError) -> LedgerScope? {
        try store.read { (db) throws(GateKitError) -> LedgerScope? in
            for test in [false, true] {
                let scope = LedgerScope(environment: .production, testData: test)
                let s = try db.statement("""
                    SELECT 1 FROM ledger_items WHERE environment = ?1 AND test_signed = ?2 AND notification_uuid = ?3
                    AND notification_uuid IS NOT NULL AND store_kind = 'play-notification'
                    """)
                defer { s.reset() }
                s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: key)
                if try s.step() { return scope }
            }
            return nil
        }
    }

    /// The prefix of the keys voids are recorded under (`voided:<order>:<ms>`); no push's.
    package static let playVoidPrefix = "voided:"

}

extension IngestReport {
    /// A push or void recorded before under `key`: nothing written, Google not asked again.
    package static func duplicatePlayMessage(scope: LedgerScope, type: String, key: String, token: String?) -> IngestReport {
        IngestReport(outcome: .duplicate, kind: .playNotification, scope: scope, identity: "", notificationType: type, subtype: nil,
                     notificationUUID: key, purchaseIDs: token.map { [$0] } ?? [], appAccountToken: nil, statusChanges: [])
    }
}
