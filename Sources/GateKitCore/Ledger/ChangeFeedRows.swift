import GateKitStore
import GateKitSupport

/// The change feed's rows (migration 8; docs/ledger.md, "The change feed"). For each
/// subscription (original transaction id) and product, `ledger_answers` keeps the answer last
/// emitted — entitled or not, reason, status, until — and the instant time alone next changes
/// it. An ingestion that changes an answer appends a change caused by its item; an instant
/// passing appends one caused by time, dated at that instant, when the feed is next read or
/// the subscription next ingested. Changes are numbered by the one `ledger_feed_head` row,
/// updated last in the writing transaction: its lock is held until commit, so numbers follow
/// commit order with no gaps, and a reader's cursor never skips a change committed late.
enum ChangeFeedRows {
    /// The part of an answer the feed reports a change of.
    struct Answer: Equatable {
        let entitled: Bool
        let reason: Int64
        let status: Int64?
        let untilMs: Int64?
        /// Whether the subscription renews at the end of its period (`Entitlement.willRenew`):
        /// turning auto-renew off or on is a change (`==`). `renewal` is its stored code.
        let willRenew: Bool?
        /// False for an answer kept before migration 27, which did not record it: it then
        /// compares equal whatever the new answer says, so an upgrade emits no change.
        let renewalKnown: Bool

        init(_ e: Entitlement) {
            entitled = e.isEntitled
            reason = Int64(e.reason.rawValue)
            status = e.status?.rawValue
            untilMs = e.untilMs
            willRenew = e.willRenew
            renewalKnown = true
        }

        init(entitled: Bool, reason: Int64, status: Int64?, untilMs: Int64?, renewal: Int64?) {
            self.entitled = entitled
            self.reason = reason
            self.status = status
            self.untilMs = untilMs
            willRenew = renewal.flatMap { $0 == 2 ? nil : $0 == 1 }
            renewalKnown = renewal != nil
        }

        /// Stored as 1 (renews), 0 (does not) or 2 (not said); NULL only in rows from before.
        var renewal: Int64 { willRenew.map { $0 ? 1 : 0 } ?? 2 }

        /// A subscription renews unless a store said it does not: its first renewal intent
        /// saying it renews is no change, one saying it does not is (a cancellation).
        static func == (a: Answer, b: Answer) -> Bool {
            a.entitled == b.entitled && a.reason == b.reason && a.status == b.status && a.untilMs == b.untilMs
                && (!a.renewalKnown || !b.renewalKnown || (a.willRenew ?? true) == (b.willRenew ?? true))
        }

        /// When time alone next changes the answer given at `at`: the end of what entitles, or
        /// a purchase dated later; nil when only new data can change it.
        static func nextChange(_ e: Entitlement, after at: Int64) -> Int64? {
            if e.isEntitled, let until = e.untilMs, until > at { return until }
            if e.reason == .notYetPurchased, let since = e.sinceMs, since > at { return since }
            return nil
        }
    }

    /// Why a change was recorded (`ledger_changes.cause`).
    enum Cause: String {
        /// An item was ingested (`itemID`).
        case ingest
        /// An instant passed: a period ended, a grace period ran out.
        case time
        /// The purchase moved to another app account (`Ledger.link`); its answer is as it was.
        case transfer
    }

    /// One change, before it is numbered.
    struct Change {
        let scope: LedgerScope
        let purchaseID: String
        let productID: String
        let answer: Answer
        let atMs: Int64
        let cause: Cause
        /// The ingested item that caused it (`cause` ingest).
        let itemID: Int64?
        let token: String?
        let appUserIDs: [String]
    }

    struct Stored {
        var answer: Answer
        var nextChangeMs: Int64?
    }

    /// The answers last emitted for the subscription's products. `copy`: the statement copy a
    /// prefetch used (`prefetchStored`).
    static func stored(_ db: any DatabaseConnection, scope: LedgerScope, original: String, copy: Int = 0) throws(GateKitError) -> [String: Stored] {
        let s = try storedStatement(db, scope: scope, original: original, copy: copy)
        defer { s.reset() }
        var out: [String: Stored] = [:]
        while try s.step() {
            out[s.text(0) ?? ""] = Stored(answer: Answer(entitled: s.int64(1) == 1, reason: s.int64(2), status: s.optionalInt64(3),
                                                         untilMs: s.optionalInt64(4), renewal: s.optionalInt64(6)),
                                          nextChangeMs: s.optionalInt64(5))
        }
        return out
    }

    /// Sends the read ahead (`DatabaseStatement.prefetch`).
    static func prefetchStored(_ db: any DatabaseConnection, scope: LedgerScope, original: String, copy: Int) throws(GateKitError) {
        try storedStatement(db, scope: scope, original: original, copy: copy).prefetch()
    }

    private static func storedStatement(_ db: any DatabaseConnection, scope: LedgerScope, original: String, copy: Int) throws(GateKitError) -> any DatabaseStatement {
        try db.statement("""
            SELECT product_id, entitled, reason, status, until_ms, next_change_ms, will_renew FROM ledger_answers
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3
            """, copy: copy).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
    }

    /// The answers' rows, written together (`RowInserts`): a product's row replaces its last.
    static func answerRows() -> RowInserts {
        RowInserts(into: "ledger_answers(environment, test_signed, original_transaction_id, product_id, entitled, reason, status, until_ms, next_change_ms, will_renew)",
                   values: Array(repeating: "?", count: 10), then: """
            ON CONFLICT(environment, test_signed, original_transaction_id, product_id) DO UPDATE SET entitled = excluded.entitled,
                reason = excluded.reason, status = excluded.status, until_ms = excluded.until_ms, next_change_ms = excluded.next_change_ms,
                will_renew = excluded.will_renew
            """)
    }

    static func answerRow(scope: LedgerScope, original: String, product: String, _ stored: Stored) -> [RowInserts.Value] {
        [.text(scope.environment), .integer(scope.testFlag), .text(original), .text(product), .integer(stored.answer.entitled ? 1 : 0),
         .integer(stored.answer.reason), .integer(stored.answer.status), .integer(stored.answer.untilMs), .integer(stored.nextChangeMs),
         .integer(stored.answer.renewal)]
    }

    /// Each product's answer for the subscription at `at`, from its versions.
    /// `current`: the record's `current(knownBy: nil)` when the caller has it already.
    static func answers(_ record: CustomerRecord, original: String, at: Int64, catalogs: ProductCatalogs,
                        current: CurrentVersions? = nil) -> [String: Entitlement] {
        let view = LedgerView(at: at, current: (current ?? record.current(knownBy: nil)).only(original), catalog: catalogs.catalog(at: at))
        var products: [String] = []
        var seen = Set<String>()
        for t in record.transactions where t.purchaseID == original && seen.insert(t.productID).inserted {
            products.append(t.productID)
        }
        return view.entitlements(to: products)
    }

    /// Who the subscription's changes are about: its newest app account token, and the app
    /// accounts linked to it or to that token now.
    static func parties(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord, copy: Int = 0) throws(GateKitError) -> (String?, [String]) {
        let token = newestToken(record, original: original)
        let links = AppAccountRows.current(try AppAccountRows.changes(db, environment: scope.environment, appUserID: nil,
                                                                                   customers: [original] + (token.map { [$0] } ?? []), copy: copy),
                                           atMs: nil)
        return (token, Array(Set(links.map(\.appUserID))).sorted())
    }

    /// The subscription's newest app account token in `record`.
    static func newestToken(_ record: CustomerRecord, original: String) -> String? {
        record.transactions.filter { $0.purchaseID == original && $0.appAccountToken != nil }
            .max { $1.isNewer(than: $0) }?.appAccountToken
    }

    /// Sends `parties`' read ahead, for the token the subscription is expected to have.
    static func prefetchParties(_ db: any DatabaseConnection, scope: LedgerScope, original: String, token: String?, copy: Int) throws(GateKitError) {
        try AppAccountRows.prefetchChanges(db, environment: scope.environment, customers: [original] + (token.map { [$0] } ?? []), copy: copy)
    }

    /// The answers a subscription's products gave last, after an update, and the products
    /// whose entry changed (to be written: `keep`).
    struct Kept {
        var stored: [String: Stored]
        var changed: [String] = []
    }

    /// The changes time alone made to the subscription's answers from their last change up to
    /// `now`, each at its instant (judged from `record`: what was known before the current write),
    /// starting from `stored` (the answers as last kept). Answers them as they stand after it
    /// (what `ingested` compares with).
    static func sweep(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord, stored: [String: Stored],
                      catalogs: ProductCatalogs, now: Int64, into changes: inout [Change], copy: Int = 0) throws(GateKitError) -> Kept {
        var kept = Kept(stored: stored)
        var parties: (String?, [String])?
        for product in stored.keys.sorted() {
            guard var entry = stored[product], var at = entry.nextChangeMs, at <= now else { continue }
            while true {
                let e = answers(record, original: original, at: at, catalogs: catalogs)[product] ?? .none
                let answer = Answer(e)
                if answer != entry.answer {
                    if parties == nil { parties = try Self.parties(db, scope: scope, original: original, record: record, copy: copy) }
                    let (token, users) = parties ?? (nil, [])
                    changes.append(Change(scope: scope, purchaseID: original, productID: product, answer: answer, atMs: at,
                                          cause: .time, itemID: nil, token: token, appUserIDs: users))
                }
                entry = Stored(answer: answer, nextChangeMs: Answer.nextChange(e, after: at))
                guard let next = entry.nextChangeMs, next <= now else { break }
                at = next
            }
            kept.stored[product] = entry
            kept.changed.append(product)
        }
        return kept
    }

    /// The changes an ingested item made to the subscription's answers at `now`, after `kept`
    /// (the answers as `sweep` left them, just before the item).
    static func ingested(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord,
                         current: CurrentVersions? = nil, after kept: Kept, catalogs: ProductCatalogs, now: Int64, item: Int64,
                         into changes: inout [Change], copy: Int = 0) throws(GateKitError) -> Kept {
        var out = kept
        let fresh = answers(record, original: original, at: now, catalogs: catalogs, current: current)
        var parties: (String?, [String])?
        for product in fresh.keys.sorted() {
            guard let e = fresh[product] else { continue }
            let entry = Stored(answer: Answer(e), nextChangeMs: Answer.nextChange(e, after: now))
            let before = kept.stored[product]
            if before?.answer != entry.answer, before != nil || e.reason != .noPurchase {
                if parties == nil { parties = try Self.parties(db, scope: scope, original: original, record: record, copy: copy) }
                let (token, users) = parties ?? (nil, [])
                changes.append(Change(scope: scope, purchaseID: original, productID: product, answer: entry.answer,
                                      atMs: now, cause: .ingest, itemID: item, token: token, appUserIDs: users))
            }
            if before?.answer != entry.answer || before?.nextChangeMs != entry.nextChangeMs {
                out.stored[product] = entry
                if !out.changed.contains(product) { out.changed.append(product) }
            }
        }
        return out
    }

    /// The changes a transfer makes (`Ledger.link` moved the purchase `original` to another app
    /// account, whose link is written): each product's answer as it stands at `now`, caused by
    /// the transfer and naming the accounts linked now. Time's changes due by then come first.
    static func transferred(_ db: any DatabaseConnection, scope: LedgerScope, original: String, catalogs: ProductCatalogs, now: Int64,
                            into changes: inout [Change]) throws(GateKitError) {
        let stored = try stored(db, scope: scope, original: original)
        guard !stored.isEmpty else { return }
        let record = try LedgerRows.compactedRecord(db, original: original, scope: scope)
        let kept = try sweep(db, scope: scope, original: original, record: record, stored: stored, catalogs: catalogs, now: now, into: &changes)
        try keep(db, scope: scope, original: original, kept)
        let (token, users) = try parties(db, scope: scope, original: original, record: record)
        for product in kept.stored.keys.sorted() {
            guard let entry = kept.stored[product] else { continue }
            changes.append(Change(scope: scope, purchaseID: original, productID: product, answer: entry.answer, atMs: now,
                                  cause: .transfer, itemID: nil, token: token, appUserIDs: users))
        }
    }

    /// Writes the entries `kept` changed, now, in one statement.
    static func keep(_ db: any DatabaseConnection, scope: LedgerScope, original: String, _ kept: Kept) throws(GateKitError) {
        var rows = answerRows()
        for product in kept.changed {
            guard let entry = kept.stored[product] else { continue }
            try rows.append(answerRow(scope: scope, original: original, product: product, entry))
        }
        try rows.flush(db)
    }

    /// Numbers the changes and appends them: the last statements of the writing transaction
    /// (the head row's lock, held until commit, orders every writer's changes by commit). Each
    /// change reads its number from the head row it follows: writes only, nothing waits for an
    /// answer (on PostgreSQL they travel with the COMMIT).
    static func append(_ db: any DatabaseConnection, _ changes: [Change], now: Int64) throws(GateKitError) {
        guard !changes.isEmpty else { return }
        try advanceHead(db, by: changes.count)
        var rows = RowInserts(into: """
            ledger_changes(seq, environment, test_signed, original_transaction_id, product_id, entitled, reason, status,
                until_ms, at_ms, cause, item_id, app_account_token, app_user_ids, recorded_ms, will_renew)
            """, values: ["(SELECT last_seq FROM ledger_feed_head WHERE id = 1) + ?"] + Array(repeating: "?", count: 15))
        for (i, c) in changes.enumerated() {
            try rows.append([.integer(Int64(i + 1 - changes.count)), .text(c.scope.environment), .integer(c.scope.testFlag),
                             .text(c.purchaseID), .text(c.productID), .integer(c.answer.entitled ? 1 : 0),
                             .integer(c.answer.reason), .integer(c.answer.status), .integer(c.answer.untilMs), .integer(c.atMs),
                             .text(c.cause.rawValue), .integer(c.itemID), .text(c.token),
                             .text(JSONWriter.serialize(.array(c.appUserIDs.map { .string($0) }))), .integer(now),
                             .integer(c.answer.renewal)])
        }
        try rows.flush(db)
        try WebhookOutbox.enqueue(db, changes: changes.count, now: now)
    }

    /// Takes the feed's next `count` numbers (the changes and notices written next read them
    /// back from the head row), its lock held until commit.
    static func advanceHead(_ db: any DatabaseConnection, by count: Int) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_feed_head(id, last_seq) VALUES (1, ?1)
            ON CONFLICT(id) DO UPDATE SET last_seq = ledger_feed_head.last_seq + excluded.last_seq
            """).bind(1, Int64(count)).run()
    }

    /// Makes the feed look at these products' answers again at `at` (a catalog taking effect
    /// then may change a term): the sweep dates what changed at that instant.
    static func revisit(_ db: any DatabaseConnection, products: Set<String>, at: Int64) throws(GateKitError) {
        let s = try db.statement("UPDATE ledger_answers SET next_change_ms = ?1 WHERE product_id = ?2 AND (next_change_ms IS NULL OR next_change_ms > ?1)")
        for product in products.sorted() { try s.bind(1, at).bind(2, text: product).run() }
    }

    /// The subscriptions whose answers time has changed by `now` (at most `limit`).
    static func due(_ db: any DatabaseConnection, now: Int64, limit: Int) throws(GateKitError) -> [(LedgerScope, String)] {
        let s = try db.statement("""
            SELECT DISTINCT environment, test_signed, original_transaction_id FROM ledger_answers
            WHERE next_change_ms IS NOT NULL AND next_change_ms <= ?1 LIMIT ?2
            """)
        defer { s.reset() }
        s.bind(1, now).bind(2, Int64(limit))
        var out: [(LedgerScope, String)] = []
        while try s.step() {
            guard let environment = LedgerEnvironment(rawValue: s.text(0) ?? "") else {
                throw GateKitError(.ECORRUPT, "ledger_answers names the environment \(Quoted.text(s.text(0) ?? ""))")
            }
            out.append((LedgerScope(environment: environment, testData: s.int64(1) == 1), s.text(2) ?? ""))
        }
        return out
    }

    /// The earliest instant time next changes an answer, if any.
    static func nextDue(_ db: any DatabaseConnection) throws(GateKitError) -> Int64? {
        let s = try db.statement("SELECT MIN(next_change_ms) FROM ledger_answers WHERE next_change_ms IS NOT NULL")
        defer { s.reset() }
        return try s.step() ? s.optionalInt64(0) : nil
    }

    static func lastSeq(_ db: any DatabaseConnection) throws(GateKitError) -> Int64 {
        let s = try db.statement("SELECT last_seq FROM ledger_feed_head WHERE id = 1")
        defer { s.reset() }
        return try s.step() ? s.int64(0) : 0
    }
}
