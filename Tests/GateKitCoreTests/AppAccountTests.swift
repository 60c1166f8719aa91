import Testing
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
        #expect(AppAccountRows.current(changes, atMs: nil) == [.init(appUserID: "bob", customer: "1", sinceMs: 30)])
        #expect(AppAccountRows.current(changes, atMs: 25) == [.init(appUserID: "alice", customer: "1", sinceMs: 10),
                                                                .init(appUserID: "alice", customer: "2", sinceMs: 20)])
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
        let scope = LedgerScope(environment: .sandbox, testSigned: false)
        #expect(try ledger.linkedCustomers(appUserID: "bob", scope: scope, at: .now) == [token.lowercased()])
        #expect(try ledger.linkedCustomers(appUserID: "alice", scope: scope, at: .now).isEmpty)
        #expect(try ledger.unlink(appUserID: "alice", customer: token, environment: .sandbox) == false)
        #expect(try ledger.unlink(appUserID: "bob", customer: token, environment: .sandbox))
        #expect(try ledger.linkedCustomers(appUserID: "bob", scope: scope, at: .now).isEmpty)
        #expect(throws: GateKitError.self) { try ledger.link(appUserID: String(repeating: "x", count: 257), customer: "1", environment: .sandbox) }
        #expect(throws: GateKitError.self) { try ledger.link(appUserID: "alice", customer: "", environment: .sandbox) }
    }
}
