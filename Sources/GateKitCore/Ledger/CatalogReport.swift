import GateKitStore
import GateKitSupport

/// What declaring a catalog would change, worked out before it bites: a typo'd product id
/// replaces the product a paying customer bought, and its entitlement turns off for everyone.
/// Reported on every declaration (and by a check that declares nothing):
/// - `unseenProducts`: products the catalog names that the ledger holds no purchase of (each
///   with the nearest product id the ledger holds, when one is a likely typo);
/// - `unseenLookupKeys`: lookup keys the catalog names that no answer has shown a plan bearing
///   (with the nearest key one has, when one is a likely typo);
/// - `unnamedProducts`: products with purchases the catalog no longer names (their purchases
///   then grant no entitlement name, and a group only if the signed data names one);
/// - `entitlementChanges`: for products with purchases, the entitlement names the new catalog
///   grants that the one in effect did not (`gained`), and those it no longer grants (`lost`).
public struct CatalogReport: Sendable, Equatable {
    public struct Unseen: Sendable, Equatable {
        public let product: String
        public let didYouMean: String?
    }

    public struct Change: Sendable, Equatable {
        public let product: String
        public let gained: [String]
        public let lost: [String]
    }

    /// False for a check (`declareCatalog(…, checkOnly: true)`): nothing was declared.
    public let declared: Bool
    public let effectiveMs: Int64
    public let unseenProducts: [Unseen]
    public var unseenLookupKeys: [Unseen] = []
    public let unnamedProducts: [String]
    public let entitlementChanges: [Change]
    /// Base-plan entries beside their subscription's entry (both entries' names are granted).
    public var overlaps: [ProductCatalog.Overlap] = []

    /// What a user should look at before relying on the catalog, a sentence each (the tool
    /// prints them on stderr): products nobody bought, purchased products left out, names lost.
    /// A product gaining a name, or a catalog for products not sold yet, is no warning — but a
    /// product nobody bought beside a purchased one it is a typo of, is.
    public var warnings: [String] {
        var out: [String] = []
        for u in unseenProducts {
            if let near = u.didYouMean {
                out.append("the catalog names \(Quoted.text(u.product)), which nobody has bought; did you mean \(Quoted.text(near)), which customers have?")
            }
        }
        for u in unseenLookupKeys {
            if let near = u.didYouMean {
                out.append("the catalog names the lookup key \(Quoted.text(u.product)), which no plan sold has borne; did you mean \(Quoted.text(near))?")
            }
        }
        for id in unnamedProducts {
            out.append("customers have bought \(Quoted.text(id)), which the catalog does not name: it grants no entitlement name")
        }
        for o in overlaps {
            out.append("the catalog names both \(Quoted.text(o.subscription)) and \(Quoted.text(o.basePlan)): a purchase of \(Quoted.text(o.basePlan)) grants both entries' names (docs/ledger.md, \"Keys\")")
        }
        for c in entitlementChanges where !c.lost.isEmpty {
            out.append("\(Quoted.text(c.product)), which customers have bought, no longer grants \(c.lost.map { Quoted.text($0) }.joined(separator: ", "))")
        }
        return out
    }

    /// The report of replacing `before` with `after`, given the product ids with purchases and
    /// the plans' lookup keys known at `effectiveMs`.
    static func of(before: ProductCatalog, after declared: ProductCatalog, purchased: Set<String>, lookupKeys: [LookupKey] = [],
                   declared isDeclared: Bool, effectiveMs: Int64) -> CatalogReport {
        let after = declared.naming(lookupKeys)
        // A product's entry ("product") names every plan bought ("product:plan"), and a plan's
        // entry (":plan") that plan of any product.
        let namedByPrefix = Set(purchased.compactMap { id in id.utf8.firstIndex(of: UInt8(ascii: ":")).map { String(id[..<$0]) } })
        let namedByPlan = Set(purchased.compactMap { ProductCatalog.planKey(of: $0).map(String.init) })
        let unseen = after.products.keys.filter { !purchased.contains($0) && !namedByPrefix.contains($0) && !namedByPlan.contains($0) }.sorted().map { id in
            Unseen(product: id, didYouMean: NearestName.nearest(to: id, among: purchased.lazy.filter { after.product($0) == nil }))
        }
        let changes: [Change] = purchased.sorted().compactMap { id in
            let was = before.product(id)?.entitlements ?? [], now = after.product(id)?.entitlements ?? []
            let gained = now.filter { !was.contains($0) }, lost = was.filter { !now.contains($0) }
            return gained.isEmpty && lost.isEmpty ? nil : Change(product: id, gained: gained.sorted(), lost: lost.sorted())
        }
        var report = CatalogReport(declared: isDeclared, effectiveMs: effectiveMs, unseenProducts: unseen,
                                   unnamedProducts: purchased.filter { after.product($0) == nil }.sorted(), entitlementChanges: changes)
        report.overlaps = after.basePlanOverlaps
        let borne = Set(lookupKeys.map(\.key))
        report.unseenLookupKeys = declared.lookupKeys.keys.filter { !borne.contains($0) }.sorted().map { key in
            Unseen(product: key, didYouMean: NearestName.nearest(to: key, among: borne.lazy.filter { declared.lookupKeys[$0] == nil }))
        }
        return report
    }

    /// The product ids the ledger holds a purchase of, in any environment (App Store and test data).
    static func purchasedProducts(_ db: any DatabaseConnection) throws(GateKitError) -> Set<String> {
        let s = try db.statement("SELECT DISTINCT product_id FROM ledger_transactions")
        defer { s.reset() }
        var ids = Set<String>()
        while try s.step() { if let id = s.text(0) { ids.insert(id) } }
        return ids
    }

    public var json: JSONValue {
        .object([
            ("version", .number(JSONDocument.version)),
            ("declared", .bool(declared)),
            ("effective", .number(effectiveMs)),
            ("unseenProducts", .array(unseenProducts.map { u in
                .object([("product", .string(u.product))] + (u.didYouMean.map { [("didYouMean", JSONValue.string($0))] } ?? []))
            })),
            ("unseenLookupKeys", .array(unseenLookupKeys.map { u in
                .object([("lookupKey", .string(u.product))] + (u.didYouMean.map { [("didYouMean", JSONValue.string($0))] } ?? []))
            })),
            ("unnamedProducts", .array(unnamedProducts.map { .string($0) })),
            ("warnings", .array(warnings.map { .string($0) })),
            ("entitlementChanges", .array(entitlementChanges.map { c in
                .object([("product", .string(c.product)), ("gained", .array(c.gained.map { .string($0) })),
                         ("lost", .array(c.lost.map { .string($0) }))])
            })),
        ])
    }
}
