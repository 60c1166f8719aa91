import GateKitJWS
import GateKitReceipts

/// Apple's data as the ledger's model: a verified StoreKit 2 transaction or a receipt's
/// purchase as a `TransactionVersion`. Apple's codes are named here, once; an Apple code the
/// model has no name for maps to its `other`.
extension TransactionVersion {
    /// A verified StoreKit 2 transaction. Nil when it lacks the ids the ledger keys on.
    public init?(_ t: JWSTransaction, identity: String) {
        let f = t.fields
        guard let id = f.transactionId, let original = f.originalTransactionId, let product = f.productId,
              let signed = f.signedDate else { return nil }
        transactionID = id
        purchaseID = original
        appAccountToken = LedgerCustomer.normalizedToken(f.appAccountToken)
        productID = product
        groupID = f.subscriptionGroupIdentifier
        productType = ProductType(jwsType: f.type)
        familyShared = f.inAppOwnershipType == "FAMILY_SHARED"
        purchaseMs = f.purchaseDate
        originalPurchaseMs = f.originalPurchaseDate
        expiresMs = f.expiresDate
        revocationMs = f.revocationDate ?? (f.revocationReason != nil ? f.signedDate : nil)
        revocationReason = f.revocationReason.map(AppleCodes.revocationReason)
        isUpgraded = f.isUpgraded ?? false
        offer = f.offerType.map(AppleCodes.offer)
        vouchedMs = signed
        self.identity = identity
        sale = Sale(f)
    }

    /// A purchase of a verified receipt, signed when the receipt was created.
    public init?(_ p: InAppPurchase, receiptCreatedMs: Int64, identity: String) {
        guard let id = p.transactionID, let product = p.productID else { return nil }
        transactionID = id
        purchaseID = p.originalTransactionID ?? id
        appAccountToken = nil
        productID = product
        groupID = nil
        productType = ProductType(receiptType: p.productType, hasExpiry: p.expiresDate != nil,
                                  hasWebOrderLineItem: p.webOrderLineItemID != nil)
        familyShared = false
        purchaseMs = p.purchaseDate?.milliseconds
        originalPurchaseMs = p.originalPurchaseDate?.milliseconds
        expiresMs = p.expiresDate?.milliseconds
        revocationMs = p.cancellationDate?.milliseconds
        revocationReason = nil
        isUpgraded = false
        offer = (p.isTrialPeriod == true || p.isInIntroOfferPeriod == true) ? .introductory
            : (p.promotionalOfferID != nil ? .promotional : nil)
        vouchedMs = receiptCreatedMs
        self.identity = identity
        sale = Sale(trial: p.isTrialPeriod == true)
    }
}

extension TransactionVersion.Sale {
    /// From a StoreKit 2 transaction's fields.
    public init(_ f: JWSTransaction.Fields) {
        // A free trial: Apple's FREE_TRIAL discount, or an introductory offer at price 0.
        self.init(price: f.price, currency: f.currency, storefront: f.storefront,
                  trial: f.offerDiscountType == "FREE_TRIAL" || (f.offerType.map(AppleCodes.offer) == .introductory && f.price == 0),
                  refund: f.revocationType.flatMap(RefundKind.init(rawValue:)), revocationPercentage: f.revocationPercentage)
    }
}
