import GateKitSupport

/// A ProductPurchaseV2 (purchases.productsv2.getproductpurchasev2: a one-time product), or the
/// v1 ProductPurchase of purchases.products.get, as the Play Developer API answered it, read strictly into what an entitlement decides on; the
/// answer's bytes are what the ledger keeps. A member it reads with the wrong type is an
/// error, never a default.
package struct ProductPurchase: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case purchased, cancelled, pending
        /// A state newer than GateKit (or none): kept as Google named it, never entitling.
        case other(String)
    }

    package struct LineItem: Sendable, Equatable {
        package let productID: String
        package let quantity: Int64
        /// How many are not yet refunded; nil when Google did not say.
        package let refundableQuantity: Int64?
        package let consumed: Bool
        package let offerID: String?
    }

    package let state: State
    /// The state as Google named it ("PURCHASED"), kept as is.
    package let stateName: String
    /// When it became PURCHASED; nil while pending.
    package let completedMs: Int64?
    package let orderID: String?
    package let lineItems: [LineItem]
    /// A license tester's purchase: never a sale.
    package let isTest: Bool
    package let acknowledged: Bool?
    package let obfuscatedAccountID: String?
    package let regionCode: String?

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try PlayReader(answer: json, "ProductPurchaseV2")
        try read.requireKind("androidpublisher#productPurchaseV2", required: false)
        let name = try read.object("purchaseStateContext").flatMap { (o) throws(GateKitError) in
            try PlayReader(o, "ProductPurchaseV2.purchaseStateContext").string("purchaseState")
        } ?? "PURCHASE_STATE_UNSPECIFIED"
        stateName = name
        switch name {  // the reference lists the short names; the proto enum's long ones are read too
        case "PURCHASED", "PURCHASE_STATE_PURCHASED": state = .purchased
        case "CANCELLED", "PURCHASE_STATE_CANCELLED": state = .cancelled
        case "PENDING", "PURCHASE_STATE_PENDING": state = .pending
        default: state = .other(name)
        }
        completedMs = try read.time("purchaseCompletionTime")
        orderID = try read.string("orderId")
        isTest = try PlayTestPurchase.isTest(read, .productV2)
        acknowledged = try read.string("acknowledgementState").map { $0 == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" }
        obfuscatedAccountID = try read.string("obfuscatedExternalAccountId")
        regionCode = try read.string("regionCode")
        var items: [LineItem] = []
        for (index, item) in try read.array("productLineItem").enumerated() {
            let path = "ProductPurchaseV2.productLineItem[\(index)]"
            let line = PlayReader(item, path)
            guard let product = try line.string("productId"), !product.isEmpty else { throw GateKitError(.EPLAY_RESPONSE, "\(path) has no productId") }
            let offer = try line.object("productOfferDetails").map { PlayReader($0, "\(path).productOfferDetails") }
            let quantity = try offer?.int64("quantity") ?? 1
            let refundable = try offer?.int64("refundableQuantity")
            try ProductPurchase.checkQuantities(quantity, refundable, path)
            let consumption = try offer?.string("consumptionState")
            items.append(LineItem(productID: product, quantity: quantity, refundableQuantity: refundable,
                                  consumed: consumption == "CONSUMPTION_STATE_CONSUMED" || consumption == "CONSUMED",
                                  offerID: try offer?.string("offerId")))
        }
        guard !items.isEmpty else { throw GateKitError(.EPLAY_RESPONSE, "the ProductPurchaseV2 has no productLineItem: it names no product") }
        lineItems = items
    }

    /// A line's quantity is 1 or more, and what is not yet refunded 0 to that quantity.
    private static func checkQuantities(_ quantity: Int64, _ refundable: Int64?, _ path: String) throws(GateKitError) {
        guard quantity >= 1, refundable.map({ $0 >= 0 && $0 <= quantity }) ?? true else {
            throw GateKitError(.EPLAY_RESPONSE, "\(path) has quantity \(quantity) and refundableQuantity \(refundable ?? 0): not 1 or more, and 0 to the quantity")
        }
    }

    /// A purchases.products.get answer (the v1 ProductPurchase most apps' code still reads), in
    /// the same model: one line item, of the product the request named (the answer may leave
    /// productId out; one it names must be that product). Its numbers are Google's v1 codes:
    /// purchaseState 0 purchased, 1 canceled, 2 pending; purchaseType 0 a license tester's.
    package init(v1 json: [UInt8], productID: String) throws(GateKitError) {
        let read = try PlayReader(answer: json, "ProductPurchase")
        try read.requireKind("androidpublisher#productPurchase")
        guard !productID.isEmpty else { throw .invalid("product_id is empty: a products.get answer is read for the product its request named") }
        if let named = try read.string("productId"), named != productID {
            throw GateKitError(.EPLAY_RESPONSE, "the ProductPurchase names productId \(Quoted.text(named)), not \(Quoted.text(productID)), the product asked about")
        }
        let code = try read.int64("purchaseState")
        switch code {
        case 0: (state, stateName) = (.purchased, "PURCHASED")
        case 1: (state, stateName) = (.cancelled, "CANCELLED")
        case 2: (state, stateName) = (.pending, "PENDING")
        default:
            let name = code.map { "PURCHASE_STATE_\($0)" } ?? "PURCHASE_STATE_UNSPECIFIED"
            (state, stateName) = (.other(name), name)
        }
        let purchased = try read.int64("purchaseTimeMillis")
        completedMs = state == .pending ? nil : purchased
        orderID = try read.string("orderId")
        isTest = try PlayTestPurchase.isTest(read, .product)
        acknowledged = try read.int64("acknowledgementState").map { $0 == 1 }
        obfuscatedAccountID = try read.string("obfuscatedExternalAccountId")
        regionCode = try read.string("regionCode")
        let quantity = try read.int64("quantity") ?? 1
        let refundable = try read.int64("refundableQuantity")
        try ProductPurchase.checkQuantities(quantity, refundable, "the ProductPurchase")
        lineItems = [LineItem(productID: productID, quantity: quantity, refundableQuantity: refundable,
                              consumed: try read.int64("consumptionState") == 1, offerID: nil)]
    }
}
