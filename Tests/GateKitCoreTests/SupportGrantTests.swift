import Testing
@testable import GateKitLedger
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// Support grants (Architecture IV's proof that a store is an adapter): an entitlement given by
/// hand answers like a purchase, beside a store's purchase of the same entitlement, follows its
/// app account, ends at its revocation, and is never revenue — on either backend.
@Suite struct SupportGrantTests {
    static let scope = LedgerScope(environment: .production, testData: false)
    static let day: Int64 = 86_400_000
    static let jane = Attribution(grantedBy: "support:jane", note: "a month for the outage")
    static let bob = Attribution(grantedBy: "support:bob", note: nil)
    static let alice = PlayLedgerLivesTests.alice
    static let catalog = #"{"products": {"pro:monthly": {"type": "auto-renewable", "entitlements": ["premium"]}}}"#

    /// A ledger holding alice's Play subscription of "pro" (entitlement "premium"), active from
    /// ten days ago for twenty more.
    static func ledgerWithAPurchase(_ folder: TemporaryFolder, _ name: String) throws -> (Ledger, now: Int64) {
        let ledger = Ledger(store: try TestStores.open(folder.file(name)))
        let now = Clock.nowMilliseconds()
        _ = try ledger.declareCatalog(ProductCatalog(json: Array(catalog.utf8)), effectiveMs: nil)
        let answer = PlayLedgerLivesTests.subscription("ACTIVE", start: now - 10 * day,
                                                       [.init(expiry: now + 20 * day, order: "GPA.1111-2222-3333-44444")])
        _ = try ledger.ingestPlaySubscription(Ledger.PlayAnswer(packageName: PlayLedgerLivesTests.package, purchaseToken: "token-1",
                                                                bytes: answer, answeredMs: now - 1_000))
        return (ledger, now)
    }

    /// How often `needle` occurs in `text`.
    static func count(_ needle: String, in text: String) -> Int {
        let n = Array(needle.utf8), t = Array(text.utf8)
        guard !n.isEmpty, t.count >= n.count else { return 0 }
        return (0...(t.count - n.count)).filter { t[$0..<$0 + n.count].elementsEqual(n) }.count
    }

    static func premium(_ ledger: Ledger, _ customer: String, at: LedgerInstant = .now) throws -> Entitlement {
        try ledger.entitlement(customer: customer, to: "premium", scope: scope, at: at)
    }

    @Test func aGrantAnswersBesideAPurchaseOfTheSameEntitlementAndItsRevocationEndsOnlyIt() throws {
        let folder = TemporaryFolder()
        let (ledger, now) = try Self.ledgerWithAPurchase(folder, "beside.sqlite")
        #expect(try Self.premium(ledger, Self.alice).store == .play)
        let grant = try ledger.grant("premium", to: .customer(Self.alice), environment: .production, fromMs: nil,
                                     untilMs: now + 60 * Self.day, attribution: Self.jane)
        #expect(grant.id.hasPrefix("grant-") && grant.id.utf8.count == 38)
        // The longer-lasting answer decides: the grant's, with who gave it and why.
        let granted = try Self.premium(ledger, Self.alice)
        #expect(granted.isEntitled && granted.store == .grant && granted.reason == .nonRenewing)
        #expect(granted.untilMs == now + 60 * Self.day && granted.transactionID == grant.id)
        let attribution = try ledger.attribution(of: granted, scope: Self.scope)
        #expect(attribution == Self.jane && granted.grants == ["premium"])
        #expect(try ledger.attribution(of: try Self.premium(ledger, "token-1"), scope: Self.scope) == nil)  // what a store sold
        let json = JSONWriter.serialize(granted.json(attribution: attribution))
        #expect(json.contains(#""store":"grant""#) && json.contains(#""grantedBy":"support:jane""#) && json.contains(#""note":"a month for the outage""#))
        // Active lists both: the purchase by its product, the grant by its entitlement.
        #expect(Set(try ledger.active(customer: Self.alice, scope: Self.scope, at: .now).compactMap(\.productID)) == ["pro:monthly", "premium"])
        // Revoked: the purchase answers again, untouched.
        let (revoked, changed) = try ledger.revokeGrant(grant.id, environment: .production, atMs: nil, attribution: Self.bob)
        #expect(changed && revoked.revokedMs != nil && revoked.attribution == Self.jane && revoked.holder == .customer(Self.alice))
        let after = try Self.premium(ledger, Self.alice)
        #expect(after.isEntitled && after.store == .play && after.untilMs == now + 20 * Self.day)
        // The feed said each change, naming the grant's store and entitlement.
        let feed = try ledger.changesJSON(after: 0, limit: 100)
        #expect(Self.count(#""store":"grant","productId":"premium","entitlements":["premium"]"#, in: feed) == 2)
        // The history holds both documents: the grant as given and its revocation with who and why.
        let history = try ledger.historyJSON(customer: Self.alice, scope: Self.scope)
        #expect(history.contains(#""kind":"grant""#) && history.contains(#""revokedBy":"support:bob""#))
    }

    @Test func aGrantToAnAppAccountStaysWithItWhenItsPurchasesMove() throws {
        let folder = TemporaryFolder()
        let (ledger, _) = try Self.ledgerWithAPurchase(folder, "account.sqlite")
        #expect(try ledger.link(appUserID: "alice", customer: Self.alice, environment: .production) == .linked)
        let grant = try ledger.grant("premium", to: .appAccount("alice"), environment: .production, fromMs: nil, untilMs: nil,
                                     attribution: Self.jane)
        // Alice's purchase moves to bob: the grant stays alice's, for good.
        #expect(try ledger.link(appUserID: "bob", customer: Self.alice, environment: .production) == .transferred)
        let alices = try ledger.entitlement(appUserID: "alice", to: "premium", scope: Self.scope, at: .now)
        #expect(alices.isEntitled && alices.store == .grant && alices.reason == .nonConsumable && alices.untilMs == nil)
        let bobs = try ledger.entitlement(appUserID: "bob", to: "premium", scope: Self.scope, at: .now)
        #expect(bobs.isEntitled && bobs.store == .play)
        let links = try ledger.linksJSON(appUserID: "alice", customer: nil, environment: .production, at: .now)
        #expect(links.contains(#""customer":"\#(grant.id)""#) && links.contains(#""cause":"grant""#))
        let (_, revoked) = try ledger.revokeGrant(grant.id, environment: .production, atMs: nil, attribution: Self.bob)
        #expect(revoked)
        #expect(try !ledger.entitlement(appUserID: "alice", to: "premium", scope: Self.scope, at: .now).isEntitled)
        #expect(try ledger.entitlement(appUserID: "bob", to: "premium", scope: Self.scope, at: .now).isEntitled)
    }

    @Test func aRevocationEndsTheGrantFromItsInstantAndOnlyOnce() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("revoke.sqlite")))
        let now = Clock.nowMilliseconds()
        let token = "0b8e5a51-7d0b-4f7e-9d8e-4e0c1d2b3a4f"
        let grant = try ledger.grant("pro", to: .customer(token), environment: .production, fromMs: now - Self.day,
                                     untilMs: now + 30 * Self.day, attribution: Self.jane)
        // Revoked from ten days on: entitled until then, revoked after.
        let (_, revoked) = try ledger.revokeGrant(grant.id, environment: .production, atMs: now + 10 * Self.day, attribution: Self.bob)
        #expect(revoked)
        let today = try ledger.entitlement(customer: token, to: "pro", scope: Self.scope, at: .now)
        #expect(today.isEntitled && today.untilMs == now + 10 * Self.day)
        let later = try ledger.entitlement(customer: token, to: "pro", scope: Self.scope, at: .asOf(now + 11 * Self.day))
        #expect(!later.isEntitled && later.reason == .revoked)
        // Again: nothing recorded, the first revocation stands.
        let (again, revokedAgain) = try ledger.revokeGrant(grant.id, environment: .production, atMs: nil, attribution: Self.bob)
        #expect(!revokedAgain && again.revokedMs == now + 10 * Self.day)
        #expect(Self.count(#""kind":"grant""#, in: try ledger.historyJSON(customer: token, scope: Self.scope)) == 2)
        // Grants of another environment, and ids never given, are not found.
        #expect(failure { _ = try ledger.revokeGrant(grant.id, environment: .sandbox, atMs: nil, attribution: Self.bob) } == .ENOTFOUND)
        #expect(failure { _ = try ledger.revokeGrant("grant-0", environment: .production, atMs: nil, attribution: Self.bob) } == .ENOTFOUND)
    }

    @Test func grantsAreNeverCountedInTheMetrics() throws {
        let folder = TemporaryFolder()
        let (ledger, now) = try Self.ledgerWithAPurchase(folder, "metrics.sqlite")
        let request = try MetricsRequest(scope: Self.scope, from: now - 40 * Self.day, to: now + 40 * Self.day, granularity: .day,
                                         asOf: .asOf(now + 60_000))
        // The document but its "asOf" (a request as of now is stamped with the instant it ran).
        func metrics() throws -> [(String, JSONValue)] {
            guard case let .object(members) = try JSONParser.parse(Array(try ledger.metrics(request).utf8)) else { return [] }
            return members.filter { $0.0 != "asOf" }
        }
        let before = try metrics()
        let forGood = try ledger.grant("premium", to: .appAccount("carol"), environment: .production, fromMs: now - 5 * Self.day,
                                       untilMs: nil, attribution: Self.jane)
        _ = try ledger.grant("premium", to: .customer(Self.alice), environment: .production, fromMs: nil, untilMs: now + 30 * Self.day,
                             attribution: Self.jane)
        _ = try ledger.revokeGrant(forGood.id, environment: .production, atMs: nil, attribution: Self.bob)
        let after = try metrics()
        #expect(after.count == before.count && zip(after, before).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 })
        // The purchase itself is counted: the comparison is of real figures.
        #expect(JSONWriter.serialize(.object(before)).contains(#""revenue":{"USD":["#))
    }

    @Test func whatIsNotAGrantIsRefusedWithNothingRecorded() throws {
        let folder = TemporaryFolder()
        let (ledger, now) = try Self.ledgerWithAPurchase(folder, "refused.sqlite")
        func refused(_ grant: () throws(GateKitError) -> Void) -> String? {
            do { try grant(); return nil } catch { return error.code == .EINVAL ? error.message : "\(error.code): \(error.message)" }
        }
        let typo = refused { () throws(GateKitError) in _ = try ledger.grant("premum", to: .customer(Self.alice), environment: .production, fromMs: nil, untilMs: nil, attribution: Self.jane) }
        #expect(typo?.contains(#"did you mean "premium""#) == true)
        #expect(refused { () throws(GateKitError) in _ = try ledger.grant("premium", to: .customer(Self.alice), environment: .production, fromMs: now, untilMs: now, attribution: Self.jane) } != nil)
        #expect(refused { () throws(GateKitError) in _ = try ledger.grant("premium", to: .appAccount(""), environment: .production, fromMs: nil, untilMs: nil, attribution: Self.jane) } != nil)
        for who in ["", "two\nlines", String(repeating: "x", count: 257)] {
            #expect(refused { () throws(GateKitError) in _ = try ledger.grant("premium", to: .customer(Self.alice), environment: .production, fromMs: nil, untilMs: nil,
                                                   attribution: Attribution(grantedBy: who, note: nil)) } != nil, "granted_by \(who.utf8.count) bytes")
        }
        #expect(refused { () throws(GateKitError) in _ = try ledger.grant("premium", to: .customer(Self.alice), environment: .production, fromMs: nil, untilMs: nil,
                                               attribution: Attribution(grantedBy: "support:jane", note: String(repeating: "x", count: 1025))) } != nil)
        #expect(try !ledger.historyJSON(customer: nil, scope: Self.scope).contains(#""kind":"grant""#))
    }

    /// Migration 23: an item's store kind takes any store's name, so a later store never
    /// rebuilds the table; SQLite rebuilds ledger_items once (PostgreSQL replaces the check):
    /// every row stays, and the table still refuses UPDATE and DELETE.
    @Test func itemsKeepTheirRowsAndTakeAnyStoresKind() throws {
        let folder = TemporaryFolder()
        let (path, appID) = TestStores.previous(in: folder, "store-kind-migration")
        let old = try Store(schema: StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(22))), path: path, appID: appID)
        func item(_ id: Int, _ fill: String, _ kind: String?) -> String {
            let overriding = old.backend == .postgresql ? " OVERRIDING SYSTEM VALUE" : ""
            return """
                INSERT INTO ledger_items(id, environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body, store_kind)\(overriding)
                VALUES (\(id), 'Production', 0, '\(String(repeating: fill, count: 64))', 2, 1, 1, 1, '{}', \(kind.map { "'\($0)'" } ?? "NULL"))
                """
        }
        try old.write { (db) throws(GateKitError) in
            try db.execute(item(7, "a", nil))
            try db.execute(item(8, "b", "play-subscription"))
        }
        #expect(failure { try old.write { (db) throws(GateKitError) in try db.execute(item(9, "c", "grant")) } } != nil,
                "before migration 23 only Play's kinds are taken")
        let upgraded = try Store(schema: .gatekit, path: path, appID: appID)
        try upgraded.write { (db) throws(GateKitError) in try db.execute(item(9, "c", "grant")) }
        let kinds = try upgraded.read { (db) throws(GateKitError) -> [String] in
            let s = try db.statement("SELECT id, coalesce(store_kind, '-') FROM ledger_items ORDER BY id")
            defer { s.reset() }
            var out: [String] = []
            while try s.step() { out.append("\(s.int64(0)) \(s.text(1) ?? "")") }
            return out
        }
        #expect(kinds == ["7 -", "8 play-subscription", "9 grant"])
        for refused in ["UPDATE ledger_items SET signed_ms = 0", "DELETE FROM ledger_items", item(10, "d", String(repeating: "x", count: 33))] {
            #expect(failure { try upgraded.write { (db) throws(GateKitError) in try db.execute(refused) } } != nil, "\(refused)")
        }
    }
}
