import GateKitSupport

/// One page of `purchases.voidedpurchases.list` (google-play.md §3.11), subscriptions included
/// (`type=1`): Google's own record of the orders it revoked. The only source a void is believed
/// from: a push saying "voided" names a purchase to look up, never a void to apply.
package struct VoidedPurchasesPage: Sendable {
    package struct Entry: Sendable, Equatable {
        package let purchaseToken: String
        /// The voided order (a subscription's renewal has its own); nil when Google gave none.
        package let orderID: String?
        package let voidedMs: Int64
        /// A quantity-based partial refund (`voidedQuantity`) of a quantity-N purchase.
        package let voidedQuantity: Int64?

        package init(purchaseToken: String, orderID: String?, voidedMs: Int64, voidedQuantity: Int64?) {
            self.purchaseToken = purchaseToken
            self.orderID = orderID
            self.voidedMs = voidedMs
            self.voidedQuantity = voidedQuantity
        }
    }

    package let entries: [Entry]
    package let nextPageToken: String?
    /// When Google answered (its `Date`), when it sent one.
    package let serverDate: Int64?

    /// Most voids one page may hold (`maxResults` is 1000): a larger page is refused unread.
    package static let maximumEntries = 1000
    /// Google keeps voided purchases for 30 days; a window never starts before that (less five
    /// minutes, so a request's own time in flight cannot carry it past).
    package static let horizonMs: Int64 = 30 * 86_400_000 - 300_000
    /// Google records a void a little after its instant: a read starts this long before.
    package static let lateRecordingMs: Int64 = 600_000
    /// A page token longer than this cannot be sent back in a URL: treated as a cycle.
    package static let maximumPageTokenLength = 4096

    package init(body: [UInt8], serverDate: Int64?) throws(GateKitError) {
        let page: JSONValue
        do { page = try JSONParser.parse(body) } catch { throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: the answer is not JSON") }
        guard case .object = page else { throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: the answer is not a JSON object") }
        // Google leaves the member out of an empty page; any other type is not its answer.
        var items: [JSONValue] = []
        switch page["voidedPurchases"] {
        case nil: break
        case let .array(found)?: items = found
        case _?: throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: voidedPurchases is not an array")
        }
        guard items.count <= VoidedPurchasesPage.maximumEntries else {
            throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: a page of \(items.count) voided purchases; Google sends at most \(VoidedPurchasesPage.maximumEntries)")
        }
        func integer(_ value: JSONValue?) -> Int64? { value?.stringValue.flatMap { Int64($0) } ?? value?.int64Value }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            guard let token = item["purchaseToken"]?.stringValue, !token.isEmpty, let voided = integer(item["voidedTimeMillis"]) else {
                throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: a voided purchase without purchaseToken or voidedTimeMillis")
            }
            let order = item["orderId"]?.stringValue
            entries.append(Entry(purchaseToken: token, orderID: order?.isEmpty == true ? nil : order, voidedMs: voided,
                                 voidedQuantity: item["voidedQuantity"].map { integer($0) ?? 1 }))
        }
        self.entries = entries
        let next = page["tokenPagination"]?["nextPageToken"]?.stringValue
        nextPageToken = next?.isEmpty == true ? nil : next
        self.serverDate = serverDate
    }
}
