import GateKitStore

/// The sync's own tables (migration 6): where each environment's notification-history sync
/// stands, and the transaction-history revision Apple gave for each customer refreshed.
package enum LedgerSyncSchema {
    package static let sync = Migration([
        .table("ledger_sync", [
            Column("environment", .text, notNull: true, primaryKey: true),
            // Every notification Apple attempted before this instant is ingested (nil: never caught up).
            Column("synced_until_ms", .integer),
            // The window under way, and the page token to continue it with (nil: its first page).
            Column("window_start_ms", .integer),
            Column("window_end_ms", .integer),
            Column("page_token", .text),
            Column("pages", .integer, notNull: true, check: "pages >= 0"),
            // One host syncs at a time: who, and until when unless it renews.
            Column("lease_owner", .text),
            Column("lease_until_ms", .integer),
            Column("updated_ms", .integer, notNull: true),
        ]),
        .table("ledger_refresh", [
            Column("environment", .text, notNull: true),
            Column("original_transaction_id", .text, notNull: true),
            Column("revision", .text),
            Column("refreshed_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, original_transaction_id)"], withoutRowID: true),
    ])

    /// Migration 21: what a sync remembers across calls, so that calls of a few pages each end
    /// as one long call would: the digests of the window's page tokens sent so far (a server
    /// repeating one across calls is a cycle, found) and how often the window was begun again
    /// for one, and the Play token the refresh pass last asked about (the next call goes on
    /// after it, so every due token is refreshed in turn).
    package static let syncMemory = Migration([
        .addColumn("ledger_sync", Column("page_tokens_seen", .text)),
        .addColumn("ledger_sync", Column("window_restarts", .integer)),
        .addColumn("ledger_sync", Column("refresh_cursor", .text)),
    ])
}
