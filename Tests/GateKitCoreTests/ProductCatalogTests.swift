import Testing
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The host's product catalog: what it accepts, the terms it adds, and the answers it changes.
@Suite struct ProductCatalogTests {
    static func catalog(_ text: String) throws -> ProductCatalog { try ProductCatalog(json: Array(text.utf8)) }

    @Test func everyMemberIsCheckedAndNothingIsIgnored() throws {
        let c = try Self.catalog(#"{"products":{"pro.monthly":{"type":"auto-renewable","group":"g","entitlements":["pro","sync"]},"pass":{"type":"non-renewing","term":"P1M"}}}"#)
        #expect(c.products["pro.monthly"]?.entitlements == ["pro", "sync"] && c.products["pro.monthly"]?.group == "g")
        #expect(c.products["pass"]?.term?.text == "P1M" && c.products["pass"]?.type == .nonRenewing)
        #expect(try ProductCatalog(json: Array(JSONWriter.serialize(c.json).utf8)) == c)  // what is stored reads back the same
        for refused in [#"{"product":{}}"#, #"{"products":[]}"#, #"{"products":{"p":{"entitlement":["x"]}}}"#,
                        #"{"products":{"p":{"entitlements":["x","x"]}}}"#, #"{"products":{"p":{"entitlements":[""]}}}"#,
                        #"{"products":{"p":{"type":"subscription"}}}"#, #"{"products":{"p":{"term":"P1M"}}}"#,
                        #"{"products":{"p":{"type":"non-renewing","term":"P1M","term":"P2M"}}}"#,
                        #"{"products":{"p":{}},"products":{"p":{}}}"#, #"{"products":{"p":{"group":7}}}"#, "[]", "{"] {
            #expect(throws: GateKitError.self, "\(refused)") { try Self.catalog(refused) }
        }
        for term in ["P", "P1", "1M", "PM", "P1H", "P1M1M", "PT1H", "P-1D", "P0D", "P999999D"] {
            #expect(throws: GateKitError.self, "\(term)") { try ProductCatalog.Term(term) }
        }
    }

    /// "product:plan" reads its own entry, the plan's (":plan", that plan of any product: a
    /// Stripe price) and the product's, most specific first; a name with no colon reads only its own.
    @Test func aPlansEntryNamesThatPlanOfAnyProduct() throws {
        let c = try Self.catalog(#"{"products":{"prod_a":{"group":"a","entitlements":["basic"]},":price_x":{"type":"auto-renewable","entitlements":["pro"]},"prod_b:price_x":{"entitlements":["special"]}}}"#)
        #expect(c.product("prod_a:price_x")?.entitlements == ["pro", "basic"])
        #expect(c.product("prod_a:price_x")?.group == "a" && c.product("prod_a:price_x")?.type == .autoRenewable)
        #expect(c.product("prod_a:price_y")?.entitlements == ["basic"])
        #expect(c.product("prod_b:price_x")?.entitlements == ["special", "pro"])
        #expect(c.product("prod_c:price_x")?.entitlements == ["pro"])
        #expect(c.product("price_x") == nil && c.product("prod_c:price_xy") == nil && c.product("prod_c:x:price_x") == nil)
        #expect(c.grants("prod_c:price_x", "pro") && !c.grants("prod_c:price_y", "pro"))
        #expect(ProductCatalog.planKey(of: "prod_a:price_x") == ":price_x" && ProductCatalog.planKey(of: "pro.monthly") == nil)
        #expect(throws: GateKitError.self) { try Self.catalog(#"{"products":{":":{"entitlements":["x"]}}}"#) }
        // A purchase answers to its plan's key, as to its product id.
        let d = LedgerModelTests.day, t = LedgerModelTests.t0
        let item = LedgerModelTests.tx("1", original: "1", product: "prod_c:price_x", group: "prod_c", purchase: t, expires: t + 30 * d)
        let view = CustomerRecord(transactions: [item]).view(at: t + d, knownBy: nil, catalog: c)
        #expect(view.entitlement(to: ":price_x").isEntitled && view.entitlement(to: "pro").isEntitled)
        #expect(view.entitlement(to: ":price_y").reason == .noPurchase && view.entitlement(to: "basic").reason == .noPurchase)
        #expect(view.entitlements(to: ["pro", ":price_x", "basic"]).mapValues(\.isEntitled) == ["pro": true, ":price_x": true, "basic": false])
    }

    /// An entry by lookup key names the plans seen bearing the key, after a ":plan" entry for
    /// the same plan; its members are checked as a product's are.
    @Test func aLookupKeysEntryNamesThePlansSeenBearingIt() throws {
        let c = try Self.catalog(#"{"lookupKeys":{"pro_monthly":{"type":"auto-renewable","entitlements":["pro"]}},"products":{":price_b":{"entitlements":["b"]}}}"#)
        #expect(c.product("prod_a:price_a") == nil && c.knows("pro") && !c.knows("pro_monthly") && !c.isEmpty)
        let named = c.naming([LookupKey(productID: "prod_a:price_a", key: "pro_monthly", seenMs: 1),
                              LookupKey(productID: "prod_a:price_b", key: "pro_monthly", seenMs: 2),
                              LookupKey(productID: "prod_a:price_c", key: "other", seenMs: 3)])
        #expect(named.product("prod_a:price_a")?.entitlements == ["pro"] && named.product("prod_a:price_a")?.type == .autoRenewable)
        #expect(named.product("prod_a:price_b")?.entitlements == ["b", "pro"] && named.product("prod_a:price_c") == nil)
        #expect(named.json == c.json && c.entitlementNames == ["pro", "b"])
        for bad in [#"{"lookupKeys":[]}"#, #"{"lookupKeys":{"":{"entitlements":["x"]}}}"#, #"{"lookupKeys":{"k":{"entitlements":"x"}}}"#,
                    #"{"lookupKeys":{"k":{"term":"P1M"}}}"#] {
            #expect(throws: GateKitError.self, "\(bad)") { try Self.catalog(bad) }
        }
        #expect(LookupKey.count([LookupKey(productID: "p:a", key: "k", seenMs: 5), LookupKey(productID: "p:b", key: "k", seenMs: 9)], seenBy: 8) == 1)
    }

    @Test func termsAreAddedInTheCalendar() throws {
        let jan31 = Int64(Timestamp.days(year: 2024, month: 1, day: 31)) * 86_400_000 + 3_600_000  // 01:00 UTC
        func end(_ t: String) throws -> String { Timestamp.rfc3339Milliseconds(try ProductCatalog.Term(t).end(from: jan31)) }
        #expect(try end("P1M") == "2024-02-29T01:00:00.000Z")   // clamped to the month's length
        #expect(try end("P1Y") == "2025-01-31T01:00:00.000Z")
        #expect(try end("P2W") == "2024-02-14T01:00:00.000Z")
        #expect(try end("P1Y1M1D") == "2025-03-01T01:00:00.000Z")
        #expect(try end("P30D") == "2024-03-01T01:00:00.000Z")
        // Signed data may carry any date: outside the calendar the term never overflows.
        let longest = try ProductCatalog.Term("P100Y")
        #expect(longest.end(from: .max) == .max && longest.end(from: .min) == .min)
        #expect(longest.end(from: ProductCatalog.Term.latest) == ProductCatalog.Term.latest)  // the calendar's end, not past it
        #expect(longest.end(from: ProductCatalog.Term.earliest) > ProductCatalog.Term.earliest)
    }

    @Test func namesGroupsAndTermsChangeTheAnswers() throws {
        let d = LedgerModelTests.day, t = LedgerModelTests.t0
        let monthly = LedgerModelTests.tx("1", original: "1", product: "pro.monthly", group: "g1", purchase: t, expires: t + 30 * d)
        let fromReceipt = LedgerModelTests.tx("2", original: "2", product: "pro.yearly", group: nil, purchase: t, expires: t + 365 * d)
        let pass = LedgerModelTests.tx("3", original: "3", product: "pass", group: nil, type: .nonRenewing, purchase: t)
        let record = CustomerRecord(transactions: [monthly, fromReceipt, pass])
        let catalog = try Self.catalog(#"{"products":{"pro.monthly":{"entitlements":["pro"]},"pro.yearly":{"group":"g1","entitlements":["pro"]},"pass":{"type":"non-renewing","term":"P7D","entitlements":["extras"]}}}"#)
        let bare = record.view(at: t + d, knownBy: nil)
        #expect(bare.entitlement(to: "pro").reason == .noPurchase)
        #expect(bare.entitlement(to: "pass").reason == .nonRenewing && bare.entitlement(to: "pass").untilMs == nil)  // no known end, never "non-consumable"
        let named = record.view(at: t + d, knownBy: nil, catalog: catalog)
        #expect(named.entitlement(to: "pro").productID == "pro.yearly")  // the one that lasts longest
        #expect(named.entitlement(to: "g1").untilMs == t + 365 * d)     // the receipt purchase joins its catalog group
        #expect(named.entitlement(to: "extras").untilMs == t + 7 * d && named.entitlement(to: "extras").reason == .nonRenewing)
        #expect(named.active.map(\.grants) == [["extras"], ["pro"], ["pro"]])
        let later = record.view(at: t + 8 * d, knownBy: nil, catalog: catalog)
        #expect(later.entitlement(to: "extras").reason == .expired)
        // A group signed in the data is the purchase's group; the catalog's does not move it.
        let other = try Self.catalog(#"{"products":{"pro.monthly":{"group":"elsewhere"}}}"#)
        #expect(record.view(at: t + d, knownBy: nil, catalog: other).entitlement(to: "elsewhere").reason == .noPurchase)
        // Hardening IV, 24: a name is matched whole, never as a prefix of a longer one, and as
        // bytes ("K" is not the Kelvin sign).
        let max = try Self.catalog(#"{"products":{"pro.monthly":{"entitlements":["pro_max","\#u{212A}ey"]}}}"#)
        let maxView = record.view(at: t + d, knownBy: nil, catalog: max)
        #expect(maxView.entitlement(to: "pro").reason == .noPurchase && maxView.entitlement(to: "pro_max").isEntitled)
        #expect(maxView.entitlement(to: "pro_").reason == .noPurchase && maxView.entitlement(to: "Key").reason == .noPurchase)
        #expect(maxView.entitlement(to: "\u{212A}ey").isEntitled)
    }

    @Test func theCatalogInEffectIsTheLastToTakeEffect() throws {
        let a = try Self.catalog(#"{"products":{"p":{"entitlements":["a"]}}}"#), b = try Self.catalog(#"{"products":{"p":{"entitlements":["b"]}}}"#)
        let all = ProductCatalogs(entries: [.init(effectiveMs: 10, declaredMs: 1, catalog: a), .init(effectiveMs: 20, declaredMs: 2, catalog: a),
                                            .init(effectiveMs: 20, declaredMs: 3, catalog: b)])
        #expect(all.effective(at: 9) == nil && all.catalog(at: 9) == .empty)
        #expect(all.catalog(at: 19) == a && all.catalog(at: 20) == b && all.catalog(at: .max) == b)
    }

    /// Hardening IV, 10, 12, 13: names checked in linear time and bounded, terms bounded to a
    /// century (an end past year 9999 no host can convert), no member named twice anywhere.
    @Test func namesTermsAndMembersAreBounded() throws {
        func names(_ n: Int, prefix: String = "e") -> String { (0..<n).map { "\"\(prefix)\($0)\"" }.joined(separator: ",") }
        let thousand = try Self.catalog(#"{"products":{"p":{"entitlements":["# + names(1000) + "]}}}")
        #expect(thousand.products["p"]?.entitlements.count == 1000 && thousand.grants("p", "e999") && !thousand.grants("p", "e1000"))
        #expect(throws: GateKitError.self) { try Self.catalog(#"{"products":{"p":{"entitlements":["# + names(1001) + "]}}}") }
        // A prefix is not a name, nor a canonically equal one ("K" and the Kelvin sign).
        let pro = try Self.catalog(#"{"products":{"p":{"entitlements":["pro_max","\#u{212A}ey"]}}}"#)
        #expect(!pro.grants("p", "pro") && pro.grants("p", "pro_max") && !pro.grants("p", "Key") && pro.grants("p", "\u{212A}ey"))
        #expect(try ProductCatalog.Term("P100Y").end(from: ProductCatalog.Term.latest - 1) == ProductCatalog.Term.latest)
        #expect(try ProductCatalog.Term("P1200M").end(from: 0) == Int64(Timestamp.days(year: 2070, month: 1, day: 1)) * 86_400_000)
        for term in ["P101Y", "P1201M", "P36526D", "P9999Y", "P100Y1M"] {
            #expect(throws: GateKitError.self, "\(term)") { try ProductCatalog.Term(term) }
        }
        for repeated in [#"{"products":{"a":{}},"products":{"b":{}}}"#, #"{"products":{"a":{"group":"g","group":"h"}}}"#,
                         #"{"correction":"x","correction":"y","products":{}}"#] {
            #expect(throws: GateKitError.self, "\(repeated)") { try Self.catalog(repeated) }
        }
    }

    /// Hardening IV, 11: a catalog that takes effect before it is declared would change answers
    /// already given; it is refused unless it says why, and the reason is kept with it.
    @Test func aBackDatedCatalogMustSayWhy() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("catalog.sqlite")))
        let d: Int64 = 86_400_000, now = Clock.nowMilliseconds()
        let plain = try Self.catalog(#"{"products":{"p":{"entitlements":["pro"]}}}"#)
        #expect(throws: GateKitError.self) { try ledger.declareCatalog(plain, effectiveMs: now - 90 * d) }
        #expect(try ledger.catalog(at: .now) == nil)  // nothing stored
        try ledger.declareCatalog(plain, effectiveMs: now + d)  // ahead of its date: nothing given changes
        try ledger.declareCatalog(plain, effectiveMs: nil)
        let corrected = try Self.catalog(#"{"correction":"purchases predate the catalog","products":{"p":{"entitlements":["pro"]}}}"#)
        try ledger.declareCatalog(corrected, effectiveMs: now - 90 * d)
        #expect(try ledger.catalog(at: .asOf(now - 80 * d))?.catalog.correction == "purchases predate the catalog")
        #expect(JSONWriter.serialize(corrected.json).hasPrefix(#"{"correction":"purchases predate the catalog","products""#))
        #expect(throws: GateKitError.self) { try Self.catalog(#"{"correction":"","products":{}}"#) }
    }

    /// Hardening IV, 10: each stored catalog is parsed once per handle, however often writes
    /// drop the other caches (an 8,000-name catalog made every ingestion take 3.4 s).
    @Test func aStoredCatalogIsParsedOnce() throws {
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("parsed.sqlite")))
        try ledger.declareCatalog(try Self.catalog(#"{"products":{"p":{"entitlements":["pro"]}}}"#), effectiveMs: nil)
        #expect(try ledger.catalog(at: .now)?.catalog.grants("p", "pro") == true)
        let ids = ledger.parsedCatalogs.withLock { Array($0.keys) }
        #expect(ids.count == 1)
        // What this handle parsed is what it answers from, after writes too: the row is not parsed again.
        let marked = try Self.catalog(#"{"products":{"p":{"entitlements":["kept"]}}}"#)
        ledger.parsedCatalogs.withLock { $0[ids[0]] = marked }
        try ledger.declareCatalog(try Self.catalog(#"{"products":{"q":{}}}"#), effectiveMs: Clock.nowMilliseconds() + 86_400_000)
        #expect(try ledger.catalog(at: .now)?.catalog == marked)
        #expect(ledger.parsedCatalogs.withLock { $0.count } == 2)
    }
}
