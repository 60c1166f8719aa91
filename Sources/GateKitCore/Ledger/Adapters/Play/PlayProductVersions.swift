import GateKitPlayData

/// A ProductPurchaseV2 in the ledger's model: the purchase token is the purchase, each line
/// item a transaction. Play owns a one-time product from its purchase until it is consumed:
/// unconsumed it entitles as a non-consumable (no end), consumed it is a consumable (never
/// entitles). Pending never entitles; a cancelled purchase is revoked, dated no later than
/// the answer that said so (the voided-purchases list dates it exactly).
extension ProductPurchase {
    func ledgerVersions(token: String, answeredMs: Int64, identity: String) -> [TransactionVersion] {
        let account = LedgerCustomer.normalizedToken(obfuscatedAccountID)
        return lineItems.map { item in
            var v = TransactionVersion(
                transactionID: orderID.map { lineItems.count > 1 ? "\($0)/\(item.productID)" : $0 } ?? "\(token)/\(item.productID)",
                purchaseID: token, appAccountToken: account, productID: item.productID, groupID: nil,
                productType: item.consumed ? .consumable : .nonConsumable, familyShared: false, purchaseMs: completedMs,
                originalPurchaseMs: completedMs, expiresMs: nil, revocationMs: state == .cancelled ? answeredMs : nil,
                revocationReason: state == .cancelled ? .other : nil, isUpgraded: false, offer: item.offerID == nil ? nil : .other,
                vouchedMs: answeredMs, identity: identity,
                sale: TransactionVersion.Sale(storefront: regionCode, trial: false, refund: state == .cancelled ? .full : nil))
            v.store = .play
            v.isPending = state == .pending
            v.acknowledged = acknowledged
            v.storeState = stateName
            // A state GateKit does not know entitles to nothing: kept, answered as pending.
            if case .other = state { v.isPending = true }
            return v
        }
    }
}
