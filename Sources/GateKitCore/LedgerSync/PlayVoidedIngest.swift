import GateKitLedger
import GateKitPlayAPI
import GateKitPlayData
import GateKitSupport

/// Voided purchases a host already holds (its own voidedpurchases.list answers): recorded as
/// the sync records the voids it reads, each once — the purchase asked about again through the
/// client and its order revoked at Google's voided instant. A page is Google's answer, as
/// trusted as any answer the host hands the ledger; a push's void is not (docs/play.md).
public enum PlayVoidedIngest {
    public struct Report: Sendable, Equatable {
        /// Voids recorded; voids recorded before; voids of tokens the ledger does not hold.
        public var voided = 0, voidedBefore = 0, voidedUnknown = 0

        public var json: String {
            JSONWriter.serialize(.object([
                ("version", .number(1)), ("voided", .number(Int64(voided))), ("voidedBefore", .number(Int64(voidedBefore))),
                ("voidedUnknown", .number(Int64(voidedUnknown))),
            ]))
        }
    }

    /// `page`: a voidedpurchases.list answer's bytes (`{"voidedPurchases": [...]}`), as held.
    public static func ingest(_ ledger: Ledger, page: [UInt8], client: PlayDeveloperClient) throws(GateKitError) -> Report {
        var report = Report()
        try record(try VoidedPurchasesPage(body: page, serverDate: nil).entries, ledger, client: client, into: &report)
        return report
    }

    /// Each void recorded (the sync's pages too), counted in `report` by what became of it.
    static func record(_ entries: [VoidedPurchasesPage.Entry], _ ledger: Ledger, client: PlayDeveloperClient,
                       into report: inout Report) throws(GateKitError) {
        for void in entries {
            guard let holding = try ledger.playHolding(token: void.purchaseToken) else {
                report.voidedUnknown += 1
                continue
            }
            if try ledger.recordPlayVoid(void, holding: holding, client: client).outcome == .duplicate {
                report.voidedBefore += 1
            } else {
                report.voided += 1
            }
        }
    }
}
