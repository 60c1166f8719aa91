import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitSupport

/// An App Store purchase's questions ask Apple (`ledger_set_refresher`): the subscription's
/// statuses read through the App Store Server API and verified as any signed data is.
public struct AppStoreRefresher: PurchaseRefresher {
    public let client: AppStoreServerClient
    public let verification: JWSOptions

    public init(client: AppStoreServerClient, verification: JWSOptions) throws(GateKitError) {
        guard client.options.environment == verification.environment else {
            throw .invalid("the verification environment (\(verification.environment.rawValue)) is not the client's (\(client.options.environment.rawValue))")
        }
        self.client = client
        self.verification = verification
    }

    public var store: PurchaseStore { .appStore }

    public func answers(for scope: LedgerScope) -> Bool { verification.environment.rawValue == scope.environment }

    /// Apple's answer is evidence unless it could not be verified or said nothing of the
    /// subscription (an empty status list is no evidence that it ended).
    public func refresh(_ ledger: Ledger, purchaseID: String, budgetMs: Int64) throws(GateKitError) -> Bool {
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(budgetMs) &* 1_000_000
        let report = try CustomerRefresh.run(ledger: ledger, client: client, verification: verification, customer: purchaseID,
                                             depth: .statusesOnly, deadline: deadline)
        return report.tally.rejected == 0 && report.statusItems > 0
    }
}
