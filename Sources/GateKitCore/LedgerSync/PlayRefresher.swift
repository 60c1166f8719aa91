import GateKitLedger
import GateKitPlayAPI
import GateKitSupport

/// A Google Play purchase's questions ask Google (`ledger_set_play_refresher`): the purchase
/// token read again through the Play Developer API. Google's answer is the truth.
public struct PlayRefresher: PurchaseRefresher {
    public let client: PlayDeveloperClient

    public init(client: PlayDeveloperClient) { self.client = client }

    public var store: PurchaseStore { .play }

    /// Play purchases (a license tester's too) are asked in one environment.
    public func answers(for scope: LedgerScope) -> Bool { true }

    public func refresh(_ ledger: Ledger, purchaseID: String, budgetMs: Int64) throws(GateKitError) -> Bool {
        guard let holding = try ledger.playHolding(token: purchaseID) else { return false }
        _ = try ledger.refreshPlay(token: purchaseID, holding: holding, client: client, withinMilliseconds: Int(min(budgetMs, Int64(Int32.max))))
        return true
    }
}
