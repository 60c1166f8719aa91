import Testing
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The change feed's rules without the C ABI: which instant time next changes an answer, and a
/// sweep that emits each boundary crossed once, dated at it (the feed end to end:
/// Tests/c/test_ledger.c and python/tests/test_ledger_feed.py).
@Suite struct ChangeFeedTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_735_689_600_000

    @Test func timeNextChangesWhatEndsAndWhatIsNotYetPurchased() {
        let d = Self.day, t = Self.t0
        let month = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d)
        func next(_ at: Int64, _ renewals: [RenewalVersion] = []) -> Int64? {
            let e = CustomerRecord(transactions: [month], renewals: renewals).view(at: at, knownBy: nil).entitlement(to: "pro")
            return ChangeFeedRows.Answer.nextChange(e, after: at)
        }
        #expect(next(t + d) == t + 30 * d)                     // a period: its end
        let lifetime = LedgerModelTests.tx("2", original: "2", product: "life", group: nil, type: .nonConsumable, purchase: t)
        let later = CustomerRecord(transactions: [lifetime]).view(at: t - d, knownBy: nil).entitlement(to: "life")
        #expect(later.reason == .notYetPurchased && ChangeFeedRows.Answer.nextChange(later, after: t - d) == t)  // bought later: the purchase
        #expect(next(t + 31 * d) == nil)                       // expired: only new data changes it
        let grace = LedgerModelTests.renewal(signed: t + 30 * d, retry: true, grace: t + 46 * d)
        #expect(next(t + 31 * d, [grace]) == t + 46 * d)       // the grace period's end
        #expect(next(t + 47 * d, [grace]) == nil)              // billing retry: Apple decides
    }

    @Test func aSweepEmitsEachBoundaryOnceAtItsInstant() throws {
        let d = Self.day, t = Clock.nowMilliseconds() - 60 * Self.day
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("feed.sqlite"))
        let scope = LedgerScope(environment: .sandbox, testData: true)
        let record = CustomerRecord(transactions: [LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d)],
                                    renewals: [LedgerModelTests.renewal(signed: t + 30 * d, retry: true, grace: t + 46 * d)])
        var changes: [ChangeFeedRows.Change] = []
        try store.write(.wholeStore) { (db) throws(GateKitError) in
            try ChangeFeedRows.keep(db, scope: scope, original: "1",
                                try ChangeFeedRows.ingested(db, scope: scope, original: "1", record: record, after: ChangeFeedRows.Kept(stored: [:]),
                                                        catalogs: ProductCatalogs(entries: []), now: t + d, item: 7, into: &changes))
            for now in [t + 50 * d, t + 60 * d] {  // the second: nothing left to cross
                let stored = try ChangeFeedRows.stored(db, scope: scope, original: "1")
                let kept = try ChangeFeedRows.sweep(db, scope: scope, original: "1", record: record, stored: stored,
                                                catalogs: ProductCatalogs(entries: []), now: now, into: &changes)
                try ChangeFeedRows.keep(db, scope: scope, original: "1", kept)
            }
            try ChangeFeedRows.append(db, changes, now: t + 60 * d)
        }
        #expect(changes.map(\.atMs) == [t + d, t + 30 * d, t + 46 * d])
        #expect(changes.map(\.answer.reason) == [1, 2, 12])     // subscription, grace period, billing retry
        #expect(changes.map(\.itemID) == [7, nil, nil])
        #expect(try store.read { (db) throws(GateKitError) in try ChangeFeedRows.lastSeq(db) } == 3)
        #expect(try store.read { (db) throws(GateKitError) in try ChangeFeedRows.nextDue(db) } == nil)
    }

    /// Hardening IV, 26: the feed's rules caught by this domain's own suites (they were only in
    /// pytest): the cursor is exclusive, and an item that changes no answer (a duplicate, a
    /// renewal info that keeps the subscription as it was) adds no change.
    @Test func theCursorIsExclusiveAndAnUnchangedAnswerAddsNoChange() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("cursor.sqlite")))
        let now = Clock.nowMilliseconds()
        func seqs(after: Int64) throws -> [Int64] {
            guard case let .array(changes)? = try JSONParser.parse(Array(try ledger.changesJSON(after: after, limit: 100).utf8))["changes"] else { return [] }
            return changes.compactMap { $0["seq"]?.int64Value }
        }
        let first = pki.sign(JWSGeneratedTests.transactionPayload(signedDate: now - 5_000), chain: JWSGeneratedTests.chain)
        _ = try ledger.ingestTransaction(Array(first.utf8), options: options)
        #expect(try seqs(after: 0) == [1])
        #expect(try seqs(after: 1) == [])            // after 1: exclusive
        _ = try ledger.ingestTransaction(Array(first.utf8), options: options)
        #expect(try seqs(after: 0) == [1])            // a duplicate: no change
        let renewal = pki.sign(#"{"originalTransactionId":"2000000100","autoRenewProductId":"pro.monthly","productId":"pro.monthly","autoRenewStatus":1,"signedDate":\#(now - 4_000),"environment":"Sandbox","recentSubscriptionStartDate":\#(now - 6_000)}"#,
                               chain: JWSGeneratedTests.chain)
        _ = try ledger.ingestRenewalInfo(Array(renewal.utf8), options: options)
        #expect(try seqs(after: 0) == [1])            // still active, until the same instant: no change
        let refund = pki.sign(JWSGeneratedTests.transactionPayload(signedDate: now - 3_000, extra: ",\"revocationDate\":\(now - 3_000),\"revocationReason\":0"),
                              chain: JWSGeneratedTests.chain)
        _ = try ledger.ingestTransaction(Array(refund.utf8), options: options)
        #expect(try seqs(after: 0) == [1, 2] && (try seqs(after: 1)) == [2])
    }

    /// Auto-renew turned off within a period changes no access, yet is a change ("willRenew":
    /// false: a cancellation); on again, another; a first renewal intent saying it renews is none.
    @Test func autoRenewTurnedOffAndOnAreChanges() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("renewal.sqlite")))
        let now = Clock.nowMilliseconds()
        func changes() throws -> [[String]] {
            guard case let .array(list)? = try JSONParser.parse(Array(try ledger.changesJSON(after: 0, limit: 100).utf8))["changes"] else { return [] }
            return list.map { [$0["reason"]?.stringValue ?? "", $0["willRenew"].map { $0 == .bool(true) ? "renews" : "stops" } ?? "-"] }
        }
        _ = try ledger.ingestTransaction(Array(pki.sign(JWSGeneratedTests.transactionPayload(signedDate: now - 5_000), chain: JWSGeneratedTests.chain).utf8),
                                         options: options)
        func intent(_ status: Int, at: Int64) throws {
            let renewal = pki.sign(#"{"originalTransactionId":"2000000100","autoRenewProductId":"pro.monthly","productId":"pro.monthly","autoRenewStatus":\#(status),"signedDate":\#(at),"environment":"Sandbox","recentSubscriptionStartDate":\#(now - 6_000)}"#,
                                   chain: JWSGeneratedTests.chain)
            _ = try ledger.ingestRenewalInfo(Array(renewal.utf8), options: options)
        }
        try intent(1, at: now - 4_000)
        #expect(try changes() == [["subscription", "-"]])
        try intent(0, at: now - 3_000)
        try intent(1, at: now - 2_000)
        #expect(try changes() == [["subscription", "-"], ["subscription", "stops"], ["subscription", "renews"]])
    }

    /// A purchase linked to another app account is a change caused by the transfer (the answer
    /// as it stood, the new account named); on a store of migration 27 upgraded in place too,
    /// its changes kept. Linking again where it is changes nothing.
    @Test func aTransferIsAChangeOnAStoreUpgradedFromMigration27() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return }
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "transfer-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(27)))
        let now = Clock.nowMilliseconds()
        do {
            let old = Ledger(store: try Store(schema: previous, path: path, appID: appID))
            _ = try old.ingestTransaction(Array(pki.sign(JWSGeneratedTests.transactionPayload(signedDate: now - 5_000), chain: JWSGeneratedTests.chain).utf8),
                                          options: options)
            #expect(try old.link(appUserID: "ann", customer: "2000000100", environment: .sandbox) == .linked)
        }
        let ledger = Ledger(store: try Store(schema: .gatekit, path: path, appID: appID))
        #expect(try ledger.link(appUserID: "ben", customer: "2000000100", environment: .sandbox) == .transferred)
        #expect(try ledger.link(appUserID: "ben", customer: "2000000100", environment: .sandbox) == .unchanged)
        guard case let .array(list)? = try JSONParser.parse(Array(try ledger.changesJSON(after: 0, limit: 100).utf8))["changes"] else {
            Issue.record("no changes")
            return
        }
        #expect(list.map { $0["cause"]?.stringValue } == ["ingest", "transfer"])
        #expect(list.map { $0["appUserIds"] } == [.array([]), .array([.string("ben")])])
        #expect(list.map { $0["reason"]?.stringValue } == ["subscription", "subscription"])
        #expect(list.map { $0["until"] } == [list.first?["until"], list.first?["until"]])
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }

    /// Migration 28 widens the feed's cause in SQLite's own text of the table: a table whose text
    /// is not GateKit's stops it with the store left as it was (migration 27, every row kept).
    @Test func aFeedTableNotAsGateKitMadeItStopsTheUpgradeAndIsKept() throws {
        let folder = TemporaryFolder()
        let path = folder.file("edited.sqlite")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(27)))
        do {
            let old = try Store(schema: previous, path: path, appID: nil)
            try old.write { (db) throws(GateKitError) in
                try db.execute("""
                    PRAGMA writable_schema = ON;
                    UPDATE sqlite_schema SET sql = replace(sql, 'cause IN (''ingest'', ''time'')', 'cause IN (''time'', ''ingest'')')
                        WHERE type = 'table' AND name = 'ledger_changes';
                    PRAGMA writable_schema = OFF;
                    """)
            }
        }
        #expect(failure { try Store(schema: .gatekit, path: path, appID: nil) } == .ECORRUPT)
        let kept = try Store(schema: previous, path: path, appID: nil)
        #expect(try kept.read { (db) throws(GateKitError) in try db.scalar("PRAGMA user_version") } == 27)
    }

    /// Migration 31 spells the checks each change, answer and queued delivery meets with lists
    /// of two: on a store of migration 30 upgraded in place they refuse what they refused and
    /// take what they took, and on SQLite writing those rows no longer fills a temporary b-tree
    /// (SQLite's plan for a list of three constants: an OpenEphemeral on every run).
    @Test func theFeedsRespeltChecksRefuseWhatTheyRefusedAndFillNoTemporaryTree() throws {
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "respelt-checks")
        _ = try Store(schema: StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(30))), path: path, appID: appID)
        let store = try Store(schema: .gatekit, path: path, appID: appID)
        let change = """
            INSERT INTO ledger_changes(seq, environment, test_signed, original_transaction_id, product_id, entitled, reason, at_ms, cause,
                app_user_ids, recorded_ms, will_renew) VALUES (?1, 'Sandbox', 1, 'o', 'p', 1, 1, 0, ?2, '[]', 0, ?3)
            """
        let answer = """
            INSERT INTO ledger_answers(environment, test_signed, original_transaction_id, product_id, entitled, reason, will_renew)
                VALUES ('Sandbox', 1, ?1, 'p', 1, 1, ?2)
            """
        let delivery = """
            INSERT INTO ledger_webhook_deliveries(endpoint_id, customer, seq, state, attempts, next_attempt_ms, created_ms)
                VALUES ('e', 'c', ?1, ?2, 0, 0, 0)
            """
        func insert(_ sql: String, _ values: [RowInserts.Value]) -> Bool {
            do {
                try store.write { (db) throws(GateKitError) in
                    let s = try db.statement(sql)
                    for (i, v) in values.enumerated() { s.bind(Int32(i + 1), value: v) }
                    try s.run()
                }
                return true
            } catch { return false }
        }
        var seq: Int64 = 0
        func changeTakes(_ cause: String, _ renews: Int64?) -> Bool { seq += 1; return insert(change, [.integer(seq), .text(cause), .integer(renews)]) }
        #expect(["ingest", "time", "transfer"].map { changeTakes($0, 1) } == [true, true, true])
        #expect([0, 1, 2, nil].map { changeTakes("ingest", $0) } == [true, true, true, true])
        #expect(!changeTakes("other", 1) && !changeTakes("ingest", 3) && !changeTakes("ingest", -1))
        #expect([0, 1, 2, nil].enumerated().map { insert(answer, [.text("a\($0.offset)"), .integer($0.element)]) } == [true, true, true, true])
        #expect(!insert(answer, [.text("b"), .integer(3)]))
        #expect((0...3).map { insert(delivery, [.integer($0), .integer($0)]) } == [true, true, true, true])
        #expect(!insert(delivery, [.integer(9), .integer(4)]) && !insert(delivery, [.integer(10), .integer(-1)]))
        guard try store.read({ (db) throws(GateKitError) in db.dialect }) == .sqlite else { return }
        for sql in [change, answer, delivery] {
            let opcodes = try store.read { (db) throws(GateKitError) -> [String] in
                let s = try db.statement("EXPLAIN " + sql)
                defer { s.reset() }
                var out: [String] = []
                while try s.step() { out.append(s.text(1) ?? "") }
                return out
            }
            #expect(opcodes.contains("Insert") || opcodes.contains("IdxInsert"))
            #expect(!opcodes.contains("OpenEphemeral"), "\(sql)")
        }
    }
}
