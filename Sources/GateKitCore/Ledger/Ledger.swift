import GateKitStore
import GateKitSupport

/// The entitlement ledger over a store: ingests signed data it verifies itself (Apple/AppleIngest, LedgerRecording)
/// and answers "is this customer entitled now, and why?" from every version Apple signed, in
/// any arrival order (docs/ledger.md).
///
/// A customer is an app account token (a UUID) or an original transaction id (`LedgerCustomer`);
/// a token stands for every original transaction id whose newest version carries it. Answers
/// are computed by `LedgerView` from the customer's versions, which are cached per handle until the store changes (this
/// handle's writes, or another connection's commits seen through `PRAGMA data_version`).
public final class Ledger: @unchecked Sendable {
    public let store: Store
    // Guarded by the store's lock: only touched inside `store.read` / `store.write`. That lock
    // makes each access exclusive, so the dynamic exclusivity check (which the module boundary
    // to the Store no longer lets the compiler prove away) is skipped.
    @exclusivity(unchecked) private var records: [CacheKey: Cached] = [:]
    /// Per environment: does the store hold any test-signed item? Forgotten with `records`.
    @exclusivity(unchecked) private var testSignedData: [String: Bool] = [:]
    /// The host's catalogs, read once; forgotten with `records`.
    @exclusivity(unchecked) private var catalogs: ProductCatalogs?
    /// Each stored catalog parsed once (`CatalogRows.all`): kept across the caches' resets.
    let parsedCatalogs = Locked<[Int64: ProductCatalog]>([:])
    private let probe: any ChangeProbe
    /// Shared rows known committed (PostgreSQL: `storeSharedRowsAhead`), and the app this
    /// handle saw the store's ledger bound to.
    let committedShared = Locked(CommittedShared())
    let boundApp = Locked<[PurchaseStore: String]>([:])

    /// A customer's versions, and their current versions (what "now" questions read). A
    /// class: a warm question takes it out of the cache with one reference count, not one per
    /// array inside.
    final class Cached: Sendable {
        let record: CustomerRecord
        let current: CurrentVersions

        init(record: CustomerRecord, current: CurrentVersions) {
            self.record = record
            self.current = current
        }
    }

    /// What a question reads: the customer's versions and the host's catalogs.
    struct Known {
        let cached: Cached
        let catalogs: ProductCatalogs
    }

    /// Customers kept in the cache; past it the cache starts over (hosts asking about many
    /// customers once each gain nothing from keeping them).
    static let cachedCustomers = 4096
    /// Longest customer string accepted (app account tokens are UUIDs, transaction ids digits).
    public static let maximumCustomerLength = 256
    /// An instant this close to the clock (before it) is "now": the host's own reading of the
    /// clock, taken just before the call, must not lose a version Apple signed "ahead" of it.
    public static let nowWindowMs: Int64 = 2_000
    public static let maximumFilterLength = 1024

    /// The customer compared byte for byte, as the store compares (`LedgerCustomer`'s own
    /// equality: Swift's String equality is canonical equivalence, the store's is not).
    struct CacheKey: Hashable {
        let scope: LedgerScope
        let customer: LedgerCustomer
    }

    public init(store: Store) {
        self.store = store
        probe = store.makeChangeProbe()
    }

    package static func validate(customer: String) throws(GateKitError) {
        guard !customer.isEmpty, customer.utf8.count <= maximumCustomerLength else {
            throw .invalid("customer must be 1 to \(maximumCustomerLength) bytes (an app account token or an original transaction id)")
        }
    }

    static func validate(filter: String, name: String) throws(GateKitError) {
        guard !filter.isEmpty, filter.utf8.count <= maximumFilterLength else {
            throw .invalid("\(name) must be 1 to \(maximumFilterLength) bytes")
        }
    }

    /// In one read (one lock): a question's warm path costs no more for the catalog.
    private func known(customer: String, scope: LedgerScope) throws(GateKitError) -> Known {
        try Ledger.validate(customer: customer)
        return try store.read { (db) throws(GateKitError) -> Known in
            // Another connection's commit (a memory read of the WAL-index header when none).
            if try probe.changed() || records.count >= Ledger.cachedCustomers {
                records.removeAll(keepingCapacity: true)
                testSignedData.removeAll()
                catalogs = nil
            }
            let known = try loadedCatalogs(db)
            let key = CacheKey(scope: scope, customer: LedgerCustomer(customer))
            if let cached = records[key] { return Known(cached: cached, catalogs: known) }
            let record = try LedgerRows.record(db, customer: key.customer, scope: scope)
            let cached = Cached(record: record, current: record.current(knownBy: nil))
            records[key] = cached
            return Known(cached: cached, catalogs: known)
        }
    }

    /// Called inside every write of this handle: its own commits do not move data_version.
    func forgetRecords() {
        records.removeAll(keepingCapacity: true)
        testSignedData.removeAll()
        catalogs = nil
    }

    /// The catalogs, read once until the store changes (inside `store.read`).
    func loadedCatalogs(_ db: any DatabaseConnection) throws(GateKitError) -> ProductCatalogs {
        if let kept = catalogs { return kept }
        let read = try CatalogRows.all(db, parsed: parsedCatalogs)
        catalogs = read
        return read
    }

    /// Sends the catalogs' read ahead unless they are loaded (`DatabaseStatement.prefetch`).
    func prefetchCatalogs(_ db: any DatabaseConnection) throws(GateKitError) {
        if catalogs == nil { try CatalogRows.prefetch(db) }
    }

    /// Declares the host's products (`ProductCatalog`), in effect from `effectiveMs` (nil:
    /// now). Catalogs are kept, never replaced: answers as of an earlier instant keep the
    /// catalog in effect then.
    /// Returns what the declaration changes (`CatalogReport`); `checkOnly`: only that, nothing declared.
    @discardableResult
    public func declareCatalog(_ catalog: ProductCatalog, effectiveMs: Int64?, checkOnly: Bool = false) throws(GateKitError) -> CatalogReport {
        if let effectiveMs, effectiveMs < 0 { throw .invalid("effective_ms is negative") }
        let now = Clock.nowMilliseconds()
        if let effectiveMs, effectiveMs < now - Ledger.nowWindowMs, catalog.correction == nil {
            throw .invalid("the catalog would take effect at \(Timestamp.rfc3339Milliseconds(effectiveMs)), before it is declared: answers "
                           + "already given as of the instants between would change. To do so on purpose, say why in the document "
                           + "(\"correction\": \"…\"): it is kept with the catalog")
        }
        let effective = effectiveMs ?? now
        // The plans' keys known now, if it names any by key: the report is of the purchases held now.
        func keys(_ db: any DatabaseConnection) throws(GateKitError) -> [LookupKey] {
            catalog.lookupKeys.isEmpty ? [] : try LookupKeyRows.all(db)
        }
        if checkOnly {
            return try store.read { (db) throws(GateKitError) -> CatalogReport in
                CatalogReport.of(before: try currentCatalogs(db).catalog(at: effective), after: catalog, purchased: try CatalogReport.purchasedProducts(db),
                                 lookupKeys: try keys(db), declared: false, effectiveMs: effective)
            }
        }
        return try store.write(.wholeStore) { (db) throws(GateKitError) -> CatalogReport in
            // The products whose terms may change then: the change feed looks at them again at that instant.
            let before = try loadedCatalogs(db).catalog(at: effective)
            let report = CatalogReport.of(before: before, after: catalog, purchased: try CatalogReport.purchasedProducts(db),
                                          lookupKeys: try keys(db), declared: true, effectiveMs: effective)
            try CatalogRows.append(db, catalog, effectiveMs: effective, declaredMs: now)
            forgetRecords()
            try ChangeFeedRows.revisit(db, products: Set(before.products.keys).union(catalog.products.keys), at: max(effective, now))
            return report
        }
    }

    /// The catalog in effect at the instant (nil when none was declared by then).
    public func catalog(at instant: LedgerInstant) throws(GateKitError) -> ProductCatalogs.Entry? {
        try store.read { (db) throws(GateKitError) -> ProductCatalogs in try currentCatalogs(db) }.effective(at: instant.at)
    }

    /// The catalogs as the store holds them now (inside `store.read`): another connection's
    /// declaration is seen.
    func currentCatalogs(_ db: any DatabaseConnection) throws(GateKitError) -> ProductCatalogs {
        if try probe.changed() { forgetRecords() }
        return try loadedCatalogs(db)
    }

    /// Whether the store holds test-signed data in the environment: one indexed lookup, kept
    /// until the store changes, so a store of App Store data alone never pays for
    /// `only-test-signed` (asked right after `cached`, which consulted the change probe).
    private func holdsTestSignedData(_ environment: String) throws(GateKitError) -> Bool {
        try store.read { (db) throws(GateKitError) -> Bool in
            if let known = testSignedData[environment] { return known }
            let s = try db.statement("SELECT COUNT(*) FROM (SELECT 1 FROM ledger_items WHERE environment = ?1 AND test_signed = 1 LIMIT 1) AS any_item")
            defer { s.reset() }
            s.bind(1, text: environment)
            let holds = try s.step() && s.int64(0) > 0
            testSignedData[environment] = holds
            return holds
        }
    }

    /// Whether every item of the environment is test-signed (and there is one): metrics and the
    /// report of App Store data then say so, rather than show zeros without a hint.
    package func holdsOnlyTestSignedData(_ scope: LedgerScope) throws(GateKitError) -> Bool {
        guard !scope.testData, try holdsTestSignedData(scope.environment) else { return false }
        return try store.read { (db) throws(GateKitError) -> Bool in
            let s = try db.statement("SELECT COUNT(*) FROM (SELECT 1 FROM ledger_items WHERE environment = ?1 AND test_signed = 0 LIMIT 1) AS any_item")
            defer { s.reset() }
            s.bind(1, text: scope.environment)
            return try s.step() && s.int64(0) == 0
        }
    }

    /// `excluding`: subscriptions (original transaction ids, as bytes) left out — those another
    /// app account holds, for a question by app account.
    public func view(customer: String, scope: LedgerScope, at instant: LedgerInstant,
                     excluding: Set<[UInt8]> = []) throws(GateKitError) -> LedgerView {
        let known = try known(customer: customer, scope: scope)
        let cached = known.cached
        let at = instant.at
        let catalog = known.catalogs.catalog(at: at)
        switch instant {
        case .now: return LedgerView(at: at, current: cached.current.excluding(excluding), catalog: catalog)
        case let .asOf(ms):
            // Now (within `nowWindowMs`: a host reads its clock before the call) or later: from
            // everything known, exactly as `.now` answers (a version Apple signed a moment "in
            // the future" by this clock counts in both).
            if ms >= Clock.nowMilliseconds() - Ledger.nowWindowMs {
                return LedgerView(at: ms, current: cached.current.excluding(excluding), catalog: catalog)
            }
            return LedgerView(at: ms, current: cached.record.current(knownBy: ms).excluding(excluding), catalog: catalog)
        }
    }

    /// The customer's versions as this handle holds them (for who holds each subscription).
    func record(customer: String, scope: LedgerScope) throws(GateKitError) -> CustomerRecord {
        try known(customer: customer, scope: scope).cached.record
    }

    /// Entitlement to a product id, a subscription group id or a catalog entitlement name.
    /// `naming`: fill `grants` (the answer's JSON shows them; the yes/no fast path skips it).
    public func entitlement(customer: String, to filter: String, scope: LedgerScope, at instant: LedgerInstant,
                            naming: Bool = true, excluding: Set<[UInt8]> = []) throws(GateKitError) -> Entitlement {
        try Ledger.validate(filter: filter, name: "product_or_group")
        let view = try view(customer: customer, scope: scope, at: instant, excluding: excluding)
        let answer = view.entitlement(to: filter, naming: naming)
        guard answer.reason == .noPurchase else { return answer }
        // "No purchase" where test-signed data would answer otherwise: say so, so a test that
        // forgot the test flag is not told the customer bought nothing.
        if !scope.testData, try holdsTestSignedData(scope.environment),
           try self.view(customer: customer, scope: scope.testSignedPart, at: instant, excluding: excluding).entitlement(to: filter).reason != .noPurchase {
            return Entitlement(reason: .onlyTestSigned)
        }
        let named = Ledger.named(answer, filter: filter, catalog: view.catalog)
        // An id the ledger has never seen is not a customer who bought nothing (a wrong id, a
        // wrong environment): said apart, as it is for an app account no customer is linked to.
        guard named.reason == .noPurchase, try !hasSeen(customer: customer, scope: scope, at: instant) else { return named }
        if !scope.testData, try holdsTestSignedData(scope.environment), try hasSeen(customer: customer, scope: scope.testSignedPart, at: instant) {
            return named
        }
        return Entitlement(reason: .unknownCustomer)
    }

    /// Whether any version known by the instant names the customer (its original transaction
    /// id, or an app account token it carried, even one Apple moved away since): a customer
    /// first seen later was unknown then.
    func hasSeen(customer: String, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> Bool {
        let record = try record(customer: customer, scope: scope)
        guard let knownBy = Ledger.linkInstant(instant) else { return !record.transactions.isEmpty }
        return record.transactions.contains { $0.vouchedMs <= knownBy }
    }

    /// A no-purchase answer about a name the catalog in effect does not know is a typo, not a
    /// non-customer ("por" for "pro"): `unknownName`, with the nearest name the catalog knows.
    /// Without a declared catalog every name may be a product id, and the answer stands.
    static func named(_ answer: Entitlement, filter: String, catalog: ProductCatalog) -> Entitlement {
        guard answer.reason == .noPurchase, !catalog.isEmpty, !catalog.knows(filter) else { return answer }
        var unknown = Entitlement(reason: .unknownName)
        unknown.didYouMean = catalog.nearestName(to: filter)
        return unknown
    }

    /// `named` for an answer computed elsewhere (an app account's best): the catalog in effect at the instant.
    package func named(_ answer: Entitlement, filter: String, at instant: LedgerInstant) throws(GateKitError) -> Entitlement {
        guard answer.reason == .noPurchase || answer.reason == .unknownCustomer else { return answer }
        let catalogs = try store.read { (db) throws(GateKitError) -> ProductCatalogs in try currentCatalogs(db) }
        // A typo is said first, as for a customer (`entitlement(customer:…)`).
        let named = Ledger.named(.none, filter: filter, catalog: catalogs.catalog(at: instant.at))
        return named.reason == .unknownName ? named : answer
    }

    /// The customer's original transaction ids the ledger holds (`LedgerRows.originals`): what
    /// a refresh asks Apple about, an app account token standing for these.
    package func purchaseIDs(customer: String, scope: LedgerScope) throws(GateKitError) -> [String] {
        try Ledger.validate(customer: customer)
        return try store.read { (db) throws(GateKitError) in try LedgerRows.originals(db, customer: LedgerCustomer(customer), scope: scope) }
    }

    public func active(customer: String, scope: LedgerScope, at instant: LedgerInstant,
                       excluding: Set<[UInt8]> = []) throws(GateKitError) -> [Entitlement] {
        try view(customer: customer, scope: scope, at: instant, excluding: excluding).active
    }

    public func isEligibleForIntroductoryOffer(customer: String, group: String, scope: LedgerScope, at instant: LedgerInstant,
                                               excluding: Set<[UInt8]> = []) throws(GateKitError) -> Bool {
        try Ledger.validate(filter: group, name: "group")
        return try view(customer: customer, scope: scope, at: instant, excluding: excluding).isEligibleForIntroductoryOffer(group: group)
    }

    /// The customer's subscriptions, grouped as Apple's "Get All Subscription Statuses" returns
    /// them, each with the signed transaction and renewal info it was computed from.
    public func subscriptionStatuses(customer: String, group: String?, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> String {
        try subscriptionStatuses(customers: [(customer, [])], group: group, scope: scope, at: instant)
    }

    /// The subscriptions of several customers together (an app account's, `LedgerAccounts`).
    func subscriptionStatuses(customers: [(customer: String, excluded: Set<[UInt8]>)], group: String?, scope: LedgerScope,
                              at instant: LedgerInstant) throws(GateKitError) -> String {
        if let group { try Ledger.validate(filter: group, name: "group") }
        var subscriptions: [LedgerView.Subscription] = []
        var seen = Set<String>()
        for (customer, excluded) in customers {
            for s in try view(customer: customer, scope: scope, at: instant, excluding: excluded).subscriptions
                where (group == nil || s.groupID == group) && seen.insert(s.purchaseID).inserted { subscriptions.append(s) }
        }
        let signed = try store.read { (db) throws(GateKitError) -> [String: (String?, String?)] in
            var out: [String: (String?, String?)] = [:]
            for s in subscriptions {
                out[s.purchaseID] = (try LedgerRows.signedTransaction(db, scope: scope, transactionID: s.latest.transactionID, identity: s.latest.identity),
                                                try s.renewal.map { (r) throws(GateKitError) in
                                                    try LedgerRows.signedRenewal(db, scope: scope, purchaseID: r.purchaseID, identity: r.identity)
                                                } ?? nil)
            }
            return out
        }
        return LedgerJSON.statuses(subscriptions, scope: scope, signed: signed)
    }
}
