import GateKitStore
import GateKitSupport

/// The customer view of the report: "entitled now? why?" for each product the customer bought
/// (and each entitlement name those grant), one timeline per subscription, its events in a
/// table, and the signed items they came from, each event linked to its item.
extension Ledger {
    /// The view of one customer (an app account token or original transaction id).
    public func customerReport(customer: String, request: MetricsRequest) throws(GateKitError) -> String {
        try customerReport(customers: [(customer, [])], label: customer, request: request)
    }

    /// The view of the customers linked to the host's app account at the as-of instant.
    public func customerReport(appUserID: String, request: MetricsRequest) throws(GateKitError) -> String {
        try customerReport(customers: try linkedCustomers(appUserID: appUserID, scope: request.scope, at: request.asOf),
                           label: appUserID, request: request)
    }

    /// `customers`: the customer, or the customers linked to an app account, the view is about,
    /// each less the subscriptions another account holds.
    func customerReport(customers: [(customer: String, excluded: Set<[UInt8]>)], label: String, request: MetricsRequest) throws(GateKitError) -> String {
        for (customer, _) in customers { try Ledger.validate(customer: customer) }
        let asOf = request.asOf.at
        let scope = request.scope
        let excluded = customers.reduce(into: Set<[UInt8]>()) { $0.formUnion($1.excluded) }
        let subscriptions = try store.snapshot { (db) throws(GateKitError) -> [CustomerSubscription] in
            var originals: [String] = []
            for (c, _) in customers { originals += try LedgerRows.originals(db, customer: LedgerCustomer(c), scope: scope) }
            return try Array(Set(originals.filter { !excluded.contains(Array($0.utf8)) })).sorted().map { (original) throws(GateKitError) in
                try CustomerSubscription.load(db, original: original, scope: scope, asOf: asOf)
            }
        }
        var answers: [(String, Entitlement)] = []
        var subjects: [String] = []
        let catalog = try catalog(at: request.asOf)?.catalog ?? .empty
        for product in Set(subscriptions.flatMap { $0.versions.map(\.productID) }).sorted() {
            subjects.append(product)
            for name in catalog.product(product)?.entitlements ?? [] where !subjects.contains(name) { subjects.append(name) }
        }
        for subject in subjects {
            var best: Entitlement?
            for (customer, excluded) in customers {
                let answer = try entitlement(customer: customer, to: subject, scope: scope, at: request.asOf, excluding: excluded)
                if best == nil || (answer.reason.entitles && !(best?.reason.entitles ?? false)) { best = answer }
            }
            if let best { answers.append((subject, best)) }
        }
        let history = try historyJSON(customers: customers.map(\.customer), scope: scope, excluding: excluded)
        let body = CustomerView(request: request, asOf: asOf, subscriptions: subscriptions, answers: answers,
                                items: CustomerView.items(history, signedBy: asOf)).body
        return ReportPage.page(title: "Customer \(label) · \(ReportPage.scopeName(scope))",
                               subtitle: "Entitlement as of \(HTML.date(asOf)); timelines from \(HTML.date(request.from)) to \(HTML.date(request.to)).",
                               body: body)
    }
}

/// One subscription of the customer: its versions with the items that carried them, and its life.
struct CustomerSubscription {
    let original: String
    let versions: [TransactionVersion]
    let renewals: [RenewalVersion]
    /// The item that first carried each transaction, and the one carrying its newest version.
    let firstItem: [String: Int64]
    let newestItem: [String: Int64]
    /// The item of each renewal version, by identity.
    let renewalItem: [String: Int64]
    let life: SubscriptionLife?
    /// Purchases that are not auto-renewable (a non-consumable, a pass), with their item.
    let purchases: [(TransactionVersion, Int64)]

    static func load(_ db: any DatabaseConnection, original: String, scope: LedgerScope, asOf: Int64) throws(GateKitError) -> CustomerSubscription {
        let t = try db.statement("""
            SELECT \(SaleColumns.versionColumns), item_id FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 AND signed_ms <= ?4 ORDER BY item_id
            """)
        t.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original).bind(4, asOf)
        var versions: [TransactionVersion] = []
        var firstItem: [String: Int64] = [:], newestItem: [String: Int64] = [:], newestVersion: [String: TransactionVersion] = [:]
        while try t.step() {
            let v = SaleColumns.version(t)
            let item = t.int64(SaleColumns.versionColumnCount)
            versions.append(v)
            if firstItem[v.transactionID] == nil { firstItem[v.transactionID] = item }
            if newestVersion[v.transactionID].map({ v.isNewer(than: $0) }) ?? true {
                newestVersion[v.transactionID] = v
                newestItem[v.transactionID] = item
            }
        }
        t.reset()
        let r = try db.statement("""
            SELECT \(LedgerRows.renewalColumns), item_id FROM ledger_renewals
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 AND signed_ms <= ?4
            """)
        r.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original).bind(4, asOf)
        var renewals: [RenewalVersion] = []
        var renewalItem: [String: Int64] = [:]
        while try r.step() {
            let v = LedgerRows.renewal(r)
            renewals.append(v)
            renewalItem[v.identity] = r.int64(LedgerRows.renewalColumnCount)
        }
        r.reset()
        renewals.sort { $0.vouchedMs != $1.vouchedMs ? $0.vouchedMs < $1.vouchedMs : $0.identity < $1.identity }
        let newest = SubscriptionLife.newest(versions)
        let purchases = newest.filter { $0.productType != .autoRenewable }.sorted { ($0.purchaseMs ?? 0) < ($1.purchaseMs ?? 0) }
            .map { ($0, newestItem[$0.transactionID] ?? 0) }
        return CustomerSubscription(original: original, versions: versions, renewals: renewals, firstItem: firstItem,
                                    newestItem: newestItem, renewalItem: renewalItem,
                                    life: SubscriptionLife(original: original, newest: newest, renewals: renewals, asOf: asOf),
                                    purchases: purchases)
    }

    struct Event {
        let at: Int64
        let what: String
        let product: String
        let transactionID: String
        let item: Int64?
    }

    /// What happened, oldest first, each with the signed item that says so.
    func events() -> [Event] {
        var out: [Event] = []
        for (v, item) in purchases {
            // What nobody paid for (a support grant) was given, and its revocation is no refund.
            let sold = v.store.rules.isSale
            out.append(Event(at: v.purchaseMs ?? v.vouchedMs, what: sold ? "Bought (\(v.productType.name))" : v.expiresMs == nil ? "Given for good" : "Given",
                             product: v.productID, transactionID: v.transactionID, item: item))
            if let revoked = v.revocationMs {
                out.append(Event(at: revoked, what: !sold ? "Revoked" : v.familyShared ? "Family Sharing revoked" : "Refunded", product: v.productID,
                                 transactionID: v.transactionID, item: item))
            }
        }
        guard let life else { return out.sorted { $0.at < $1.at } }
        for (i, p) in life.periods.enumerated() {
            let v = p.version
            let next = i + 1 < life.periods.count ? life.periods[i + 1].start : Int64.max
            let own = renewals.filter { $0.vouchedMs >= p.start && $0.vouchedMs < next }
            let began: String
            switch p.began {
            case .new: began = life.familyShared ? "Shared through Family Sharing" : "Subscribed"
            case .newTrial: began = "Free trial started"
            case .conversion: began = "Converted to paid"
            case .renewal: began = "Renewed"
            case .recovery: began = "Recovered after a billing failure"
            case .reactivation: began = "Resubscribed"
            case .productChange: began = "Changed product"
            }
            out.append(Event(at: p.start, what: began, product: v.productID, transactionID: v.transactionID, item: firstItem[v.transactionID]))
            let retry = own.first { $0.isInBillingRetryPeriod }
            if let grace = p.graceUntil, let expires = v.expiresMs {
                out.append(Event(at: expires, what: "Billing failed: grace period until \(HTML.date(grace))", product: v.productID,
                                 transactionID: v.transactionID, item: retry.flatMap { renewalItem[$0.identity] }))
            }
            if let until = p.retryUntil {
                out.append(Event(at: p.graceUntil ?? v.expiresMs ?? p.start, what: "Billing retry, no access (until \(HTML.date(until)))", product: v.productID,
                                 transactionID: v.transactionID, item: retry.flatMap { renewalItem[$0.identity] }))
            }
            if v.isUpgraded {
                out.append(Event(at: v.revocationMs ?? next, what: "Upgraded away", product: v.productID, transactionID: v.transactionID, item: newestItem[v.transactionID]))
            }
            guard let (end, at) = p.end else { continue }
            switch end {
            case let .expired(cause):
                let intent = own.last { $0.expirationCause != nil }
                let why = cause == .voluntary ? "the customer cancelled" : cause == .billing ? "billing failed" : "no renewal"
                out.append(Event(at: at, what: (p.trial ? "Trial expired: " : "Expired: ") + why, product: v.productID, transactionID: v.transactionID,
                                 item: intent.flatMap { renewalItem[$0.identity] } ?? newestItem[v.transactionID]))
            case .refunded:
                out.append(Event(at: at, what: "Refunded", product: v.productID, transactionID: v.transactionID, item: newestItem[v.transactionID]))
            case .revoked:
                out.append(Event(at: at, what: "Family Sharing revoked", product: v.productID, transactionID: v.transactionID, item: newestItem[v.transactionID]))
            }
        }
        return out.sorted { $0.at < $1.at }
    }
}

/// The customer view's HTML.
struct CustomerView {
    let request: MetricsRequest
    let asOf: Int64
    let subscriptions: [CustomerSubscription]
    let answers: [(String, Entitlement)]
    let items: [(id: Int64, summary: String, payload: String)]

    /// The items of `ledger_history()`'s document signed by `asOf`: id, what it was, its
    /// decoded payload (what was signed later is not part of an as-of view).
    static func items(_ history: String, signedBy asOf: Int64) -> [(id: Int64, summary: String, payload: String)] {
        guard case let .object(top)? = try? JSONParser.parse(Array(history.utf8)),
              case let .array(list)? = top.first(where: { $0.0 == "items" })?.1 else { return [] }
        return list.compactMap { item in
            guard case let .object(members) = item else { return nil }
            func member(_ name: String) -> JSONValue? { members.first { $0.0 == name }?.1 }
            guard case let .number(idText)? = member("id"), let id = Int64(idText) else { return nil }
            var parts: [String] = []
            if case let .string(kind)? = member("kind") { parts.append(kind) }
            if case let .string(type)? = member("notificationType") { parts.append(type) }
            if case let .string(subtype)? = member("subtype") { parts.append(subtype) }
            if case let .number(signed)? = member("signedDate"), let ms = Int64(signed) {
                guard ms <= asOf else { return nil }
                parts.append("signed \(HTML.date(ms))")
            }
            return (id, parts.joined(separator: " · "), member("payload").map(JSONWriter.serialize) ?? "")
        }
    }

    var body: String {
        var out = "<section aria-labelledby=\"entitled\"><h2 id=\"entitled\">Entitled now?</h2>\n"
        if answers.isEmpty {
            out += "<p class=\"note\">The ledger holds nothing signed for this customer by \(HTML.escape(HTML.date(asOf))).</p>\n"
        } else {
            out += "<table id=\"answers\"><thead><tr><th scope=\"col\">Product or entitlement</th><th scope=\"col\">Entitled</th><th scope=\"col\">Store</th><th scope=\"col\">Why</th><th scope=\"col\">Until</th></tr></thead><tbody>\n"
            for (subject, answer) in answers {
                let yes = answer.reason.entitles
                let store = answer.productID == nil ? "" : answer.store?.displayName ?? ""
                out += "<tr><th scope=\"row\">\(HTML.escape(subject))</th><td class=\"text \(yes ? "yes" : "no")\">\(yes ? "yes" : "no")</td>"
                out += "<td class=\"text\">\(store)</td>"
                out += "<td class=\"text\">\(HTML.escape(CustomerView.why(answer)))</td><td class=\"text\">\(answer.untilMs.map { HTML.escape(HTML.date($0)) } ?? "")</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        out += "</section>\n"
        for s in subscriptions {
            let id = ReportIDs.token(s.original)
            let store = s.versions.first?.store.declaration.subscriptionHeading ?? "Subscription"
            out += "<section aria-labelledby=\"s-\(id)\"><h2 id=\"s-\(id)\">\(store) \(HTML.escape(s.original))</h2>\n"
            if let life = s.life { out += "<figure>\n" + timeline(life, id: id, events: s.events()) + legend + "</figure>\n" }
            out += "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Events of subscription \(HTML.escape(s.original))\">"
            out += "<table class=\"events\" id=\"events-\(id)\"><thead><tr><th scope=\"col\">When</th><th scope=\"col\">What</th><th scope=\"col\">Product</th>"
            out += "<th scope=\"col\">Transaction</th><th scope=\"col\">Signed item</th></tr></thead><tbody>\n"
            for e in s.events() {
                out += "<tr><td class=\"text\">\(HTML.escape(HTML.date(e.at)))</td><td class=\"text\">\(HTML.escape(e.what))</td><td class=\"text\">\(HTML.escape(e.product))</td>"
                out += "<td class=\"text\">\(HTML.escape(e.transactionID))</td><td class=\"text\">\(e.item.map { "<a href=\"#item-\($0)\">item \($0)</a>" } ?? "")</td></tr>\n"
            }
            out += "</tbody></table></div></section>\n"
        }
        out += "<section aria-labelledby=\"items\"><h2 id=\"items\">Signed items</h2><ol class=\"items\">\n"
        for item in items {
            out += "<li id=\"item-\(item.id)\"><strong>item \(item.id)</strong> · \(HTML.escape(item.summary))"
            out += "<details><summary>Signed payload</summary><pre>\(HTML.escape(item.payload))</pre></details></li>\n"
        }
        return out + "</ol></section>\n"
    }

    private var legend: String {
        "<ul class=\"legend\">" + [("paid", "Paid period"), ("trial", "Free trial"), ("grace", "Grace period"), ("retry", "Billing retry, no access"),
                                   ("family", "Family Sharing")].map {
            "<li><span class=\"swatch \($0.0)\" aria-hidden=\"true\"></span>\($0.1)</li>"
        }.joined() + "</ul>\n"
    }

    /// The subscription's periods on a time axis of the request's interval; events as circles
    /// linked to their signed item (a group, not an image: an image's links would be hidden
    /// from assistive technology).
    private func timeline(_ life: SubscriptionLife, id: String, events: [CustomerSubscription.Event]) -> String {
        let width = 720, height = 92, left = 28, right = 28, laneTop = 18, laneHeight = 26
        let start = MetricsCalendar.start(of: request.from, request.granularity), end = max(request.to, start + 1)
        let span = Double(end - start)
        func x(_ ms: Int64) -> Double { Double(left) + Double(width - left - right) * Double(min(max(ms, start), end) - start) / span }
        func f(_ v: Double) -> String { HTML.coordinate(v) }
        var out = """
            <svg id="timeline-\(id)" class="timeline" role="group" aria-labelledby="timeline-\(id)-title" viewBox="0 0 \(width) \(height)" \
            width="\(width)" height="\(height)" xmlns="http://www.w3.org/2000/svg">
            <title id="timeline-\(id)-title">Timeline of subscription \(HTML.escape(life.original))</title>

            """
        for tick in MetricsCalendar.boundaries(from: start, to: end, .month) where tick >= start && tick <= end {
            out += "<line class=\"grid\" x1=\"\(f(x(tick)))\" x2=\"\(f(x(tick)))\" y1=\"\(laneTop - 4)\" y2=\"\(laneTop + laneHeight + 4)\"/>"
            out += "<text class=\"axis\" x=\"\(f(x(tick)))\" y=\"\(laneTop + laneHeight + 18)\" text-anchor=\"middle\">\(HTML.escape(HTML.bucket(tick, .month)))</text>\n"
        }
        func band(_ style: String, _ a: Int64, _ b: Int64, _ label: String) {
            guard b > start, a < end, b > a else { return }
            out += "<rect class=\"span \(style)\" x=\"\(f(x(a)))\" y=\"\(laneTop)\" width=\"\(f(max(1, x(b) - x(a))))\" height=\"\(laneHeight)\">"
            out += "<title>\(HTML.escape(label))</title></rect>\n"
        }
        for p in life.periods {
            let style = life.familyShared ? "family" : p.trial ? "trial" : "paid"
            band(style, p.start, p.coveredUntil, "\(p.version.productID): \(HTML.date(p.start)) to \(HTML.date(p.coveredUntil))")
            if let grace = p.graceUntil, let expires = p.version.expiresMs { band("grace", expires, grace, "Grace period to \(HTML.date(grace))") }
            if let retry = p.retryUntil { band("retry", p.graceUntil ?? p.version.expiresMs ?? p.start, retry, "Billing retry to \(HTML.date(retry))") }
        }
        if asOf >= start && asOf <= end {
            out += "<line class=\"now\" x1=\"\(f(x(asOf)))\" x2=\"\(f(x(asOf)))\" y1=\"4\" y2=\"\(laneTop + laneHeight + 6)\"><title>As of \(HTML.escape(HTML.date(asOf)))</title></line>\n"
        }
        for e in events where e.at >= start && e.at <= end {
            let circle = "<circle class=\"event\" cx=\"\(f(x(e.at)))\" cy=\"\(laneTop - 8)\" r=\"5\"><title>\(HTML.escape("\(HTML.date(e.at)): \(e.what)"))</title></circle>"
            let label = HTML.escape("\(HTML.date(e.at)): \(e.what)" + (e.item.map { ", item \($0)" } ?? ""))
            out += e.item.map { "<a href=\"#item-\($0)\" aria-label=\"\(label)\">\(circle)</a>\n" } ?? circle + "\n"
        }
        return out + "</svg>\n"
    }

    /// "Why?" in a sentence.
    static func why(_ e: Entitlement) -> String {
        let product = e.productID.map { " (\($0))" } ?? ""
        switch e.reason {
        case .subscription: return "A subscription period covers now\(product)."
        case .gracePeriod: return "Billing failed; the store's grace period still runs\(product)."
        case .nonConsumable: return "A non-consumable purchase\(product)."
        case .nonRenewing: return "A non-renewing subscription covers now\(product)."
        case .noPurchase: return "Nothing in the ledger matches."
        case .expired: return "The subscription ended\(product)."
        case .billingRetry: return "Billing failed; the store is retrying (or holds the account), with no grace period left\(product)."
        case .revoked: return "Refunded or revoked\(product)."
        case .notYetPurchased: return "The purchase is after the instant\(product)."
        case .consumable: return "Consumables never entitle\(product)."
        case .upgraded: return "Upgraded to another product of its group, or replaced by a newer purchase\(product)."
        case .onlyTestSigned: return "Only test-signed data matches."
        case .unknownType: return "Neither the purchase nor the catalog says what kind of product it is\(product)."
        case .paused: return "The customer paused the subscription\(product)."
        case .pending: return "The store awaits the payment; no access until it completes\(product)."
        case .unknownCustomer: return "The ledger holds nothing of this customer in this environment: a wrong id, or another environment's."
        case .unknownName: return "The catalog in effect names no such product, group or entitlement" + (e.didYouMean.map { " (did you mean \(Quoted.text($0))?)" } ?? "") + "."
        }
    }
}
