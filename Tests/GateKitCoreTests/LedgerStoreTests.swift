import CSQLite
import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitEULA
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitPermissions
@testable import GateKitStore
@testable import GateKitSupport

/// The ledger in a store: the schema migration, ingestion of generated signed data,
/// duplicates, scopes, and the append-only tables.
@Suite struct LedgerStoreTests {
    @Test func aVersion2StoreIsMigratedWithItsDecisionsKept() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v2.sqlite")
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        for migration in StoreSchema.gatekit.migrations.prefix(2) { sqlite3_exec(db, migration.sqlite, nil, nil, nil) }
        let hash = try sha256Hex("terms v1")
        sqlite3_exec(db, "INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES ('terms', NULL, '\(hash)', 1, 1);"
                     + "PRAGMA application_id=\(StoreFormat.applicationID); PRAGMA user_version=2;", nil, nil, nil)
        sqlite3_close(db)
        let store = try Store(schema: .gatekit, path: path, appID: nil)
        #expect(try store.read { (db) throws(GateKitError) in try db.scalar("PRAGMA user_version") } == StoreSchema.gatekit.currentVersion)
        #expect(try EULAGate(store: store).shouldPresent(documentID: "terms", hash: hash, user: nil) == false)
        #expect(try store.read { (db) throws(GateKitError) in
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ledger_%' AND type = 'table'")
        } == 30)  // migration 3's seven, 5's ledger_catalogs, 6's ledger_sync and ledger_refresh, 7's ledger_account_links, 8's ledger_feed_head, ledger_changes and ledger_answers, 12's four ledger_metric_ tables, 16's three, 17's one, 18's one, 24's ledger_payments and ledger_payment_revocations, 25's ledger_lookup_keys, 27's three ledger_webhook_ tables, 29's ledger_feed_notices
    }

    @Test func ingestsVerifiedDataOnceAndAnswers() throws {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return }
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("s.sqlite"))
        let ledger = Ledger(store: store)
        let now = Clock.nowMilliseconds()
        let jws = pki.sign(JWSGeneratedTests.transactionPayload(signedDate: now, extra: ",\"subscriptionGroupIdentifier\":\"g1\""),
                           chain: JWSGeneratedTests.chain)
        let first = try ledger.ingestTransaction(Array(jws.utf8), options: options)
        #expect(first.outcome == .new && first.customer == "2000000100" && first.scope.testData)
        #expect(first.statusChanges == [IngestReport.StatusChange(purchaseID: "2000000100", groupID: "g1", from: nil, to: .active)])
        #expect(try ledger.ingestTransaction(Array(jws.utf8), options: options).outcome == .duplicate)
        let scope = LedgerScope(environment: .sandbox, testData: true)
        let e = try ledger.entitlement(customer: "2000000100", to: "g1", scope: scope, at: .now)
        #expect(e.isEntitled && e.reason == .subscription && e.untilMs == now + 86_400_000)
        // App Store data and test-signed data never mix (a question without the test flag says
        // only test-signed data matches); neither do environments.
        let plain = LedgerScope(environment: .sandbox, testData: false)
        #expect(try ledger.entitlement(customer: "2000000100", to: "g1", scope: plain, at: .now).reason == .onlyTestSigned)
        #expect(try ledger.entitlement(customer: "2000000100", to: "g2", scope: plain, at: .now).reason == .noPurchase)
        // An id the ledger has never seen (here, or in this environment) is not one who bought nothing.
        #expect(try ledger.entitlement(customer: "2000000199", to: "g1", scope: plain, at: .now).reason == .unknownCustomer)
        #expect(try ledger.entitlement(customer: "2000000100", to: "g1", scope: LedgerScope(environment: .production, testData: true), at: .now).reason == .unknownCustomer)
        let history = try ledger.historyJSON(customer: "2000000100", scope: scope)
        #expect(history.contains("\"kind\":\"transaction\"") && history.contains("\"productId\":\"pro.monthly\""))
        // The status response carries the signed transaction it was computed from.
        #expect(try ledger.subscriptionStatuses(customer: "2000000100", group: nil, scope: scope, at: .now).contains(jws))
        // Recorded rows are append-only, even for a connection that bypasses GateKit.
        for table in ["ledger_items", "ledger_transactions", "ledger_item_subjects", "ledger_status_changes"] {
            let refused = try store.read { (db) throws(GateKitError) -> Bool in
                do { try db.execute("DELETE FROM \(table)") } catch { return true }
                return false
            }
            #expect(refused, "DELETE on \(table)")
        }
        #expect(throws: GateKitError.self) { try ledger.entitlement(customer: "", to: "g1", scope: scope, at: .now) }
        #expect(throws: GateKitError.self) { try ledger.entitlement(customer: String(repeating: "x", count: 257), to: "g1", scope: scope, at: .now) }
    }
}
