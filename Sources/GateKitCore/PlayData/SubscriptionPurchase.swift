import GateKitSupport

/// A SubscriptionPurchaseV2, as the Play Developer API answered it, read strictly into what
/// an entitlement decides on (the ledger's Play adapter reads this; the answer's bytes are
/// what is kept). Members GateKit does not read are ignored here and kept in the bytes; a
/// member it reads with the wrong type is an error, never a default.
package struct SubscriptionPurchase: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case pending, active, paused, inGracePeriod, onHold, canceled, expired, pendingPurchaseCanceled, unspecified
        /// A state newer than GateKit: kept as Google named it, never mapped to a near one.
        case other(String)

        static let names: [String: State] = [
            "SUBSCRIPTION_STATE_PENDING": .pending, "SUBSCRIPTION_STATE_ACTIVE": .active, "SUBSCRIPTION_STATE_PAUSED": .paused,
            "SUBSCRIPTION_STATE_IN_GRACE_PERIOD": .inGracePeriod, "SUBSCRIPTION_STATE_ON_HOLD": .onHold,
            "SUBSCRIPTION_STATE_CANCELED": .canceled, "SUBSCRIPTION_STATE_EXPIRED": .expired,
            "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED": .pendingPurchaseCanceled, "SUBSCRIPTION_STATE_UNSPECIFIED": .unspecified,
        ]
    }

    /// Who ended renewal (`canceledStateContext`'s one member).
    package enum Cancellation: Sendable, Equatable {
        case user(cancelMs: Int64?)
        case system, developer, replacement
        /// A cause newer than GateKit (or none named): Google's enumerations are open.
        case unknown
    }

    package enum OfferPhase: String, Sendable {
        case basePrice, freeTrial, introductoryPrice, prorationPeriod
    }

    /// An amount exactly as Google sent it: whole units and billionths.
    package struct Money: Sendable, Equatable {
        package let currency: String
        package let units: Int64
        package let nanos: Int64

        /// Milliunits (the ledger's price unit: 9990 is 9.99), when exact.
        package var milliunits: Int64? {
            guard nanos % 1_000_000 == 0 else { return nil }
            let (whole, o1) = units.multipliedReportingOverflow(by: 1000)
            let (total, o2) = whole.addingReportingOverflow(nanos / 1_000_000)
            return o1 || o2 ? nil : total
        }
    }

    package struct LineItem: Sendable, Equatable {
        package let productID: String
        package let expiryMs: Int64?
        /// Auto-renewing items: whether the next period will be charged. Nil for prepaid items.
        package let autoRenewEnabled: Bool?
        package let prepaid: Bool
        package let basePlanID: String?
        package let offerID: String?
        package let phase: OfferPhase?
        package let latestSuccessfulOrderID: String?
        package let recurringPrice: Money?
        /// The product that replaces this item at its renewal (a deferred plan change).
        package let deferredReplacementProductID: String?
    }

    package let state: State
    /// The state as Google named it ("SUBSCRIPTION_STATE_ACTIVE"), kept as is.
    package let stateName: String
    package let startMs: Int64?
    package let lineItems: [LineItem]
    package let linkedPurchaseToken: String?
    package let pausedUntilMs: Int64?
    package let cancellation: Cancellation?
    /// A license tester's purchase: never a sale.
    package let isTest: Bool
    package let acknowledged: Bool?
    package let obfuscatedAccountID: String?
    package let obfuscatedProfileID: String?
    /// A resubscription bought in the Play Store rather than the app carries no account of its
    /// own: Google names the expired purchase's (`outOfAppPurchaseContext`), to link it through.
    package let outOfAppAccountID: String?
    package let regionCode: String?

    /// A SubscriptionPurchaseV2 is a few KB; 1 MiB bounds the work (`PlayReader.maximumLength`).
    package static let maximumLength = PlayReader.maximumLength

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try PlayReader(answer: json, "SubscriptionPurchaseV2")
        try read.requireKind("androidpublisher#subscriptionPurchaseV2")
        let stateName = try read.string("subscriptionState") ?? "SUBSCRIPTION_STATE_UNSPECIFIED"
        self.stateName = stateName
        state = State.names[stateName] ?? .other(stateName)
        startMs = try read.time("startTime")
        linkedPurchaseToken = try read.string("linkedPurchaseToken")
        pausedUntilMs = try read.object("pausedStateContext").flatMap { (o) throws(GateKitError) in try PlayReader(o, "pausedStateContext").time("autoResumeTime") }
        cancellation = try read.object("canceledStateContext").map { (o) throws(GateKitError) in try SubscriptionPurchase.cancellation(o) }
        isTest = try PlayTestPurchase.isTest(read, .subscriptionV2)
        acknowledged = try read.string("acknowledgementState").map { $0 == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" }
        let ids = try read.object("externalAccountIdentifiers").map { PlayReader($0, "externalAccountIdentifiers") }
        obfuscatedAccountID = try ids?.string("obfuscatedExternalAccountId")
        obfuscatedProfileID = try ids?.string("obfuscatedExternalProfileId")
        regionCode = try read.string("regionCode")
        let outOfApp = try read.object("outOfAppPurchaseContext").map { PlayReader($0, "outOfAppPurchaseContext") }
        let expiredIDs = try outOfApp?.object("expiredExternalAccountIdentifiers").map {
            PlayReader($0, "outOfAppPurchaseContext.expiredExternalAccountIdentifiers")
        }
        outOfAppAccountID = try expiredIDs?.string("obfuscatedExternalAccountId")
        var items: [LineItem] = []
        for (index, item) in try read.array("lineItems").enumerated() {
            items.append(try SubscriptionPurchase.lineItem(item, "lineItems[\(index)]"))
        }
        lineItems = items
    }

    private static func cancellation(_ context: JSONValue) throws(GateKitError) -> Cancellation {
        let read = PlayReader(context, "canceledStateContext")
        if let user = try read.object("userInitiatedCancellation") {
            return .user(cancelMs: try PlayReader(user, "userInitiatedCancellation").time("cancelTime"))
        }
        if try read.object("systemInitiatedCancellation") != nil { return .system }
        if try read.object("developerInitiatedCancellation") != nil { return .developer }
        if try read.object("replacementCancellation") != nil { return .replacement }
        return .unknown
    }

    private static func lineItem(_ item: JSONValue, _ path: String) throws(GateKitError) -> LineItem {
        let read = PlayReader(item, path)
        guard let product = try read.string("productId") else { throw GateKitError(.EPLAY_RESPONSE, "\(path) has no productId") }
        let plan = try read.object("autoRenewingPlan").map { PlayReader($0, "\(path).autoRenewingPlan") }
        let offer = try read.object("offerDetails").map { PlayReader($0, "\(path).offerDetails") }
        var phase: OfferPhase?
        if let phases = try read.object("offerPhase"), case let .object(members) = phases {
            phase = members.first.flatMap { OfferPhase(rawValue: $0.0) }
        }
        let price = try plan?.object("recurringPrice").map { (o) throws(GateKitError) in try money(o, "\(path).autoRenewingPlan.recurringPrice") }
        return LineItem(productID: product, expiryMs: try read.time("expiryTime"), autoRenewEnabled: try plan?.bool("autoRenewEnabled"),
                        prepaid: try read.object("prepaidPlan") != nil, basePlanID: try offer?.string("basePlanId"),
                        offerID: try offer?.string("offerId"), phase: phase,
                        latestSuccessfulOrderID: try read.string("latestSuccessfulOrderId"), recurringPrice: price,
                        deferredReplacementProductID: try read.object("deferredItemReplacement").flatMap { (o) throws(GateKitError) in
                            try PlayReader(o, "\(path).deferredItemReplacement").string("productId")
                        })
    }

    private static func money(_ value: JSONValue, _ path: String) throws(GateKitError) -> Money {
        let read = PlayReader(value, path)
        guard let currency = try read.string("currencyCode") else { throw GateKitError(.EPLAY_RESPONSE, "\(path) has no currencyCode") }
        let units = try read.int64("units") ?? 0
        let nanos = try read.int64("nanos") ?? 0
        guard nanos > -1_000_000_000, nanos < 1_000_000_000, units == 0 || nanos == 0 || (units < 0) == (nanos < 0) else {
            throw GateKitError(.EPLAY_RESPONSE, "\(path) has nanos \(nanos) for units \(units): Google's Money keeps them within a unit, of one sign")
        }
        return Money(currency: currency, units: units, nanos: nanos)
    }
}
