import GateKitSupport

/// A Subscription as Stripe's API renders it at a 2025+ version (docs.stripe.com, basil on:
/// each item carries its own current period), read strictly into what an entitlement decides
/// on; the object's bytes are what the ledger keeps. Members GateKit does not read are ignored
/// here and kept in the bytes; a member it reads with the wrong type is an error, never a default.
package struct StripeSubscription: Sendable, Equatable {
    package enum Status: Sendable, Equatable {
        case incomplete, incompleteExpired, trialing, active, pastDue, canceled, unpaid, paused
        /// A status newer than GateKit: kept as Stripe named it, never mapped to a near one.
        case other(String)

        static let names: [String: Status] = [
            "incomplete": .incomplete, "incomplete_expired": .incompleteExpired, "trialing": .trialing, "active": .active,
            "past_due": .pastDue, "canceled": .canceled, "unpaid": .unpaid, "paused": .paused,
        ]
    }

    package struct Item: Sendable, Equatable {
        package let id: String
        package let priceID: String
        package let productID: String
        /// The key the merchant gave the price (`lookup_key`), which it can move to another price.
        package let lookupKey: String?
        package let quantity: Int64
        /// The price per unit, when the price has one (`billing_scheme=per_unit`).
        package let unitAmount: StripeMoney?
        /// The period the item is billed for now (Unix ms).
        package let periodStartMs: Int64
        package let periodEndMs: Int64
    }

    package let id: String
    package let customerID: String?
    package let status: Status
    /// The status as Stripe named it ("past_due"), kept as is.
    package let statusName: String
    package let livemode: Bool
    package let items: [Item]
    package let startMs: Int64?
    package let trialStartMs: Int64?
    package let trialEndMs: Int64?
    package let cancelAtPeriodEnd: Bool
    package let cancelAtMs: Int64?
    package let canceledAtMs: Int64?
    package let endedAtMs: Int64?
    /// Collection paused (`pause_collection`): the status stays what it was.
    package let collectionPaused: Bool
    package let latestInvoiceID: String?
    package let metadata: [String: String]

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try StripeReader(object: json, kind: "subscription")
        try self.init(read)
    }

    package init(_ read: StripeReader) throws(GateKitError) {
        guard try read.string("object") == "subscription" else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path) is not a Stripe subscription (its \"object\" is not \"subscription\")")
        }
        id = try read.required(read.id("id"), "id")
        customerID = try read.reference("customer")
        statusName = try read.required(read.string("status"), "status")
        status = Status.names[statusName] ?? .other(statusName)
        livemode = try read.required(read.bool("livemode"), "livemode")
        startMs = try read.time("start_date")
        trialStartMs = try read.time("trial_start")
        trialEndMs = try read.time("trial_end")
        cancelAtPeriodEnd = try read.bool("cancel_at_period_end") ?? false
        cancelAtMs = try read.time("cancel_at")
        canceledAtMs = try read.time("canceled_at")
        endedAtMs = try read.time("ended_at")
        collectionPaused = try read.object("pause_collection") != nil
        latestInvoiceID = try read.reference("latest_invoice")
        metadata = try read.strings("metadata")
        guard let (items, hasMore) = try read.list("items") else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path) has no items: a subscription always lists them")
        }
        guard !hasMore else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path).items has more pages than the object carries (over 20 items): list them whole first")
        }
        self.items = try items.map { (item) throws(GateKitError) in try StripeSubscription.item(item) }
    }

    private static func item(_ read: StripeReader) throws(GateKitError) -> Item {
        let price = try read.required(read.object("price"), "price")
        let currency = try price.string("currency")
        let unit = try price.int64("unit_amount")
        return Item(id: try read.required(read.id("id"), "id"), priceID: try price.required(price.id("id"), "id"),
                    productID: try price.required(price.reference("product"), "product"), lookupKey: try price.string("lookup_key"),
                    quantity: try read.int64("quantity") ?? 1, unitAmount: currency.flatMap { c in unit.map { StripeMoney(currency: c, minorUnits: $0) } },
                    periodStartMs: try period(read, "current_period_start"), periodEndMs: try period(read, "current_period_end"))
    }

    /// An item's period: on every item since 2025-03-31.basil (before, on the subscription,
    /// which the ledger does not read: an older answer would look like one with no end).
    private static func period(_ read: StripeReader, _ name: String) throws(GateKitError) -> Int64 {
        guard let ms = try read.time(name) else {
            throw GateKitError(.ESTRIPE_OBJECT, "\(read.path) has no \(name): read the subscription at Stripe-Version 2025-03-31.basil or later, where each item carries its period")
        }
        return ms
    }
}
