import GateKitEULA
import GateKitLedger
import GateKitLedgerSync
import GateKitPermissions
import GateKitStore

extension StoreSchema {
    /// The library's store: each domain's migrations, in the order they were released. Append
    /// new ones (written once with `DDL`, rendered per backend); never edit or reorder one.
    public static let gatekit = StoreSchema([
        StoreTables.metadata + EULASchema.decisions,  // 1
        PermissionSchema.states,                       // 2
        LedgerSchema.ledger,                           // 3
        StoreTables.writeLocks,                        // 4
        LedgerSchema.catalogs,                         // 5
        LedgerSyncSchema.sync,                         // 6
        LedgerSchema.accounts,                         // 7
        LedgerSchema.changes,                          // 8
        EULASchema.consent,                            // 9
        EULASchema.versions,                           // 10
        LedgerSchema.sales,                            // 11
        LedgerSchema.metricsRollup,                    // 12
        EULASchema.publicationSeals,                   // 13
        LedgerSchema.pauses,                           // 14
        LedgerSchema.play,                             // 15
        LedgerSchema.metricsAsKnown,                   // 16
        LedgerSchema.metricsSharedPaid,                // 17
        LedgerSchema.metricsDayChanges,                // 18
        LedgerSchema.metricsPaidByDay,                 // 19
        LedgerSchema.playTokens,                       // 20
        LedgerSyncSchema.syncMemory,                   // 21
        LedgerSchema.compactedReads,                   // 22
        LedgerSchema.attributions,                     // 23
        LedgerSchema.payments,                         // 24
        LedgerSchema.lookupKeys,                       // 25
        LedgerSchema.partialRefunds,                   // 26
        LedgerSchema.webhookOutbox,                    // 27
        LedgerSchema.transferCause,                    // 28
        LedgerSchema.feedNotices,                      // 29
        LedgerSchema.metricsByStore,                   // 30
        LedgerSchema.checksWithoutTemporaryTrees,      // 31
    ])
}
