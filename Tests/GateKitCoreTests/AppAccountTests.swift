import Testing
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// App accounts: which links are in effect at an instant, and links, transfers and unlinks
/// through the store on either backend (the answers by app account: Tests/c/test_ledger.c and
/// python/tests/test_ledger.py).
@Suite struct AppAccountTests {
    static func change(_ user: String, _ customer: String, _ linked: Bool, _ at: Int64, _ cause: String? = nil) -> AppAccountRows.Change {
        AppAccountRows.Change(appUserID: user, customer: customer, linked: linked, atMs: at, cause: cause)
    }

    @Test func theLastChangeOfEachCustomerByTheInstantDecides() {
        let changes = [Self.change("alice", "1", true, 10), Self.change("alice", "2", true, 20),
                       Self.change("alice", "1", false, 30, "transfer"), Self.change("bob", "1", true, 30), Self.change("alice", "2", false, 40)]
        #expect(AppAccountRows.current(changes, atMs: nil) == [.init(appUserID: "bob", customer: "1", sinceMs: 30, sequence: 3)])
        #expect(AppAccountRows.current(changes, atMs: 25) == [.init(appUserID: "alice", customer: "1", sinceMs: 10, sequence: 0),
                                                                .init(appUserID: "alice", customer: "2", sinceMs: 20, sequence: 1)])
        #expect(AppAccountRows.current(changes, atMs: 5).isEmpty)
        #expect(AppAccountRows.current(changes, atMs: 35).map(\.appUserID) == ["bob", "alice"])
    }

    @Test func linksMoveBetweenAccountsAndTokensAreKeptLowercase() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("accounts.sqlite")))
        let token = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        #expect(try ledger.link(appUserID: "alice", customer: token, environment: .sandbox) == .linked)
        #expect(try ledger.link(appUserID: "alice", customer: token.lowercased(), environment: .sandbox) == .unchanged)
        #expect(try ledger.link(appUserID: "bob", customer: token, environment: .sandbox) == .transferred)
        #expect(try ledger.link(appUserID: "alice", customer: token, environment: .production) == .linked)  // environments apart
        let scope = LedgerScope(environment: .sandbox, testData: false)
        #expect(try ledger.linkedCustomers(appUserID: "bob", scope: scope, at: .now).map(\.customer) == [token.lowercased()])
        #expect(try ledger.linkedCustomers(appUserID: "alice", scope: scope, at: .now).isEmpty)
        #expect(try ledger.unlink(appUserID: "alice", customer: token, environment: .sandbox) == false)
        #expect(try ledger.unlink(appUserID: "bob", customer: token, environment: .sandbox))
        #expect(try ledger.linkedCustomers(appUserID: "bob", scope: scope, at: .now).isEmpty)
        #expect(throws: GateKitError.self) { try ledger.link(appUserID: String(repeating: "x", count: 257), customer: "1", environment: .sandbox) }
        #expect(throws: GateKitError.self) { try ledger.link(appUserID: "alice", customer: "", environment: .sandbox) }
    }

    /// Hardening IV, 15: customers that are canonically equal but different bytes (a Kelvin
    /// sign for a K) are two customers, as the store keeps them.
    @Test func customersAreComparedAsBytes() {
        let kelvin = "\u{212A}-7007", k = "K-7007"
        #expect(kelvin == k)  // Swift's String equality: canonical equivalence
        let links = AppAccountRows.current([Self.change("alice", k, true, 10), Self.change("mallory", kelvin, true, 20)], atMs: nil)
        #expect(links.map(\.appUserID) == ["alice", "mallory"] && links.map { Array($0.customer.utf8) } == [Array(k.utf8), Array(kelvin.utf8)])
    }

    /// Hardening IV, 14: the newest claim on a subscription holds it, whichever identifier it
    /// linked; Apple re-signing to another token is a claim of its own.
    @Test func theNewestClaimHoldsASubscription() {
        func link(_ user: String, _ at: Int64) -> AppAccountRows.Link { .init(appUserID: user, customer: "c", sinceMs: at) }
        #expect(SubscriptionHolder.holder(direct: nil, token: link("alice", 10), tokenSignedMs: 5) == "alice")
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: link("alice", 10), tokenSignedMs: 5) == "mallory")
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: link("alice", 30), tokenSignedMs: 5) == "alice")
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: nil, tokenSignedMs: 25) == nil)        // Apple moved it away
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: link("bob", 1), tokenSignedMs: 25) == "bob")
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: nil, tokenSignedMs: 5) == "mallory")
        #expect(SubscriptionHolder.holder(direct: link("mallory", 20), token: nil, tokenSignedMs: nil) == "mallory") // a receipt: no token
        #expect(SubscriptionHolder.holder(direct: nil, token: nil, tokenSignedMs: 5) == nil)
        // Links of one millisecond: the later row holds it.
        let early = AppAccountRows.Link(appUserID: "alice", customer: "t", sinceMs: 20, sequence: 0)
        let late = AppAccountRows.Link(appUserID: "mallory", customer: "o", sinceMs: 20, sequence: 1)
        #expect(SubscriptionHolder.holder(direct: late, token: early, tokenSignedMs: 5) == "mallory")
        #expect(SubscriptionHolder.holder(direct: .init(appUserID: "mallory", customer: "o", sinceMs: 20, sequence: 0),
                                          token: .init(appUserID: "alice", customer: "t", sinceMs: 20, sequence: 1), tokenSignedMs: 5) == "alice")
    }

    /// One test subscription (2000000100) signed with app account tokens, and who it entitles.
    struct TokenedPurchase {
        let ledger: Ledger
        let pki: JWSTestPKI
        let options: JWSOptions
        let scope = LedgerScope(environment: .sandbox, testData: true)

        init?(_ folder: TemporaryFolder, _ name: String) throws {
            guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else { return nil }
            ledger = Ledger(store: try TestStores.open(folder.file(name)))
            self.pki = pki
            self.options = options
        }

        func ingest(token: String, signed: Int64) throws {
            let payload = JWSGeneratedTests.transactionPayload(signedDate: signed, extra: ",\"appAccountToken\":\"\(token)\"")
            _ = try ledger.ingestTransaction(Array(pki.sign(payload, chain: JWSGeneratedTests.chain).utf8), options: options)
        }

        func entitled(_ user: String) throws -> Bool {
            try ledger.entitlement(appUserID: user, to: "pro.monthly", scope: scope, at: .now).isEntitled
        }
    }

    @Test func onePurchaseEntitlesOneAccountWhicheverIdentifierWasLinked() throws {
        let folder = TemporaryFolder()
        guard let purchase = try TokenedPurchase(folder, "held.sqlite") else { return }
        let (ledger, scope) = (purchase.ledger, purchase.scope)
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138", other = "0b8e5a51-7d0b-4f7e-9d8e-4e0c1d2b3a4f"
        let now = Clock.nowMilliseconds()
        try purchase.ingest(token: token, signed: now - 60_000)
        #expect(try ledger.link(appUserID: "alice", customer: token, environment: .sandbox) == .linked)
        #expect(try purchase.entitled("alice"))
        // Mallory links the same purchase by its original transaction id: a transfer, not a second owner.
        #expect(try ledger.link(appUserID: "mallory", customer: "2000000100", environment: .sandbox) == .transferred)
        #expect(try purchase.entitled("mallory"))
        #expect(try !purchase.entitled("alice"))
        #expect(try ledger.active(appUserID: "alice", scope: scope, at: .now).isEmpty)
        #expect(try !ledger.historyJSON(appUserID: "alice", scope: scope).contains("2000000123"))
        // Alice links her token again: the newest claim, hers (a link made again renews it).
        #expect(try ledger.link(appUserID: "alice", customer: token, environment: .sandbox) == .transferred)
        #expect(try ledger.link(appUserID: "alice", customer: token, environment: .sandbox) == .unchanged)
        #expect(try purchase.entitled("alice"))
        #expect(try !purchase.entitled("mallory"))
        // Apple re-signs the purchase to another token (its own transfer): neither keeps it.
        #expect(try ledger.link(appUserID: "mallory", customer: "2000000100", environment: .sandbox) == .transferred)
        try purchase.ingest(token: other, signed: Clock.nowMilliseconds() + 5)
        #expect(try !purchase.entitled("mallory"))
        #expect(try !purchase.entitled("alice"))
        #expect(try ledger.link(appUserID: "bob", customer: other, environment: .sandbox) == .linked)
        #expect(try purchase.entitled("bob"))
    }

    /// Token A, then B, alice links A, bob links the original id, then Apple signs it with A
    /// again: that run of A began after bob's link, so it is the newest claim and alice holds
    /// it (the run that counts is the newest, not A's first).
    @Test func aTokenSignedAgainAfterAnotherHoldsFromItsNewestRun() throws {
        let folder = TemporaryFolder()
        guard let purchase = try TokenedPurchase(folder, "again.sqlite") else { return }
        let ledger = purchase.ledger
        let a = "7e3fb20b-4cdb-47cc-936d-99d65f608138", b = "0b8e5a51-7d0b-4f7e-9d8e-4e0c1d2b3a4f"
        let now = Clock.nowMilliseconds()
        try purchase.ingest(token: a, signed: now - 120_000)
        try purchase.ingest(token: b, signed: now - 90_000)
        #expect(try ledger.link(appUserID: "alice", customer: a, environment: .sandbox) == .linked)
        #expect(try ledger.link(appUserID: "bob", customer: "2000000100", environment: .sandbox) == .linked)
        #expect(try purchase.entitled("bob") && !purchase.entitled("alice"))
        try purchase.ingest(token: a, signed: Clock.nowMilliseconds() + 5)
        #expect(try purchase.entitled("alice"))
        #expect(try !purchase.entitled("bob"))
    }
}
