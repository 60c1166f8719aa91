import Testing
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The second hour (issue 44): a catalog's names checked against what customers bought. A
/// typo'd product id is reported before it turns an entitlement off, and a question about a
/// name the catalog does not know is a typo, never a non-customer.
@Suite struct CatalogNamesTests {
    static let scope = LedgerScope(environment: .sandbox, testData: true)

    /// A ledger holding one purchase of pro.monthly (customer 2000000100), test-signed.
    static func ledgerWithAPurchase(_ folder: TemporaryFolder) throws -> Ledger? {
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else {
            Issue.record("the test PKI could not be made (openssl)")
            return nil
        }
        let ledger = Ledger(store: try TestStores.open(folder.file("names.sqlite")))
        let jws = pki.sign(JWSGeneratedTests.transactionPayload(), chain: JWSGeneratedTests.chain)
        _ = try ledger.ingestTransaction(Array(jws.utf8), options: options)
        return ledger
    }

    static func catalog(_ text: String) throws -> ProductCatalog { try ProductCatalog(json: Array(text.utf8)) }

    @Test func aTypoedProductIdIsReportedBeforeItBites() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledgerWithAPurchase(folder) else { return }
        let right = try Self.catalog(#"{"products":{"pro.monthly":{"entitlements":["pro"]}}}"#)
        let first = try ledger.declareCatalog(right, effectiveMs: nil)
        #expect(first.declared && first.unseenProducts.isEmpty && first.unnamedProducts.isEmpty && first.warnings.isEmpty)
        #expect(first.entitlementChanges == [.init(product: "pro.monthly", gained: ["pro"], lost: [])])
        #expect(try ledger.entitlement(customer: "2000000100", to: "pro", scope: Self.scope, at: .now).isEntitled)

        // The typo: checked first, nothing is declared and the answers stay.
        let typo = try Self.catalog(#"{"products":{"pro.montly":{"entitlements":["pro"]}}}"#)
        let check = try ledger.declareCatalog(typo, effectiveMs: nil, checkOnly: true)
        #expect(!check.declared)
        #expect(check.unseenProducts == [.init(product: "pro.montly", didYouMean: "pro.monthly")])
        #expect(check.unnamedProducts == ["pro.monthly"])
        #expect(check.entitlementChanges == [.init(product: "pro.monthly", gained: [], lost: ["pro"])])
        #expect(check.warnings.count == 3 && check.warnings[0].contains("did you mean \"pro.monthly\""), "\(check.warnings)")
        #expect(try ledger.catalog(at: .now)?.catalog == right)
        #expect(try ledger.entitlement(customer: "2000000100", to: "pro", scope: Self.scope, at: .now).isEntitled)
        // Declared anyway, the report says the same, and the answer changes as it said.
        let declared = try ledger.declareCatalog(typo, effectiveMs: nil)
        #expect(declared.declared && declared.unseenProducts == check.unseenProducts && declared.entitlementChanges == check.entitlementChanges)
        #expect(try ledger.entitlement(customer: "2000000100", to: "pro", scope: Self.scope, at: .now).isEntitled == false)
        // A catalog for products not sold yet warns of nothing it cannot know.
        let more = try Self.catalog(#"{"products":{"pro.monthly":{"entitlements":["pro"]},"team.yearly":{"entitlements":["team"]}}}"#)
        let added = try ledger.declareCatalog(more, effectiveMs: nil, checkOnly: true)
        #expect(added.unseenProducts == [.init(product: "team.yearly", didYouMean: nil)] && added.unnamedProducts.isEmpty)
        #expect(added.warnings.isEmpty)
        let json = JSONWriter.serialize(check.json)
        #expect(json.contains(#""unseenProducts":[{"product":"pro.montly","didYouMean":"pro.monthly"}]"#) && json.contains(#""declared":false"#))
    }

    @Test func aNameTheCatalogDoesNotKnowIsATypoNotANonCustomer() throws {
        let folder = TemporaryFolder()
        guard let ledger = try Self.ledgerWithAPurchase(folder) else { return }
        // Without a catalog any name may be a product id: a non-customer's answer.
        #expect(try ledger.entitlement(customer: "2000000100", to: "por", scope: Self.scope, at: .now).reason == .noPurchase)
        try ledger.declareCatalog(try Self.catalog(#"{"products":{"pro.monthly":{"group":"g1","entitlements":["pro"]}}}"#), effectiveMs: nil)
        for (asked, nearest) in [("por", "pro"), ("Pro", "pro"), ("pro.montly", "pro.monthly"), ("g2", "g1"), ("zzzzzz", nil)] as [(String, String?)] {
            let e = try ledger.entitlement(customer: "2000000100", to: asked, scope: Self.scope, at: .now)
            #expect(e.reason == .unknownName && !e.isEntitled && e.didYouMean == nearest, "\(asked)")
            // A non-customer asking a typo is told the same.
            #expect(try ledger.entitlement(customer: "someone else", to: asked, scope: Self.scope, at: .now).reason == .unknownName)
        }
        #expect(JSONWriter.serialize(try ledger.entitlement(customer: "x", to: "por", scope: Self.scope, at: .now).json)
                == #"{"entitled":false,"reason":"unknown-name","didYouMean":"pro"}"#)
        // Known names answer as before: a product, its group, its entitlement name.
        for known in ["pro", "pro.monthly", "g1"] {
            #expect(try ledger.entitlement(customer: "2000000100", to: known, scope: Self.scope, at: .now).isEntitled, "\(known)")
            #expect(try ledger.entitlement(customer: "someone else", to: known, scope: Self.scope, at: .now).reason == .unknownCustomer)
        }
        // An app account with no customer linked asks through the same check.
        #expect(try ledger.entitlement(appUserID: "nobody", to: "por", scope: Self.scope, at: .now).reason == .unknownName)
        #expect(try ledger.entitlement(appUserID: "nobody", to: "pro", scope: Self.scope, at: .now).reason == .unknownCustomer)
    }

    @Test func theNearestNameIsBoundedAndCaseFirst() {
        #expect(NearestName.nearest(to: "Pro", among: ["Pr", "pro"]) == "pro")   // the case first, though "Pr" is as near
        #expect(NearestName.nearest(to: "pro", among: ["prox", "pra", "apro"]) == "apro")  // equals: the first in byte order
        #expect(NearestName.nearest(to: "premum", among: ["premium", "pro"]) == "premium")
        #expect(NearestName.nearest(to: "abc", among: ["xyz", "abcdef"]) == nil)   // three edits away
        #expect(NearestName.nearest(to: "ab", among: ["ab"]) == nil)               // itself is no suggestion
        #expect(NearestName.nearest(to: "a.b", among: ["a.d", "a.c"]) == "a.c")    // ties: the first in byte order
        #expect(NearestName.distance(Array("kitten".utf8), Array("sitting".utf8), atMost: 3) == 3)
        #expect(NearestName.distance(Array("kitten".utf8), Array("sitting".utf8), atMost: 2) == nil)
        let long = String(repeating: "x", count: 300)
        #expect(NearestName.nearest(to: long, among: [long + "y"]) == nil)        // past the length compared
    }
}
