import GateKitStore
import GateKitSupport

/// The host's own user ids ("app accounts") linked to ledger customers (app account tokens,
/// original transaction ids), and questions asked by app account: the answer of every customer
/// linked to it at the instant, together (docs/ledger.md, "App accounts").
///
/// A customer belongs to one app account at a time: linking it to another moves it there (a
/// transfer, kept in the link history), as RevenueCat's default "transfer to the new App User
/// ID" does. Apple's own transfer — a transaction re-signed with another `appAccountToken` — needs
/// no link change: an app account linked to a token follows the token (`CustomerRecord`). A
/// subscription is one account's whichever of its identifiers (original transaction id, token)
/// was linked: the newest claim holds it (`SubscriptionHolder`).
extension Ledger {
    /// What `link` did.
    public enum LinkOutcome: Int32, Sendable {
        case unchanged = 0    // already linked to this app account
        case linked = 1
        case transferred = 2  // it was linked to another app account, which lost it
    }

    public static let maximumAppUserIDLength = 256

    static func validate(appUserID: String) throws(GateKitError) {
        guard !appUserID.isEmpty, appUserID.utf8.count <= maximumAppUserIDLength else {
            throw .invalid("app_user_id must be 1 to \(maximumAppUserIDLength) bytes")
        }
    }

    /// The customer as links keep it: a token lowercased, an original transaction id as given.
    static func linkedName(_ customer: String) throws(GateKitError) -> String {
        try validate(customer: customer)
        switch LedgerCustomer(customer) {
        case let .token(token): return token
        case let .purchaseID(original): return original
        }
    }

    /// The write subject of a customer's links.
    static func subject(_ environment: String, _ customer: String) -> String { "ledger-account/\(environment)/\(customer)" }

    public func link(appUserID: String, customer: String, environment: LedgerEnvironment) throws(GateKitError) -> LinkOutcome {
        try Ledger.validate(appUserID: appUserID)
        let name = try Ledger.linkedName(customer)
        let env = environment.rawValue
        return try store.write(.wholeStore) { (db) throws(GateKitError) -> LinkOutcome in
            let now = Clock.nowMilliseconds()
            let holder = try AppAccountRows.holder(db, environment: env, customer: name, atMs: nil)
            // A subscription this customer stands for that another account holds through its
            // other identifier moves too: the newest claim, this link, holds it (a link made
            // again renews the claim).
            var heldElsewhere = false
            var purchases: [(LedgerScope, [String])] = []
            for testData in [false, true] {
                let scope = LedgerScope(environment: environment, testData: testData)
                let record = try LedgerRows.record(db, customer: LedgerCustomer(name), scope: scope)
                let originals = Array(Set(record.transactions.map(\.purchaseID))).sorted()
                purchases.append((scope, originals))
                for case let held? in try SubscriptionHolder.holders(db, environment: env, record: record, originals: originals, atMs: nil).values
                    where held != appUserID { heldElsewhere = true }
            }
            if holder?.appUserID == appUserID, !heldElsewhere { return .unchanged }
            if let holder, holder.appUserID != appUserID {
                try AppAccountRows.append(db, environment: env, appUserID: holder.appUserID, customer: name, linked: false, atMs: now, cause: "transfer")
            }
            try AppAccountRows.append(db, environment: env, appUserID: appUserID, customer: name, linked: true, atMs: now, cause: nil)
            forgetRecords()
            guard holder != nil || heldElsewhere else { return .linked }
            // The feed (and so every webhook endpoint) hears of the move: a change per product.
            let catalogs = try loadedCatalogs(db)
            var changes: [ChangeFeedRows.Change] = []
            for (scope, originals) in purchases {
                for original in originals {
                    try ChangeFeedRows.transferred(db, scope: scope, original: original, catalogs: catalogs, now: now, into: &changes)
                }
            }
            try ChangeFeedRows.append(db, changes, now: now)
            return .transferred
        }
    }

    /// True when the link existed (and now does not).
    public func unlink(appUserID: String, customer: String, environment: LedgerEnvironment) throws(GateKitError) -> Bool {
        try Ledger.validate(appUserID: appUserID)
        let name = try Ledger.linkedName(customer)
        let env = environment.rawValue
        return try store.write(.subjects([Ledger.subject(env, name)])) { (db) throws(GateKitError) -> Bool in
            guard try AppAccountRows.holder(db, environment: env, customer: name, atMs: nil)?.appUserID == appUserID else { return false }
            try AppAccountRows.append(db, environment: env, appUserID: appUserID, customer: name, linked: false,
                                      atMs: Clock.nowMilliseconds(), cause: nil)
            forgetRecords()
            return true
        }
    }

    /// The links in effect at the instant, and every change, of an app account and/or a
    /// customer (nil: any): {"version":1,"links":[{"appUserId","customer","since"}],
    /// "changes":[{"appUserId","customer","linked","at","cause"}]}.
    public func linksJSON(appUserID: String?, customer: String?, environment: LedgerEnvironment, at instant: LedgerInstant) throws(GateKitError) -> String {
        if let appUserID { try Ledger.validate(appUserID: appUserID) }
        let name = try customer.map { (c) throws(GateKitError) in try Ledger.linkedName(c) }
        let changes = try store.read { (db) throws(GateKitError) in
            try AppAccountRows.changes(db, environment: environment.rawValue, appUserID: appUserID, customers: name.map { [$0] } ?? [])
        }
        let links = AppAccountRows.current(changes, atMs: Ledger.linkInstant(instant))
        return JSONWriter.serialize(.object([
            ("version", .number(JSONDocument.version)),
            ("environment", .string(environment.rawValue)),
            ("links", .array(links.map { .object([("appUserId", .string($0.appUserID)), ("customer", .string($0.customer)),
                                                  ("since", .number($0.sinceMs))]) })),
            ("changes", .array(changes.map { .object([("appUserId", .string($0.appUserID)), ("customer", .string($0.customer)),
                                                      ("linked", .bool($0.linked)), ("at", .number($0.atMs)),
                                                      ("cause", $0.cause.map { .string($0) } ?? .null)]) })),
        ]))
    }

    /// The customers linked to the app account at the instant, each with the subscriptions it
    /// stands for that another account holds (`SubscriptionHolder`): those are left out.
    func linkedCustomers(appUserID: String, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> [(customer: String, excluded: Set<[UInt8]>)] {
        try Ledger.validate(appUserID: appUserID)
        let atMs = Ledger.linkInstant(instant)
        let changes = try store.read { (db) throws(GateKitError) in
            try AppAccountRows.changes(db, environment: scope.environment, appUserID: appUserID, customers: [])
        }
        var out: [(customer: String, excluded: Set<[UInt8]>)] = []
        for customer in AppAccountRows.current(changes, atMs: atMs).map(\.customer) {
            let record = try record(customer: customer, scope: scope)
            let originals = Array(Set(record.transactions.map(\.purchaseID)))
            let holders = try store.read { (db) throws(GateKitError) in
                try SubscriptionHolder.holders(db, environment: scope.environment, record: record, originals: originals, atMs: atMs)
            }
            out.append((customer, Set(holders.compactMap { $0.value == appUserID ? nil : Array($0.key.utf8) })))
        }
        return out
    }

    /// The links of an as-of question, nil for "now" (within `nowWindowMs`, as answers are).
    static func linkInstant(_ instant: LedgerInstant) -> Int64? {
        guard case let .asOf(ms) = instant, ms < Clock.nowMilliseconds() - nowWindowMs else { return nil }
        return ms
    }

    // MARK: questions by app account

    /// The best answer among the app account's customers (entitled first, then the longest).
    public func entitlement(appUserID: String, to filter: String, scope: LedgerScope, at instant: LedgerInstant,
                            naming: Bool = true) throws(GateKitError) -> Entitlement {
        try named(try bestAnswer(appUserID: appUserID, scope: scope, at: instant) { (customer, excluded) throws(GateKitError) in
            try entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming, excluding: excluded)
        }, filter: filter, at: instant)
    }

    /// The best of `answer` over the customers linked to the app account at the instant: entitled
    /// first, then the longest (`LedgerView.lastsLonger`); "only test-signed" over "no purchase".
    package func bestAnswer(appUserID: String, scope: LedgerScope, at instant: LedgerInstant,
                            _ answer: (String, Set<[UInt8]>) throws(GateKitError) -> Entitlement) throws(GateKitError) -> Entitlement {
        var best: Entitlement?
        for (customer, excluded) in try linkedCustomers(appUserID: appUserID, scope: scope, at: instant) {
            let e = try answer(customer, excluded)
            // A customer the ledger knows says more than one it has never seen.
            let better = best.map { b in
                LedgerView.lastsLonger(e, than: b) || (b.reason == .noPurchase && e.reason == .onlyTestSigned)
                    || (b.reason == .unknownCustomer && e.reason != .unknownCustomer)
            } ?? true
            if better { best = e }
        }
        // No customer linked: an app account the ledger has never seen. A linked one is known,
        // whatever its customers' ids say.
        guard let best else { return Entitlement(reason: .unknownCustomer) }
        return best.reason == .unknownCustomer ? .none : best
    }

    public func active(appUserID: String, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> [Entitlement] {
        var best: [String: Entitlement] = [:]
        for (customer, excluded) in try linkedCustomers(appUserID: appUserID, scope: scope, at: instant) {
            for e in try active(customer: customer, scope: scope, at: instant, excluding: excluded) {
                guard let product = e.productID else { continue }
                if best[product].map({ LedgerView.lastsLonger(e, than: $0) }) ?? true { best[product] = e }
            }
        }
        return best.keys.sorted().compactMap { best[$0] }
    }

    public func isEligibleForIntroductoryOffer(appUserID: String, group: String, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> Bool {
        for (customer, excluded) in try linkedCustomers(appUserID: appUserID, scope: scope, at: instant)
            where !(try isEligibleForIntroductoryOffer(customer: customer, group: group, scope: scope, at: instant, excluding: excluded)) { return false }
        return true
    }

    public func subscriptionStatuses(appUserID: String, group: String?, scope: LedgerScope, at instant: LedgerInstant) throws(GateKitError) -> String {
        try subscriptionStatuses(customers: try linkedCustomers(appUserID: appUserID, scope: scope, at: instant), group: group, scope: scope, at: instant)
    }

    /// The history of every customer linked to the app account now.
    public func historyJSON(appUserID: String, scope: LedgerScope) throws(GateKitError) -> String {
        let linked = try linkedCustomers(appUserID: appUserID, scope: scope, at: .now)
        return try historyJSON(customers: linked.map(\.customer), scope: scope, excluding: linked.reduce(into: []) { $0.formUnion($1.excluded) })
    }
}
