import GateKitCrypto
import GateKitStore
import GateKitSupport

/// Support grants (docs/ledger.md, "Support grants"): a person gives a customer or an app
/// account an entitlement by hand, from an instant for a duration or for good, and may revoke
/// it early. A grant is a purchase of the `grant` store — its product id the entitlement's
/// name, its document who gave it, when and why — so it answers the same questions, enters the
/// feed, the history and the customer report, and its revocation is a newer version; the
/// metrics never count it (nobody paid).
extension Ledger {
    /// One grant as given, and whether it was revoked since.
    public struct SupportGrant: Sendable, Equatable {
        /// Whom a grant entitles: an app account (the host's own user id, `link`), or a ledger
        /// customer (an app account token, or an original transaction id whose purchases it joins).
        public enum Holder: Sendable, Equatable {
            case appAccount(String)
            case customer(String)
        }

        public let id: String
        public let environment: LedgerEnvironment
        public let entitlement: String
        public let holder: Holder
        public let fromMs: Int64
        /// Nil: for good.
        public let untilMs: Int64?
        public let attribution: Attribution
        /// From when it no longer entitles, when revoked.
        public var revokedMs: Int64?

        public var json: String {
            var members: [(String, JSONValue)] = [("version", .number(JSONDocument.version)), ("grantId", .string(id)),
                                                  ("environment", .string(environment.rawValue)), ("entitlement", .string(entitlement))]
            switch holder {
            case let .appAccount(user): members.append(("appUserId", .string(user)))
            case let .customer(customer): members.append(("customer", .string(customer)))
            }
            members += [("from", .number(fromMs)), ("until", untilMs.map { .number($0) } ?? .null),
                        ("grantedBy", .string(attribution.grantedBy))]
            if let note = attribution.note { members.append(("note", .string(note))) }
            members.append(("revokedAt", revokedMs.map { .number($0) } ?? .null))
            return JSONWriter.serialize(.object(members))
        }
    }

    /// Grant ids: "grant-" and 32 hex digits (16 random bytes), never a UUID, so a grant to an app
    /// account is a customer of its own (`LedgerCustomer.purchaseID`).
    static let grantIDPrefix = "grant-"

    /// Gives `entitlement` to `holder` from `fromMs` (nil: now) until `untilMs` (nil: for good).
    /// When a catalog is in effect the name must be one of its entitlements (a typo would grant
    /// nothing anyone asks about). Recorded in one transaction with, for an app account, the
    /// link that makes the grant its own.
    public func grant(_ entitlement: String, to holder: SupportGrant.Holder, environment: LedgerEnvironment, fromMs: Int64?,
                      untilMs: Int64?, attribution: Attribution) throws(GateKitError) -> SupportGrant {
        try Ledger.validate(filter: entitlement, name: "entitlement")
        switch holder {
        case let .appAccount(user): try Ledger.validate(appUserID: user)
        case let .customer(customer): try Ledger.validate(customer: customer)
        }
        try Ledger.validate(attribution)
        let now = Clock.nowMilliseconds()
        let from = fromMs ?? now
        guard from > 0 else { throw .invalid("from_ms must be a Unix instant in milliseconds (0: now), not \(from)") }
        if let untilMs, untilMs <= from {
            throw .invalid("until_ms \(untilMs) is not after the grant's start \(from): a grant lasts a while, or for good (0)")
        }
        try checkCatalogNames(entitlement, at: now)
        let grant = SupportGrant(id: Ledger.grantIDPrefix + Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) }),
                                 environment: environment, entitlement: entitlement, holder: holder, fromMs: from, untilMs: untilMs,
                                 attribution: attribution)
        let document = Array(grant.json.utf8)
        var item = try grantItem(grant, action: "grant", document: document, vouchedMs: now)
        var v = TransactionVersion(transactionID: grant.id, purchaseID: grant.id, appAccountToken: nil, productID: entitlement, groupID: nil,
                                   productType: untilMs == nil ? .nonConsumable : .nonRenewing, familyShared: false, purchaseMs: from,
                                   originalPurchaseMs: from, expiresMs: untilMs, revocationMs: nil, revocationReason: nil, isUpgraded: false,
                                   offer: nil, vouchedMs: now, identity: item.identity)
        v.store = .grant
        item.attribution = attribution
        if case let .customer(customer) = holder {
            switch LedgerCustomer(customer) {
            case let .token(token): v.appAccountToken = token
            case let .purchaseID(original): v.purchaseID = original  // among the customer's own purchases
            }
        }
        item.transactions = [(v, nil)]
        guard case let .appAccount(user) = holder else {
            _ = try commit(item)
            return grant
        }
        let env = environment.rawValue
        _ = try commit(item, alsoLocking: [Ledger.subject(env, grant.id)]) { (db) throws(GateKitError) in
            try AppAccountRows.append(db, environment: env, appUserID: user, customer: grant.id, linked: true, atMs: now, cause: "grant")
        }
        return grant
    }

    /// Revokes the grant from `atMs` (nil: now): it entitles to nothing from then on. Returns the
    /// grant, and false when it was revoked before (nothing is recorded then). `.ENOTFOUND` for
    /// an id the environment holds no grant of.
    public func revokeGrant(_ id: String, environment: LedgerEnvironment, atMs: Int64?,
                            attribution: Attribution) throws(GateKitError) -> (SupportGrant, revoked: Bool) {
        guard id.utf8.count <= Ledger.maximumCustomerLength, !id.isEmpty else {
            throw .invalid("grant_id must be 1 to \(Ledger.maximumCustomerLength) bytes (a grant's \"grantId\")")
        }
        try Ledger.validate(attribution)
        let scope = LedgerScope(environment: environment, testData: false)
        let (held, holder, given) = try store.read { (db) throws(GateKitError) -> (TransactionVersion?, SupportGrant.Holder?, Attribution?) in
            guard let v = try LedgerRows.newestVersion(db, transactionID: id, store: .grant, scope: scope) else { return (nil, nil, nil) }
            let given = try LedgerRows.attribution(db, transactionID: id, store: .grant, scope: scope)
            if v.purchaseID != id { return (v, .customer(v.purchaseID), given) }
            if let token = v.appAccountToken { return (v, .customer(token), given) }
            let links = try AppAccountRows.changes(db, environment: environment.rawValue, appUserID: nil, customers: [id])
            return (v, links.first.map { .appAccount($0.appUserID) }, given)
        }
        guard let held, let holder, let given else {
            throw GateKitError(.ENOTFOUND, "no grant \(Quoted.text(id)) in \(environment.rawValue)")
        }
        var grant = SupportGrant(id: id, environment: environment, entitlement: held.productID, holder: holder, fromMs: held.purchaseMs ?? 0,
                                 untilMs: held.expiresMs, attribution: given, revokedMs: held.revocationMs)
        if held.revocationMs != nil { return (grant, false) }
        let now = Clock.nowMilliseconds()
        let at = atMs ?? now
        guard at > 0 else { throw .invalid("at_ms must be a Unix instant in milliseconds (0: now), not \(at)") }
        grant.revokedMs = at
        var members: [(String, JSONValue)] = [("version", .number(JSONDocument.version)), ("grantId", .string(id)),
                                              ("revokedAt", .number(at)), ("revokedBy", .string(attribution.grantedBy))]
        if let note = attribution.note { members.append(("note", .string(note))) }
        // Newer than the grant even in its millisecond: the newest version is the truth.
        let vouched = max(now, held.vouchedMs &+ 1)
        var item = try grantItem(grant, action: "revoke", document: Array(JSONWriter.serialize(.object(members)).utf8), vouchedMs: vouched)
        var v = held
        v.vouchedMs = vouched
        v.identity = item.identity
        v.revocationMs = at
        v.revocationReason = .other
        item.transactions = [(v, nil)]
        item.attribution = given  // who gave it; who revoked it is the item's document
        _ = try commit(item)
        return (grant, true)
    }

    /// The grant's item: its document (the grant as given, or its revocation) is the item's text,
    /// and its identity the document's SHA-256 under the action.
    private func grantItem(_ grant: SupportGrant, action: String, document: [UInt8], vouchedMs: Int64) throws(GateKitError) -> PendingItem {
        let identity = Hex.encode(try Digest.hash(.sha256, Array("gatekit-grant\u{0}\(action)\u{0}".utf8) + document))
        var item = PendingItem(kind: .grant, scope: LedgerScope(environment: grant.environment, testData: false), appID: "",
                               identity: identity, vouchedMs: vouchedMs, header: nil, body: String(decoding: document, as: UTF8.self))
        item.notificationType = action
        return item
    }

    /// A name the catalog in effect does not give is refused, with the nearest one it does.
    private func checkCatalogNames(_ entitlement: String, at now: Int64) throws(GateKitError) {
        let catalog = try store.read { (db) throws(GateKitError) -> ProductCatalog in try currentCatalogs(db).catalog(at: now) }
        let names = catalog.entitlementNames
        guard !catalog.isEmpty, !names.contains(where: { $0.utf8.elementsEqual(entitlement.utf8) }) else { return }
        let near = NearestName.nearest(to: entitlement, among: names).map { " (did you mean \(Quoted.text($0))?)" } ?? ""
        throw .invalid("the catalog in effect gives no entitlement \(Quoted.text(entitlement))\(near): grant one of its names")
    }

    static func validate(_ attribution: Attribution) throws(GateKitError) {
        func isText(_ s: String, max: Int) -> Bool {
            !s.isEmpty && s.utf8.count <= max && !s.utf8.contains { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 || $0 == 0x7F }
        }
        guard isText(attribution.grantedBy, max: Attribution.maximumGrantedByLength), !attribution.grantedBy.utf8.contains(0x0A) else {
            throw .invalid("granted_by must be 1 to \(Attribution.maximumGrantedByLength) bytes of text on one line (who gives it, as your team names its people)")
        }
        if let note = attribution.note, !isText(note, max: Attribution.maximumNoteLength) {
            throw .invalid("note must be 1 to \(Attribution.maximumNoteLength) bytes of text (why), or NULL")
        }
    }
}
