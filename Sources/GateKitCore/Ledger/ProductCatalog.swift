import GateKitSupport

/// The host's products, declared once: for each product id, the entitlement names it grants
/// ("pro"), its subscription group (for purchases whose data names none, as receipts), its
/// type, and a non-renewing subscription's term (Apple leaves that term to the app). The ledger
/// answers with the catalog in effect at the instant asked (`ProductCatalogs`).
///
///     {"products": {"com.example.pro.monthly": {"type": "auto-renewable", "group": "pro",
///                                                "entitlements": ["pro"]},
///                   "com.example.pass.30d": {"type": "non-renewing", "term": "P30D",
///                                            "entitlements": ["pro"]}}}
///
/// A store whose seller names its plans by keys it can move (Stripe's price `lookup_key`) may be
/// declared by key too: `"lookupKeys": {"pro_monthly": {"entitlements": ["pro"]}}` names every
/// plan an answer has shown bearing that key (`LookupKey`), as a ":plan" entry would.
///
/// Every member is checked: an unknown one, a term on a product that is not non-renewing, or an
/// entitlement name that is empty or repeated is an error, never ignored. A catalog that takes
/// effect before it is declared changes answers already given as of earlier instants: it must
/// say why (`"correction": "…"`, kept with it), or it is refused.
public struct ProductCatalog: Sendable, Equatable {
    public struct Product: Sendable, Equatable {
        public var type: ProductType
        public var group: String?
        public var entitlements: [String]
        public var term: Term?
    }

    /// An ISO 8601 duration of whole days, weeks, months or years ("P30D", "P1M", "P1Y"),
    /// added in the UTC calendar as Apple adds subscription periods (Jan 31 + P1M = Feb 28/29).
    public struct Term: Sendable, Equatable {
        public let text: String
        let years: Int, months: Int, days: Int

        public init(_ text: String) throws(GateKitError) {
            let bytes = Array(text.utf8)
            guard bytes.count >= 3, bytes.count <= 16, bytes[0] == UInt8(ascii: "P") else { throw Term.invalid(text) }
            var years = 0, months = 0, days = 0, number = 0, digits = 0, seen: Set<UInt8> = []
            for c in bytes.dropFirst() {
                if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                    number = number * 10 + Int(c - UInt8(ascii: "0"))
                    digits += 1
                    guard digits <= 5 else { throw Term.invalid(text) }
                    continue
                }
                guard digits > 0, seen.insert(c).inserted else { throw Term.invalid(text) }
                switch c {
                case UInt8(ascii: "Y"): years = number
                case UInt8(ascii: "M"): months = number
                case UInt8(ascii: "W"): days += number * 7
                case UInt8(ascii: "D"): days += number
                default: throw Term.invalid(text)
                }
                number = 0
                digits = 0
            }
            guard digits == 0, years + months + days > 0 else { throw Term.invalid(text) }
            // At most a century: every end it gives then lies in the calendar's years.
            guard years * 12 + months <= Term.maximumMonths, days <= Term.maximumDays else {
                throw .invalid("a term is at most 100 years (P100Y, P1200M, P36525D), not \(Quoted.text(text))")
            }
            self.text = text
            self.years = years
            self.months = months
            self.days = days
        }

        static let maximumMonths = 1200, maximumDays = 36_525

        static func invalid(_ text: String) -> GateKitError {
            .invalid("a term is an ISO 8601 duration of days, weeks, months or years such as \"P30D\" or \"P1Y\", not \(Quoted.text(text))")
        }

        /// The calendar's span for a purchase: 0001-01-01 to 9999-12-31 (Unix ms).
        static let earliest: Int64 = -62_135_596_800_000, latest: Int64 = 253_402_300_799_999

        /// `start` plus the term (Unix milliseconds, UTC calendar; the day clamped to the
        /// month's length). A start outside years 1 to 9999 (signed data may say anything) is
        /// never put through the calendar: before it, the term has ended; after it, it has not.
        public func end(from start: Int64) -> Int64 {
            guard start >= Term.earliest else { return start }
            guard start <= Term.latest else { return .max }
            let msPerDay: Int64 = 86_400_000
            let c = Timestamp.civil(milliseconds: start)
            let monthIndex = c.year * 12 + (c.month - 1) + years * 12 + months
            let year = monthIndex / 12, month = monthIndex % 12 + 1
            let day = min(c.day, Timestamp.daysInMonth(year: year, month: month))
            let timeOfDay = Int64(((c.hour * 60 + c.minute) * 60 + c.second) * 1000 + c.millisecond)
            // Past year 9999 (a century after a start in its last century): the calendar's end,
            // an instant every host can convert.
            guard year <= 9999 else { return Term.latest }
            return min(Int64(Timestamp.days(year: year, month: month, day: day) + days) * msPerDay + timeOfDay, Term.latest)
        }
    }

    public private(set) var products: [String: Product]
    /// Entries by a plan's lookup key (`LookupKey`), as declared.
    public private(set) var lookupKeys: [String: Product]
    /// Why a catalog takes effect before it was declared (a correction, on purpose); nil: it does not.
    public var correction: String?
    /// Every name a question may use — product ids, groups and entitlement names — as bytes
    /// (made once with the catalog: a no-purchase answer checks the name in constant time).
    private var names: Set<[UInt8]> = []
    /// `products` with each base plan's entry merged with its subscription's (`resolved(_:)`).
    private var resolved: [String: Product] = [:]
    /// The entries that name a plan of any product (":plan"): declared ones, refined by those of
    /// the lookup keys the plan was seen bearing (`naming(_:)`).
    private var planEntries: [String: Product] = [:]

    /// The catalog's entry for a purchase's product: its own id, else, for "product:plan" (a
    /// Play subscription's base plan, RevenueCat's convention; a Stripe product's price; Apple's
    /// product ids never hold a colon), the product's entry "product", which then names every
    /// plan. An entry ":plan" names that plan of any product (a Stripe price id is unique in its
    /// account): it refines the product's entry and is refined by the exact one.
    public func product(_ id: String) -> Product? {
        guard let colon = id.utf8.firstIndex(of: UInt8(ascii: ":")) else { return resolved[id] }
        let exact = resolved[id]
        let own = exact ?? resolved[String(id[..<colon])]
        guard !planEntries.isEmpty, let plan = planEntries[String(id[colon...])] else { return own }
        guard let own else { return plan }
        return exact != nil ? ProductCatalog.refined(own, by: plan) : ProductCatalog.refined(plan, by: own)
    }

    /// The part of a product id an entry ":plan" names ("product:plan" → ":plan"); nil without a colon.
    public static func planKey(of id: String) -> Substring? {
        id.utf8.firstIndex(of: UInt8(ascii: ":")).map { id[$0...] }
    }

    /// Entries for a base plan ("productId:basePlanId") beside one for its subscription
    /// ("productId"), each pair once: a purchase of the base plan grants both entries' names.
    public var basePlanOverlaps: [Overlap] {
        products.keys.sorted().compactMap { id in
            guard let colon = id.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let general = String(id[..<colon])
            return products[general] == nil ? nil : Overlap(basePlan: id, subscription: general)
        }
    }

    /// A base plan's entry ("productId:basePlanId") beside its subscription's ("productId").
    public struct Overlap: Sendable, Equatable {
        public let basePlan: String
        public let subscription: String
    }

    /// `products` as purchases read them: a base plan's entry beside its subscription's grants
    /// both entries' names (its own first), and takes the subscription's group, type and term
    /// where it names none — the specific entry refines the general one, never hides it.
    private static func resolved(_ products: [String: Product]) -> [String: Product] {
        var out = products
        for (id, specific) in products {
            guard let colon = id.utf8.firstIndex(of: UInt8(ascii: ":")), let general = products[String(id[..<colon])] else { continue }
            out[id] = refined(specific, by: general)
        }
        return out
    }

    /// `specific` with `general`'s names after its own, and its group, type and term where it names none.
    private static func refined(_ specific: Product, by general: Product) -> Product {
        var merged = specific
        let own = Set(specific.entitlements.map { Array($0.utf8) })
        merged.entitlements += general.entitlements.filter { !own.contains(Array($0.utf8)) }
        if merged.group == nil { merged.group = general.group }
        if merged.type == .unknown { merged.type = general.type }
        if merged.term == nil { merged.term = general.term }
        return merged
    }

    public static let empty = ProductCatalog(products: [:])
    /// Largest catalog document accepted, and most products / entitlement names per product.
    public static let maximumLength = 1 << 20
    public static let maximumProducts = 10_000
    public static let maximumEntitlements = 1_000
    public static let maximumNameLength = 256
    public static let maximumCorrectionLength = 1024

    public init(products: [String: Product], lookupKeys: [String: Product] = [:], correction: String? = nil) {
        self.products = products
        self.lookupKeys = lookupKeys
        self.correction = correction
        names = ProductCatalog.names(of: products, lookupKeys)
        resolved = ProductCatalog.resolved(products)
        planEntries = products.filter { $0.key.utf8.first == UInt8(ascii: ":") }
    }

    /// A lookup key is no name a question may use (a purchase answers to its plan's own key);
    /// its entry's group and entitlement names are.
    private static func names(of products: [String: Product], _ lookupKeys: [String: Product]) -> Set<[UInt8]> {
        var names = Set<[UInt8]>()
        for id in products.keys { names.insert(Array(id.utf8)) }
        for p in [products.values, lookupKeys.values].joined() {
            if let group = p.group { names.insert(Array(group.utf8)) }
            for e in p.entitlements { names.insert(Array(e.utf8)) }
        }
        return names
    }

    /// The catalog as purchases read it once these plans were seen bearing these keys: each
    /// key's entry names its plans as a ":plan" entry does (after one declared for the plan).
    public func naming<Keys: Sequence>(_ keys: Keys) -> ProductCatalog where Keys.Element == LookupKey {
        guard !lookupKeys.isEmpty else { return self }
        var out = self
        for k in keys {
            guard let entry = lookupKeys[k.key], let plan = ProductCatalog.planKey(of: k.productID).map(String.init) else { continue }
            out.planEntries[plan] = out.planEntries[plan].map { ProductCatalog.refined($0, by: entry) } ?? entry
        }
        return out
    }

    /// Whether none was declared: then questions name product and group ids, and no name is judged.
    public var isEmpty: Bool { products.isEmpty && lookupKeys.isEmpty }

    /// Every entitlement name an entry gives.
    public var entitlementNames: Set<String> {
        Set([products.values, lookupKeys.values].joined().flatMap(\.entitlements))
    }

    /// Whether a question may name `name`: a product id, group or entitlement name of this
    /// catalog (the same bytes). An empty catalog (none declared) knows no names and judges none.
    public func knows(_ name: String) -> Bool { names.contains(Array(name.utf8)) }

    /// The catalog's name nearest to one it does not know (`NearestName`), for "did you mean".
    public func nearestName(to name: String) -> String? {
        NearestName.nearest(to: name, among: names.lazy.compactMap { String(validating: $0, as: UTF8.self) })
    }

    /// The catalog from its JSON document, every member checked.
    public init(json bytes: [UInt8]) throws(GateKitError) {
        guard bytes.count <= ProductCatalog.maximumLength else {
            throw GateKitError(.ETOOLARGE, "the catalog is longer than \(ProductCatalog.maximumLength) bytes")
        }
        let document: JSONValue
        do { document = try JSONParser.parse(bytes) } catch { throw .invalid("the catalog is not JSON: \(error.message)") }
        guard case let .object(top) = document else { throw .invalid("the catalog is not a JSON object") }
        var correction: String?
        var products: [String: Product] = [:], lookupKeys: [String: Product] = [:]
        for (key, value) in top {
            if key == "correction" {
                guard case let .string(why) = value, !why.isEmpty, why.utf8.count <= ProductCatalog.maximumCorrectionLength,
                      !why.utf8.contains(where: { $0 < 0x20 }) else {
                    throw .invalid("the catalog's correction says why it takes effect before it is declared: 1 to \(ProductCatalog.maximumCorrectionLength) bytes of text")
                }
                correction = why
                continue
            }
            if key == "lookupKeys" {
                guard case let .object(entries) = value else { throw .invalid("the catalog's lookupKeys is not an object") }
                guard entries.count <= ProductCatalog.maximumProducts else { throw .invalid("the catalog has more than \(ProductCatalog.maximumProducts) lookup keys") }
                for (lookupKey, entry) in entries {
                    try ProductCatalog.checkName(lookupKey, "a lookup key")
                    guard lookupKeys[lookupKey] == nil else { throw .invalid("the catalog names the lookup key \(Quoted.text(lookupKey)) twice") }
                    lookupKeys[lookupKey] = try ProductCatalog.product(lookupKey, entry, noun: "lookup key")
                }
                continue
            }
            guard key == "products" else { throw .invalid("the catalog has \(Quoted.text(key)); it knows only \"products\", \"lookupKeys\" and \"correction\"") }
            guard case let .object(entries) = value else { throw .invalid("the catalog's products is not an object") }
            guard entries.count <= ProductCatalog.maximumProducts else { throw .invalid("the catalog has more than \(ProductCatalog.maximumProducts) products") }
            for (productID, entry) in entries {
                try ProductCatalog.checkName(productID, "a product id")
                guard productID != ":" else { throw .invalid("the catalog's entry \":\" names no plan: \":plan\" names that plan of any product") }
                guard products[productID] == nil else { throw .invalid("the catalog names \(Quoted.text(productID)) twice") }
                products[productID] = try ProductCatalog.product(productID, entry)
            }
        }
        self.init(products: products, lookupKeys: lookupKeys, correction: correction)
    }

    private static func product(_ id: String, _ entry: JSONValue, noun: String = "product") throws(GateKitError) -> Product {
        guard case let .object(members) = entry else { throw .invalid("\(noun) \(Quoted.text(id)) is not an object") }
        var product = Product(type: .unknown, group: nil, entitlements: [], term: nil)
        var seen: Set<String> = []
        var granted = Set<[UInt8]>()  // names compared as bytes, in linear time
        for (name, value) in members {
            guard seen.insert(name).inserted else { throw .invalid("\(noun) \(Quoted.text(id)) names \(Quoted.text(name)) twice") }
            switch (name, value) {
            case ("type", .string(let t)):
                guard let type = ProductCatalog.types[t] else {
                    throw .invalid("\(noun) \(Quoted.text(id)): type is one of \(ProductCatalog.types.keys.sorted().joined(separator: ", ")), not \(Quoted.text(t))")
                }
                product.type = type
            case ("group", .string(let g)):
                try checkName(g, "\(noun) \(Quoted.text(id))'s group")
                product.group = g
            case ("entitlements", .array(let items)):
                guard items.count <= ProductCatalog.maximumEntitlements else {
                    throw .invalid("\(noun) \(Quoted.text(id)) grants more than \(ProductCatalog.maximumEntitlements) entitlements")
                }
                for item in items {
                    guard case let .string(e) = item else { throw .invalid("\(noun) \(Quoted.text(id)): entitlements are strings") }
                    try checkName(e, "an entitlement name")
                    guard granted.insert(Array(e.utf8)).inserted else { throw .invalid("\(noun) \(Quoted.text(id)) grants \(Quoted.text(e)) twice") }
                    product.entitlements.append(e)
                }
            case ("term", .string(let t)):
                product.term = try Term(t)
            default:
                throw .invalid("\(noun) \(Quoted.text(id)) has \(Quoted.text(name)) of the wrong type or unknown (type, group, entitlements, term)")
            }
        }
        if product.term != nil && product.type != .nonRenewing {
            throw .invalid("\(noun) \(Quoted.text(id)) has a term, which only a non-renewing subscription has (\"type\": \"non-renewing\")")
        }
        return product
    }

    static let types: [String: ProductType] = ["auto-renewable": .autoRenewable, "non-consumable": .nonConsumable,
                                               "consumable": .consumable, "non-renewing": .nonRenewing]

    private static func checkName(_ name: String, _ what: String) throws(GateKitError) {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength, !name.utf8.contains(where: { $0 < 0x20 }) else {
            throw .invalid("\(what) must be 1 to \(maximumNameLength) bytes without control characters, not \(Quoted.text(name))")
        }
    }

    /// Whether the product grants the entitlement `name` (the same bytes: "Pro" is not "pro",
    /// nor "pro" a part of "pro_max"), by its entry as purchases read it (`product(_:)`).
    public func grants(_ productID: String, _ name: String) -> Bool {
        product(productID)?.entitlements.contains { $0.utf8.elementsEqual(name.utf8) } ?? false
    }

    /// The catalog as its JSON document, products in id order.
    public var json: JSONValue {
        let names = Dictionary(uniqueKeysWithValues: ProductCatalog.types.map { ($0.value, $0.key) })
        func entries(_ declared: [String: Product]) -> JSONValue {
            .object(declared.keys.sorted().compactMap { id in
                guard let p = declared[id] else { return nil }
                var members: [(String, JSONValue)] = []
                if let type = names[p.type] { members.append(("type", .string(type))) }
                if let group = p.group { members.append(("group", .string(group))) }
                members.append(("entitlements", .array(p.entitlements.map { .string($0) })))
                if let term = p.term { members.append(("term", .string(term.text))) }
                return (id, .object(members))
            })
        }
        return .object((correction.map { [("correction", JSONValue.string($0))] } ?? []) + [("products", entries(products))]
                       + (lookupKeys.isEmpty ? [] : [("lookupKeys", entries(lookupKeys))]))
    }
}
