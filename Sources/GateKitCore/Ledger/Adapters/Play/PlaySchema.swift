import GateKitStore

/// Google Play's own migrations (released: never edited), kept with its adapter; the Schema
/// layer lists them in their place in the store's order.
extension LedgerSchema {
    /// Migration 15: Google Play beside the App Store (docs/ledger.md, "Google Play"). Each
    /// version names its store (NULL: the App Store), the subscription it replaced (a token
    /// chain), whether it awaits payment, whether it was acknowledged, and the store's own state
    /// name; an item names its Play kind (its `kind` column keeps the released 1-5). Status
    /// changes gain Play's statuses (paused, pending): SQLite cannot alter a CHECK, so that table
    /// is rebuilt with its rows, index and append-only triggers; PostgreSQL replaces the checks.
    package static let play = Migration([
        .addColumn("ledger_transactions", Column("store", .text, check: "store IN ('play')")),
        .addColumn("ledger_transactions", Column("replaces", .text)),
        .addColumn("ledger_transactions", Column("pending", .integer, check: "pending IN (0, 1)")),
        .addColumn("ledger_transactions", Column("acknowledged", .integer, check: "acknowledged IN (0, 1)")),
        .addColumn("ledger_transactions", Column("store_state", .text)),
        .index("ledger_transactions_by_replaced", on: "ledger_transactions", ["environment", "test_signed", "replaces"], where: "replaces IS NOT NULL"),
        .addColumn("ledger_items", Column("store_kind", .text, check: "store_kind IN ('play-subscription', 'play-product', 'play-notification')")),
    ]) + Migration(sqlite: """
        CREATE TABLE ledger_status_changes_rebuilt(
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            original_transaction_id TEXT NOT NULL,
            group_id TEXT,
            from_status INTEGER CHECK (from_status BETWEEN 1 AND 7),
            to_status INTEGER NOT NULL CHECK (to_status BETWEEN 1 AND 7),
            item_id INTEGER NOT NULL REFERENCES ledger_items(id),
            at_ms INTEGER NOT NULL
        );
        INSERT INTO ledger_status_changes_rebuilt SELECT id, environment, test_signed, original_transaction_id, group_id,
            from_status, to_status, item_id, at_ms FROM ledger_status_changes;
        DROP TABLE ledger_status_changes;
        ALTER TABLE ledger_status_changes_rebuilt RENAME TO ledger_status_changes;
        CREATE INDEX ledger_status_changes_by_original ON ledger_status_changes(environment, test_signed, original_transaction_id, id);
        """ + DDL.sqliteAppendOnly("ledger_status_changes"), postgres: """
        ALTER TABLE ledger_status_changes DROP CONSTRAINT ledger_status_changes_from_status_check,
            DROP CONSTRAINT ledger_status_changes_to_status_check,
            ADD CONSTRAINT ledger_status_changes_from_status_check CHECK (from_status BETWEEN 1 AND 7),
            ADD CONSTRAINT ledger_status_changes_to_status_check CHECK (to_status BETWEEN 1 AND 7);
        """, tables: [])

    /// Migration 20: the Play purchase tokens in token order, so a Play sync's refresh pages
    /// through them (`playTokensToRefresh`) instead of reading every production row of the
    /// ledger's App Store purchases for each page.
    package static let playTokens = Migration([
        .index("ledger_transactions_by_play_token", on: "ledger_transactions", ["environment", "original_transaction_id", "test_signed"],
               where: "store = 'play'"),
    ])
}
