import Testing
@testable import GateKitCrypto
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitStore
@testable import GateKitSupport

/// The rule table of `LedgerLivesTests` answered by the ledger's model alone: the same lives
/// built by hand as `TransactionVersion`s and `RenewalVersion`s (no JWS, no store, no Apple
/// field name), then checked against what Apple's adapter makes of Apple's signed lives. And a
/// store that is not Apple — ids, pauses and an account hold Apple never sends — answered by
/// the same rules.
@Suite struct LedgerModelLivesTests {
    typealias Lives = LedgerLivesTests
    static let (d, m, t0) = (Lives.day, Lives.month, Lives.t0)

    /// The builder of one life's versions, in the model's words.
    struct Life {
        let original: String
        var token: String? = nil
        var group: String? = "20000001"
        var transactions: [TransactionVersion] = []
        var renewals: [RenewalVersion] = []

        @discardableResult
        mutating func buy(_ id: String, _ product: String, purchase: Int64, expires: Int64? = nil, signed: Int64? = nil,
                          type: ProductType = .autoRenewable, original: String? = nil, family: Bool = false, offer: Offer? = nil,
                          sale: TransactionVersion.Sale = .none) -> TransactionVersion {
            let v = TransactionVersion(
                transactionID: id, purchaseID: original ?? self.original, appAccountToken: token, productID: product,
                groupID: type == .autoRenewable ? group : nil, productType: type, familyShared: family, purchaseMs: purchase,
                originalPurchaseMs: purchase, expiresMs: expires, revocationMs: nil, revocationReason: nil, isUpgraded: false,
                offer: offer, vouchedMs: signed ?? purchase, identity: Life.identity("\(id)@\(signed ?? purchase)"), sale: sale)
            transactions.append(v)
            return v
        }

        /// `v` signed again at `signed`, changed by `change`.
        mutating func resign(_ v: TransactionVersion, at signed: Int64, _ change: (inout TransactionVersion) -> Void) {
            var again = v
            again.vouchedMs = signed
            again.identity = Life.identity("\(v.transactionID)@\(signed)")
            change(&again)
            transactions.append(again)
        }

        mutating func intent(_ signed: Int64, _ product: String, to next: String? = nil, renews: Bool = true, retry: Bool = false,
                             grace: Int64? = nil, cause: ExpirationCause? = nil, pausedUntil: Int64? = nil) {
            renewals.append(RenewalVersion(
                purchaseID: original, productID: product, autoRenewProductID: next ?? product, willAutoRenew: renews,
                isInBillingRetryPeriod: retry, gracePeriodExpiresMs: grace, expirationCause: cause, renewalMs: signed,
                pausedUntilMs: pausedUntil, vouchedMs: signed, identity: Life.identity("\(original)/intent@\(signed)")))
        }

        /// A stable identity in the store's shape (hex of 32 bytes), as a replay hash would be.
        static func identity(_ seed: String) -> String { Hex.encode((try? Digest.hash(.sha256, Array(seed.utf8))) ?? []) }
    }

    /// The lives of `LedgerLivesTests.build`, version for version.
    static func lives() -> [Life] {
        let (d, m, t0) = (d, m, t0)
        let (up, down, renewal, cross) = (Lives.up, Lives.down, Lives.renewal, Lives.cross)
        var year = Life(original: "1000", token: Lives.yearToken)
        for month in 0..<12 {
            var purchase = t0 + Int64(month) * m
            let id = "10" + (month < 10 ? "0\(month)" : "\(month)")
            if month == 6 {
                year.intent(purchase + 1000, "pro.monthly", retry: true, grace: purchase + 16 * d, cause: .billingError)
                purchase += 5 * d
                year.buy(id, "pro.monthly", purchase: purchase, expires: purchase + m - 5 * d)
            } else {
                year.buy(id, "pro.monthly", purchase: purchase, expires: purchase + m)
            }
            year.intent(purchase + 1000, "pro.monthly")
        }

        var retry = Life(original: "2000")
        retry.buy("2001", "basic.monthly", purchase: t0, expires: t0 + m)
        retry.intent(t0 + 1000, "basic.monthly")
        retry.intent(t0 + m + 1000, "basic.monthly", retry: true, cause: .billingError)
        retry.intent(t0 + m + 60 * d, "basic.monthly", renews: false, cause: .billingError)

        var refund = Life(original: "3000", group: nil)
        let lifetime = refund.buy("3000", "lifetime", purchase: t0, type: .nonConsumable)
        refund.resign(lifetime, at: t0 + 10 * d) { $0.revocationMs = t0 + 10 * d; $0.revocationReason = .other }
        refund.resign(lifetime, at: t0 + 9 * d) { _ in }
        refund.resign(lifetime, at: t0 + 20 * d) { _ in }

        var family = Life(original: "4000")
        let shared = family.buy("4001", "family.yearly", purchase: t0, expires: t0 + 12 * m, family: true)
        family.intent(t0 + 1000, "family.yearly")
        family.resign(shared, at: t0 + 3 * m) { $0.revocationMs = t0 + 3 * m; $0.revocationReason = .other }

        var tiers = Life(original: "5000", group: "30000001")
        let basic = tiers.buy("5001", "basic.monthly.t", purchase: t0, expires: t0 + m)
        tiers.intent(t0 + 1000, "basic.monthly.t")
        tiers.resign(basic, at: up) { $0.isUpgraded = true }
        tiers.buy("5002", "pro.monthly.t", purchase: up, expires: up + m)
        tiers.intent(up + 1000, "pro.monthly.t")
        tiers.intent(down, "pro.monthly.t", to: "basic.monthly.t")
        let back = tiers.buy("5003", "basic.monthly.t", purchase: renewal, expires: renewal + m)
        tiers.intent(renewal + 1000, "basic.monthly.t")
        tiers.resign(back, at: cross) { $0.isUpgraded = true }
        tiers.buy("5004", "basic.yearly.t", purchase: cross, expires: cross + 12 * m)
        tiers.intent(cross + 1000, "basic.yearly.t")

        var extended = Life(original: "6000")
        let news = extended.buy("6001", "news.monthly", purchase: t0, expires: t0 + m)
        extended.intent(t0 + 1000, "news.monthly")
        extended.resign(news, at: t0 + 20 * d) { $0.expiresMs = t0 + m + 7 * d }
        extended.buy("6100", "coins.100", purchase: t0 + d, type: .consumable, original: "6100")
        return [year, retry, refund, family, tiers, extended]
    }

    /// A customer's record as the store reads it: an app account token's (every version, the
    /// token deciding which count) or one subscription's (original transaction id).
    static func record(_ customer: String, _ lives: [Life]) -> CustomerRecord {
        let transactions = lives.flatMap(\.transactions), renewals = lives.flatMap(\.renewals)
        if LedgerCustomer.normalizedToken(customer) != nil {
            return CustomerRecord(transactions: transactions, renewals: renewals, token: customer)
        }
        return CustomerRecord(transactions: transactions.filter { $0.purchaseID == customer },
                              renewals: renewals.filter { $0.purchaseID == customer })
    }

    @Test func everyRowOfTheTableFromTheModelAlone() {
        let lives = Self.lives()
        for e in Lives.table {
            // As of the row's instant: what the store had signed by then (`LedgerInstant.asOf`).
            let got = Self.record(e.customer, lives).view(at: e.at, knownBy: e.at).entitlement(to: e.subject)
            #expect(got.reason.name == e.reason, "\(e.customer) \(e.subject) at \(e.at)")
            if let until = e.until { #expect(got.untilMs == until, "until: \(e.customer) \(e.subject) at \(e.at)") }
            if let status = e.status { #expect(got.status?.rawValue == status, "status: \(e.customer) \(e.subject) at \(e.at)") }
        }
    }

    /// Apple's adapter maps Apple's signed lives onto exactly these versions: ingested, then
    /// read back from the store, each subscription holds the hand-built versions (the instant
    /// of signing, not the identity — a replay hash there; nor the sale, which the fixtures'
    /// payload shapes fill).
    @Test func applesAdapterMakesTheseVersionsOfApplesLives() throws {
        guard let (_, _, order, options) = try Lives.shuffled(seed: 3, repeatEvery: 4) else { return }
        let folder = TemporaryFolder()
        let ledger = Ledger(store: try TestStores.open(folder.file("adapter.sqlite")))
        try Lives.ingest(order, into: ledger, options: options)
        func comparable(_ v: TransactionVersion) -> TransactionVersion {
            var v = v
            (v.identity, v.sale) = ("", .none)
            return v
        }
        func comparable(_ r: RenewalVersion) -> RenewalVersion {
            var r = r
            r.identity = ""
            return r
        }
        let scope = LedgerScope(environment: .sandbox, testData: true)
        let lives = Self.lives()
        let originals = Set(lives.flatMap { $0.transactions.map(\.purchaseID) })
        #expect(originals.count == 7)
        for original in originals.sorted() {
            let stored = try ledger.store.read { (db) throws(GateKitError) in
                try LedgerRows.record(db, customer: .purchaseID(original), scope: scope, copy: 0)
            }
            let built = Self.record(original, lives)
            let order = { (a: TransactionVersion, b: TransactionVersion) in (a.transactionID, a.vouchedMs) < (b.transactionID, b.vouchedMs) }
            #expect(stored.transactions.map(comparable).sorted(by: order) == built.transactions.map(comparable).sorted(by: order), "\(original)")
            #expect(stored.renewals.map(comparable).sorted { $0.vouchedMs < $1.vouchedMs } == built.renewals.map(comparable), "\(original)")
        }
    }

    /// A store that is not Apple: a purchase token for the subscription, order ids for its
    /// periods, a free trial, an account hold (billing retry without grace), a grace period, a
    /// pause, a cancellation and a prorated refund; and one-time products. The model's rules
    /// answer it as they answer Apple's.
    @Test func aStoreThatIsNotAppleAnswersByTheSameRules() {
        let (d, m, t0) = (Self.d, Self.m, Self.t0)
        var life = Life(original: "play:token-7f3a", token: "0f8c1a4e-2b6d-4c3e-9a7b-5d1e2f3a4b5c", group: "premium")
        life.buy("GPA.3301-0000-0000-00000", "premium.monthly", purchase: t0, expires: t0 + 7 * d, offer: .introductory,
                 sale: TransactionVersion.Sale(price: 0, currency: "EUR", trial: true))
        life.intent(t0, "premium.monthly")
        life.buy("GPA.3301-0000-0000-00000..0", "premium.monthly", purchase: t0 + 7 * d, expires: t0 + 7 * d + m)
        let lapse = t0 + 7 * d + m
        life.intent(lapse, "premium.monthly", retry: true)                                     // account hold: no access
        life.buy("GPA.3301-0000-0000-00000..1", "premium.monthly", purchase: lapse + 3 * d, expires: lapse + 3 * d + m)
        let second = lapse + 3 * d + m
        life.intent(lapse + 3 * d, "premium.monthly")
        life.intent(second, "premium.monthly", retry: true, grace: second + 5 * d)            // grace: access
        life.intent(second + 2 * d, "premium.monthly", pausedUntil: second + 2 * d + m)      // paused after it
        let resumed = second + 2 * d + m
        let last = life.buy("GPA.3301-0000-0000-00000..2", "premium.monthly", purchase: resumed, expires: resumed + m)
        life.intent(resumed, "premium.monthly")
        life.intent(resumed + 10 * d, "premium.monthly", renews: false, cause: .customerCancelled)
        life.resign(last, at: resumed + 20 * d) {
            $0.revocationMs = resumed + 20 * d
            $0.sale = TransactionVersion.Sale(price: 4_990, currency: "EUR", refund: .prorated, revocationPercentage: 33_000)
        }
        life.buy("GPA.3302-0000-0000-00000", "remove.ads", purchase: t0 + d, type: .nonConsumable, original: "play:token-81b2")
        life.buy("GPA.3303-0000-0000-00000", "gems.500", purchase: t0 + d, type: .consumable, original: "play:token-92c4")

        let record = CustomerRecord(transactions: life.transactions, renewals: life.renewals, token: life.token)
        func answer(_ subject: String, at: Int64) -> Entitlement { record.view(at: at, knownBy: at).entitlement(to: subject) }
        let expected: [(String, Int64, Entitlement.Reason, SubscriptionStatus?, Int64?)] = [
            ("premium", t0 + d, .subscription, .active, t0 + 7 * d),                            // the trial
            ("premium.monthly", lapse - d, .subscription, .active, lapse),
            ("premium", lapse + d, .billingRetry, .billingRetry, nil),                          // held
            ("premium", second + d, .gracePeriod, .billingGracePeriod, second + 5 * d),
            ("premium", second + 10 * d, .paused, .paused, nil),
            ("premium", resumed + 5 * d, .subscription, .active, resumed + m),
            ("premium", resumed + 15 * d, .subscription, .active, resumed + m),                 // cancelled: to its end
            ("premium", resumed + 25 * d, .revoked, .revoked, nil),
            ("remove.ads", t0 + 2 * d, .nonConsumable, nil, nil),
            ("gems.500", t0 + 2 * d, .consumable, nil, nil),
        ]
        for (subject, at, reason, status, until) in expected {
            let got = answer(subject, at: at)
            #expect(got.reason == reason && got.status == status && got.untilMs == until, "\(subject) at \(at): \(got.reason.name)")
        }
        // Known now, asked before the first purchase: not yet purchased.
        #expect(record.view(at: t0 - d, knownBy: nil).entitlement(to: "premium").reason == .notYetPurchased)
        // Paused, then the pause ends without a new period yet: expired, awaiting the renewal
        // the store owes (it bills when the pause ends).
        let stillPaused = CustomerRecord(transactions: Array(life.transactions.prefix(3)), renewals: Array(life.renewals.prefix(5)), token: life.token)
        let afterPause = stillPaused.view(at: resumed + d, knownBy: nil).entitlement(to: "premium")
        #expect(afterPause.reason == .expired && afterPause.awaitsRenewal)
        // The trial spent the group's introductory offer; another group's is still open.
        #expect(!record.view(at: t0 + d, knownBy: nil).isEligibleForIntroductoryOffer(group: "premium"))
        #expect(record.view(at: t0 + d, knownBy: nil).isEligibleForIntroductoryOffer(group: "other"))
    }

    /// The store's rows keep every fact of the model, whichever store it came from: the
    /// non-Apple life written with the ledger's own writes and read back is the same record.
    @Test func theStoresRowsKeepEveryFactOfTheModel() throws {
        var life = Life(original: "play:token-1", token: "0f8c1a4e-2b6d-4c3e-9a7b-5d1e2f3a4b5c", group: "premium")
        let (d, m, t0) = (Self.d, Self.m, Self.t0)
        let bought = life.buy("GPA.1", "premium.monthly", purchase: t0, expires: t0 + m, family: true, offer: .winBack,
                              sale: TransactionVersion.Sale(price: 4_990, currency: "EUR", storefront: "DEU", trial: false))
        life.resign(bought, at: t0 + d) {
            ($0.revocationMs, $0.revocationReason, $0.isUpgraded) = (t0 + d, .appIssue, true)
            $0.sale.refund = .prorated
            $0.sale.revocationPercentage = 12_500
        }
        life.intent(t0 + 2 * d, "premium.monthly", to: "premium.yearly", renews: false, retry: true, grace: t0 + 3 * d,
                    cause: .declinedPriceIncrease, pausedUntil: t0 + 40 * d)
        life.buy("GPA.2", "lifetime", purchase: t0, type: .nonConsumable, original: "play:token-1")
        let scope = LedgerScope(environment: .sandbox, testData: true)
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("model.sqlite"))
        try store.write { (db) throws(GateKitError) in
            var writes = LedgerWrites(db.dialect)
            for (n, v) in life.transactions.enumerated() {
                let item = Ledger.PendingItem(kind: .transaction, scope: scope, appID: "com.example", identity: v.identity,
                                              vouchedMs: v.vouchedMs, header: nil, body: "{}")
                try writes.addItem(item, id: Int64(n + 1), outcome: .new, header: nil, now: 1)
                try writes.add(v, scope: scope, item: Int64(n + 1), header: nil, body: nil)
            }
            for (n, r) in life.renewals.enumerated() {
                let id = Int64(100 + n)
                let item = Ledger.PendingItem(kind: .renewalInfo, scope: scope, appID: "com.example", identity: r.identity,
                                              vouchedMs: r.vouchedMs, header: nil, body: "{}")
                try writes.addItem(item, id: id, outcome: .new, header: nil, now: 1)
                try writes.add(r, scope: scope, item: id, header: nil, body: nil)
            }
            try writes.flush(db)
        }
        let read = try store.read { (db) throws(GateKitError) in
            try LedgerRows.record(db, customer: .purchaseID("play:token-1"), scope: scope, copy: 0)
        }
        let sold = try store.read { (db) throws(GateKitError) -> [TransactionVersion] in
            let s = try db.statement("SELECT \(SaleColumns.versionColumns) FROM ledger_transactions ORDER BY transaction_id, signed_ms")
            defer { s.reset() }
            var out: [TransactionVersion] = []
            while try s.step() { out.append(SaleColumns.version(s)) }
            return out
        }
        let order = { (a: TransactionVersion, b: TransactionVersion) in (a.transactionID, a.vouchedMs) < (b.transactionID, b.vouchedMs) }
        #expect(sold == life.transactions.sorted(by: order))
        #expect(read.transactions.map(\.identity).sorted() == life.transactions.map(\.identity).sorted())
        #expect(read.renewals == life.renewals)
    }

    /// Hardening V (per-ingest cost): recording reads only the versions a compacted record keeps
    /// (`LedgerRows.compactedRecord`, index seeks in SQL), and what it reads answers exactly as
    /// the whole record does: random versions of App Store and Play subscriptions — ties in the
    /// signing instant, tokens given, moved and dropped, refunds and Play revocations, versions
    /// without a group — written with the ledger's own writes, read both ways on this backend.
    @Test func theCompactedReadKeepsWhatTheWholeRecordAnswers() throws {
        let (d, t0) = (Self.d, Self.t0)
        let scope = LedgerScope(environment: .sandbox, testData: true)
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("compacted.sqlite"))
        let tokens: [String?] = [nil, "1f0e9a2c-0000-4000-8000-000000000001", "1f0e9a2c-0000-4000-8000-000000000002"]
        var random = SystemRandomNumberGenerator()
        var originals: [String] = []
        var counter = 0
        let identity = { (n: Int) in String(repeating: "0", count: 64 - String(n, radix: 16).count) + String(n, radix: 16) }
        try store.write { (db) throws(GateKitError) in
            var writes = LedgerWrites(db.dialect)
            for round in 0..<60 {
                let play = round % 2 == 1
                // Every sixth subscription has more versions than `.first` reads: compactedRecord
                // then reads only what it keeps.
                let versions = round % 6 == 5 ? LedgerRows.fewVersions + 6 : Int.random(in: 1...14, using: &random)
                let original = play ? "play:round-\(round)" : String(7_000_000 + round)
                originals.append(original)
                for i in 0..<versions {
                    counter += 1
                    var v = LedgerModelTests.tx((play ? "GPA.\(round)." : "\(round)0") + String(Int.random(in: 1...3, using: &random)), original: original,
                                                group: Bool.random(using: &random) ? "g1" : nil, purchase: t0 + Int64(i) * d, expires: t0 + Int64(i + 30) * d,
                                                signed: t0 + Int64.random(in: 0...4, using: &random) * d,
                                                revoked: Int.random(in: 0...3, using: &random) == 0 ? t0 + Int64.random(in: 0...6, using: &random) * d : nil,
                                                identity: identity(counter))
                    v.appAccountToken = tokens.randomElement(using: &random) ?? nil
                    if play { v.store = .play }
                    let id = Int64(counter)
                    let item = Ledger.PendingItem(kind: .transaction, scope: scope, appID: "com.example", identity: v.identity,
                                                  vouchedMs: v.vouchedMs, header: nil, body: "{}")
                    try writes.addItem(item, id: id, outcome: .new, header: nil, now: 1)
                    try writes.add(v, scope: scope, item: id, header: nil, body: nil)
                }
                for i in 0..<Int.random(in: 0...4, using: &random) {
                    counter += 1
                    let r = LedgerModelTests.renewal(original: original, signed: t0 + Int64.random(in: 0...3, using: &random) * d, retry: i % 2 == 1,
                                                     identity: identity(counter))
                    let item = Ledger.PendingItem(kind: .renewalInfo, scope: scope, appID: "com.example", identity: r.identity,
                                                  vouchedMs: r.vouchedMs, header: nil, body: "{}")
                    try writes.addItem(item, id: Int64(counter), outcome: .new, header: nil, now: 1)
                    try writes.add(r, scope: scope, item: Int64(counter), header: nil, body: nil)
                }
            }
            try writes.flush(db)
            // The product's group, as ingestion records it (on PostgreSQL ahead of the item).
            try db.statement("INSERT INTO ledger_products(environment, test_signed, product_id, group_id) VALUES (?1, ?2, 'pro', 'g1') ON CONFLICT DO NOTHING")
                .bind(1, text: scope.environment).bind(2, scope.testFlag).run()
        }
        try store.read { (db) throws(GateKitError) in
            for original in originals {
                let whole = try LedgerRows.record(db, customer: .purchaseID(original), scope: scope)
                // Both reads: the one recording uses, and the seeks alone (what it falls back to).
                for read in [try LedgerRows.compactedRecord(db, original: original, scope: scope),
                             try LedgerRows.record(db, customer: .purchaseID(original), scope: scope, versions: .compactable).compacted()] {
                    #expect(Set(read.transactions.map(\.identity)).isSubset(of: whole.transactions.map(\.identity)))
                    let (a, b) = (whole.current(knownBy: nil), read.current(knownBy: nil))
                    #expect(a.transactions == b.transactions, "\(original)")
                    #expect(a.renewals == b.renewals, "\(original)")
                    for at in [t0, t0 + 10 * d, t0 + 45 * d] {
                        #expect(whole.view(at: at, knownBy: nil).entitlement(to: "g1") == read.view(at: at, knownBy: nil).entitlement(to: "g1"))
                    }
                }
            }
        }
    }
}

extension LedgerModelLivesTests {
    static let schema13Rows: [(table: String, columns: [String])] = LedgerMetricsTests.previousRows + [
        ("ledger_renewals", ["#id", "environment", "#test_signed", "original_transaction_id", "product_id", "auto_renew_product_id",
                             "#auto_renew_status", "#is_in_billing_retry", "#grace_period_expires_ms", "#expiration_intent", "#renewal_ms",
                             "#signed_ms", "identity", "#item_id", "#header_id", "body"]),
    ]

    /// Migration 14 from the previous version: Apple's lives as a store of schema 13 holds them
    /// gain the pause column (NULL: Apple has no pause), read back as the same versions, and
    /// answer the table; the older schema then refuses the store.
    @Test func aStoreOfSchema13GainsThePauseColumn() throws {
        guard let (_, table, order, options) = try Lives.shuffled(seed: 5, repeatEvery: 7) else { return }
        let folder = TemporaryFolder()
        let current = Ledger(store: try TestStores.open(folder.file("current.sqlite")))
        try Lives.ingest(order, into: current, options: options)
        let (path, appID) = TestStores.previous(in: folder, "ledger-pauses-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(13)))
        do {
            let old = try Store(schema: previous, path: path, appID: appID)
            try TestStores.copy(Self.schema13Rows, from: current.store, to: old)
        }
        let upgraded = Ledger(store: try Store(schema: .gatekit, path: path, appID: appID))
        let scope = LedgerScope(environment: .sandbox, testData: true)
        for original in ["1000", "2000", "5000"] {
            let read = { (ledger: Ledger) throws -> [RenewalVersion] in
                try ledger.store.read { (db) throws(GateKitError) in
                    try LedgerRows.record(db, customer: .purchaseID(original), scope: scope, copy: 0).renewals
                }.sorted { $0.vouchedMs < $1.vouchedMs }
            }
            let (renewals, held) = (try read(upgraded), try read(current))
            #expect(!renewals.isEmpty && renewals == held && renewals.allSatisfy { $0.pausedUntilMs == nil }, "\(original)")
        }
        for e in table {
            let got = try upgraded.entitlement(customer: e.customer, to: e.subject, scope: scope, at: .asOf(e.at))
            #expect(got.reason.name == e.reason, "\(e.customer) \(e.subject) at \(e.at)")
        }
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }
}
