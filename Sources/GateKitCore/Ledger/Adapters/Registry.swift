/// The stores this build's ledger holds and the kinds of item each brings, as their adapters
/// declare them: the one list of them, as SQLite's os_init lists its built-in VFSes. The core
/// reads a stored code or number through these lists and never names a store.
extension PurchaseStore {
    package static let declared: [PurchaseStore.Declaration] = [.appStore, .play, .grant, .stripe]
}

extension IngestReport.Kind {
    package static let known: [IngestReport.Kind] = [.notification, .transaction, .renewalInfo, .receipt, .appTransaction,
                                                     .playSubscription, .playProduct, .playNotification, .grant,
                                                     .stripeSubscription, .stripeCheckoutSession, .stripeInvoice, .stripeCharge,
                                                     .stripeDispute]
}
