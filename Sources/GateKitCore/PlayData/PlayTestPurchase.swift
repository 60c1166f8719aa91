import GateKitSupport

/// Whether Google answered about a license tester's purchase, which is never a sale: one rule
/// per resource, read here only (the ledger's mapping and the Python package's models, through
/// `play_purchase_is_test`, ask it).
package enum PlayTestPurchase {
    /// The API resource an answer is (`GATEKIT_PLAY_RESOURCE_*`).
    package enum Resource: Int32, Sendable {
        case subscriptionV2 = 1, productV2 = 2, product = 3

        package var name: String {
            switch self {
            case .subscriptionV2: "SubscriptionPurchaseV2"
            case .productV2: "ProductPurchaseV2"
            case .product: "ProductPurchase"
            }
        }

        var kind: String {
            switch self {
            case .subscriptionV2: "androidpublisher#subscriptionPurchaseV2"
            case .productV2: "androidpublisher#productPurchaseV2"
            case .product: "androidpublisher#productPurchase"
            }
        }
    }

    /// The rule on an answer already being read as `resource`.
    package static func isTest(_ read: PlayReader, _ resource: Resource) throws(GateKitError) -> Bool {
        switch resource {
        case .subscriptionV2: try read.object("testPurchase") != nil
        case .productV2: try read.object("testPurchaseContext") != nil
        case .product: try read.int64("purchaseType") == 0
        }
    }

    /// The rule on an answer's bytes (its `kind`, when it has one, must be the resource's).
    package static func isTest(json: [UInt8], _ resource: Resource) throws(GateKitError) -> Bool {
        let read = try PlayReader(answer: json, resource.name)
        try read.requireKind(resource.kind, required: false)
        return try isTest(read, resource)
    }
}
