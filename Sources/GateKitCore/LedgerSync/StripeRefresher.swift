import GateKitLedger
import GateKitStripeAPI
import GateKitSupport

/// A Stripe purchase's questions ask Stripe (`ledger_set_stripe_refresher`): the subscription
/// read again with the merchant's key and ingested with the host's options. Stripe's answer is
/// the truth.
public struct StripeRefresher: PurchaseRefresher {
    public let client: StripeClient
    public let options: Ledger.StripeOptions

    public init(client: StripeClient, options: Ledger.StripeOptions) throws(GateKitError) {
        try Ledger.check(options)
        self.client = client
        self.options = options
    }

    public var store: PurchaseStore { .stripe }

    /// A test key answers for test mode (Sandbox), a live key for live purchases.
    public func answers(for scope: LedgerScope) -> Bool { scope == Ledger.stripeScope(livemode: !client.isTest) }

    public func refresh(_ ledger: Ledger, purchaseID: String, budgetMs: Int64) throws(GateKitError) -> Bool {
        _ = try ledger.refreshStripe(objectID: purchaseID, client: client, options: options, withinMilliseconds: Int(min(budgetMs, Int64(Int32.max))))
        return true
    }
}
