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
enum ChangeFeed {
    /// The part of an answer the feed reports a change of.
    struct Answer: Equatable {
        let entitled: Bool
        let reason: Int64
        let status: Int64?
        let untilMs: Int64?

        init(_ e: Entitlement) {
            entitled = e.isEntitled
            reason = Int64(e.reason.rawValue)
            status = e.status?.rawValue
            untilMs = e.untilMs
        }

        init(entitled: Bool, reason: Int64, status: Int64?, untilMs: Int64?) {
            self.entitled = entitled
            self.reason = reason
            self.status = status
            self.untilMs = untilMs
        }

        /// When time alone next changes the answer given at `at`: the end of what entitles, or
        /// a purchase dated later; nil when only new data can change it.
        static func nextChange(_ e: Entitlement, after at: Int64) -> Int64? {
            if e.isEntitled, let until = e.untilMs, until > at { return until }
            if e.reason == .notYetPurchased, let since = e.sinceMs, since > at { return since }
            return nil
        }
    }

    /// One change, before it is numbered.
    struct Change {
        let scope: LedgerScope
        let originalTransactionID: String
        let productID: String
        let answer: Answer
        let atMs: Int64
        /// The ingested item that caused it; nil: time.
        let itemID: Int64?
        let token: String?
        let appUserIDs: [String]
    }

    struct Stored {
        var answer: Answer
        var nextChangeMs: Int64?
    }

    /// The answers last emitted for the subscription's products.
    static func stored(_ db: any DatabaseConnection, scope: LedgerScope, original: String) throws(GateKitError) -> [String: Stored] {
        let s = try db.statement("""
            SELECT product_id, entitled, reason, status, until_ms, next_change_ms FROM ledger_answers
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
        var out: [String: Stored] = [:]
        while try s.step() {
            out[s.text(0) ?? ""] = Stored(answer: Answer(entitled: s.int64(1) == 1, reason: s.int64(2), status: s.optionalInt64(3),
                                                         untilMs: s.optionalInt64(4)), nextChangeMs: s.optionalInt64(5))
        }
        return out
    }

    private static func keep(_ db: any DatabaseConnection, scope: LedgerScope, original: String, product: String, _ stored: Stored) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_answers(environment, test_signed, original_transaction_id, product_id, entitled, reason, status, until_ms, next_change_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT(environment, test_signed, original_transaction_id, product_id) DO UPDATE SET entitled = excluded.entitled,
                reason = excluded.reason, status = excluded.status, until_ms = excluded.until_ms, next_change_ms = excluded.next_change_ms
            """).bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original).bind(4, text: product)
            .bind(5, stored.answer.entitled ? 1 : 0).bind(6, stored.answer.reason).bind(7, stored.answer.status)
            .bind(8, stored.answer.untilMs).bind(9, stored.nextChangeMs).run()
    }

    /// Each product's answer for the subscription at `at`, from its versions.
    static func answers(_ record: CustomerRecord, original: String, at: Int64, catalogs: ProductCatalogs) -> [String: Entitlement] {
        let view = record.view(at: at, knownBy: nil, catalog: catalogs.catalog(at: at))
        var out: [String: Entitlement] = [:]
        for t in record.transactions where t.originalTransactionID == original && out[t.productID] == nil {
            out[t.productID] = view.entitlement(to: t.productID, naming: false)
        }
        return out
    }

    /// Who the subscription's changes are about: its newest app account token, and the app
    /// accounts linked to it or to that token now.
    static func parties(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord) throws(GateKitError) -> (String?, [String]) {
        let token = record.transactions.filter { $0.originalTransactionID == original && $0.appAccountToken != nil }
            .max { $1.isNewer(than: $0) }?.appAccountToken
        let links = AppAccountRows.current(try AppAccountRows.changes(db, environment: scope.environment, appUserID: nil,
                                                                                   customers: [original] + (token.map { [$0] } ?? [])),
                                           atMs: nil)
        return (token, Array(Set(links.map(\.appUserID))).sorted())
    }

    /// The changes time alone made to the subscription's answers from their last change up to
    /// `now`, each at its instant (judged from `record`: what was known before the current write).
    /// Answers the stored answers as they stand after it (what `ingested` compares with).
    @discardableResult
    static func sweep(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord,
                      catalogs: ProductCatalogs, now: Int64, into changes: inout [Change]) throws(GateKitError) -> [String: Stored] {
        var stored = try stored(db, scope: scope, original: original)
        var parties: (String?, [String])?
        for product in stored.keys.sorted() {
            guard var entry = stored[product], var at = entry.nextChangeMs, at <= now else { continue }
            while true {
                let e = answers(record, original: original, at: at, catalogs: catalogs)[product] ?? .none
                let answer = Answer(e)
                if answer != entry.answer {
                    if parties == nil { parties = try Self.parties(db, scope: scope, original: original, record: record) }
                    let (token, users) = parties ?? (nil, [])
                    changes.append(Change(scope: scope, originalTransactionID: original, productID: product, answer: answer, atMs: at,
                                          itemID: nil, token: token, appUserIDs: users))
                }
                entry = Stored(answer: answer, nextChangeMs: Answer.nextChange(e, after: at))
                guard let next = entry.nextChangeMs, next <= now else { break }
                at = next
            }
            try keep(db, scope: scope, original: original, product: product, entry)
            stored[product] = entry
        }
        return stored
    }

    /// The changes an ingested item made to the subscription's answers at `now`.
    /// `stored`: the answers as `sweep` left them, just before the item.
    static func ingested(_ db: any DatabaseConnection, scope: LedgerScope, original: String, record: CustomerRecord,
                         stored: [String: Stored], catalogs: ProductCatalogs, now: Int64, item: Int64,
                         into changes: inout [Change]) throws(GateKitError) {
        let fresh = answers(record, original: original, at: now, catalogs: catalogs)
        var parties: (String?, [String])?
        for product in fresh.keys.sorted() {
            guard let e = fresh[product] else { continue }
            let entry = Stored(answer: Answer(e), nextChangeMs: Answer.nextChange(e, after: now))
            let before = stored[product]
            if before?.answer != entry.answer, before != nil || e.reason != .noPurchase {
                if parties == nil { parties = try Self.parties(db, scope: scope, original: original, record: record) }
                let (token, users) = parties ?? (nil, [])
                changes.append(Change(scope: scope, originalTransactionID: original, productID: product, answer: entry.answer,
                                      atMs: now, itemID: item, token: token, appUserIDs: users))
            }
            if before?.answer != entry.answer || before?.nextChangeMs != entry.nextChangeMs {
                try keep(db, scope: scope, original: original, product: product, entry)
            }
        }
    }

    /// Numbers the changes and appends them: the last statements of the writing transaction
    /// (the head row's lock, held until commit, orders every writer's changes by commit).
    static func append(_ db: any DatabaseConnection, _ changes: [Change], now: Int64) throws(GateKitError) {
        guard !changes.isEmpty else { return }
        let head = try db.statement("""
            INSERT INTO ledger_feed_head(id, last_seq) VALUES (1, ?1)
            ON CONFLICT(id) DO UPDATE SET last_seq = ledger_feed_head.last_seq + excluded.last_seq RETURNING last_seq
            """)
        head.bind(1, Int64(changes.count))
        guard try head.step() else {
            head.reset()
            throw GateKitError(.internal, "the change feed's head row is missing")
        }
        let last = head.int64(0)
        head.reset()
        let insert = try db.statement("""
            INSERT INTO ledger_changes(seq, environment, test_signed, original_transaction_id, product_id, entitled, reason, status,
                until_ms, at_ms, cause, item_id, app_account_token, app_user_ids, recorded_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """)
        for (i, c) in changes.enumerated() {
            insert.bind(1, last - Int64(changes.count) + Int64(i) + 1).bind(2, text: c.scope.environment).bind(3, c.scope.testFlag)
                .bind(4, text: c.originalTransactionID).bind(5, text: c.productID).bind(6, c.answer.entitled ? 1 : 0)
                .bind(7, c.answer.reason).bind(8, c.answer.status).bind(9, c.answer.untilMs).bind(10, c.atMs)
                .bind(11, text: c.itemID == nil ? "time" : "ingest").bind(12, c.itemID).bind(13, text: c.token)
                .bind(14, text: JSONWriter.serialize(.array(c.appUserIDs.map { .string($0) }))).bind(15, now)
            try insert.run()
        }
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
            guard let environment = AppStoreEnvironment(rawValue: s.text(0) ?? "") else {
                throw GateKitError(.corrupt, "ledger_answers names the environment \(Quoted.text(s.text(0) ?? ""))")
            }
            out.append((LedgerScope(environment: environment, testSigned: s.int64(1) == 1), s.text(2) ?? ""))
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
