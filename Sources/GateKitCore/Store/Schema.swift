/// The store's schema as forward-only migrations. Append new versions; never edit a
/// released one (stores in the field were built from it).
enum Schema {
    /// `PRAGMA application_id`: "GTKT". Marks a file as a GateKit store.
    static let applicationID: Int64 = 0x4754_4B54

    /// Migration N takes a store from version N-1 to N.
    static let migrations: [String] = [
        // 1: metadata and EULA decisions.
        """
        CREATE TABLE gatekit_meta(
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE eula_decisions(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id TEXT NOT NULL,
            user_name BLOB,
            hash TEXT NOT NULL CHECK (length(hash) = 64),
            decision INTEGER NOT NULL CHECK (decision IN (1, 2)),
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX eula_decisions_by_subject ON eula_decisions(document_id, user_name, hash, id);
        CREATE TRIGGER eula_decisions_no_update BEFORE UPDATE ON eula_decisions
            BEGIN SELECT RAISE(ABORT, 'eula_decisions is append-only'); END;
        CREATE TRIGGER eula_decisions_no_delete BEFORE DELETE ON eula_decisions
            BEGIN SELECT RAISE(ABORT, 'eula_decisions is append-only'); END;
        CREATE TABLE eula_minor_revisions(
            document_id TEXT NOT NULL,
            from_hash TEXT NOT NULL CHECK (length(from_hash) = 64),
            to_hash TEXT NOT NULL CHECK (length(to_hash) = 64),
            at_ms INTEGER NOT NULL,
            PRIMARY KEY (document_id, to_hash, from_hash)
        ) WITHOUT ROWID;
        """,
        // 2: permission state. Keys are category numbers, never names.
        """
        CREATE TABLE perm_categories(
            category INTEGER PRIMARY KEY CHECK (category BETWEEN 1000000 AND 2147483647),
            name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
            registered_ms INTEGER NOT NULL
        );
        CREATE TABLE perm_usage_descriptions(
            category INTEGER PRIMARY KEY CHECK (category > 0),
            text TEXT NOT NULL CHECK (length(text) > 0),
            updated_ms INTEGER NOT NULL
        );
        CREATE TABLE perm_states(
            category INTEGER PRIMARY KEY CHECK (category > 0),
            state INTEGER NOT NULL CHECK (state IN (0, 100, 200, 403, 406)),
            system_state INTEGER CHECK (system_state IN (0, 200, 403, 501)),
            updated_ms INTEGER NOT NULL
        );
        CREATE TABLE perm_history(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            category INTEGER NOT NULL CHECK (category > 0),
            from_state INTEGER NOT NULL,
            to_state INTEGER NOT NULL,
            source INTEGER NOT NULL CHECK (source IN (1, 2, 3, 4)),
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX perm_history_by_category ON perm_history(category, id);
        CREATE TRIGGER perm_history_no_update BEFORE UPDATE ON perm_history
            BEGIN SELECT RAISE(ABORT, 'perm_history is append-only'); END;
        CREATE TRIGGER perm_history_no_delete BEFORE DELETE ON perm_history
            BEGIN SELECT RAISE(ABORT, 'perm_history is append-only'); END;
        """,
        // 3: the entitlement ledger (docs/ledger.md). A version's header_id and body are NULL
        // when its signed text is its item's own (a transaction or renewal info ingested alone)
        // or when it has none (a receipt purchase). Items, versions, subjects and status
        // changes are append-only; the products table only ever gains rows. No AUTOINCREMENT:
        // rows are never deleted, so ids only grow, without a sqlite_sequence write per insert.
        """
        CREATE TABLE ledger_jws_headers(
            id INTEGER PRIMARY KEY,
            header TEXT NOT NULL UNIQUE
        );
        CREATE TABLE ledger_items(
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 5),
            notification_uuid TEXT,
            notification_type TEXT,
            subtype TEXT,
            signed_ms INTEGER NOT NULL,
            ingested_ms INTEGER NOT NULL,
            outcome INTEGER NOT NULL CHECK (outcome IN (1, 3)),
            header_id INTEGER REFERENCES ledger_jws_headers(id),
            body TEXT NOT NULL,
            UNIQUE (environment, test_signed, identity)
        );
        CREATE UNIQUE INDEX ledger_items_by_notification ON ledger_items(environment, test_signed, notification_uuid)
            WHERE notification_uuid IS NOT NULL;
        CREATE TABLE ledger_transactions(
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            app_account_token TEXT,
            product_id TEXT NOT NULL,
            group_id TEXT,
            product_type INTEGER NOT NULL CHECK (product_type BETWEEN 0 AND 4),
            family_shared INTEGER NOT NULL CHECK (family_shared IN (0, 1)),
            purchase_ms INTEGER,
            original_purchase_ms INTEGER,
            expires_ms INTEGER,
            revocation_ms INTEGER,
            revocation_reason INTEGER,
            is_upgraded INTEGER NOT NULL CHECK (is_upgraded IN (0, 1)),
            offer_type INTEGER,
            signed_ms INTEGER NOT NULL,
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            item_id INTEGER NOT NULL REFERENCES ledger_items(id),
            header_id INTEGER REFERENCES ledger_jws_headers(id),
            body TEXT,
            UNIQUE (environment, test_signed, transaction_id, identity)
        );
        CREATE INDEX ledger_transactions_by_original ON ledger_transactions(environment, test_signed, original_transaction_id);
        CREATE INDEX ledger_transactions_by_token ON ledger_transactions(environment, test_signed, app_account_token)
            WHERE app_account_token IS NOT NULL;
        CREATE TABLE ledger_renewals(
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            original_transaction_id TEXT NOT NULL,
            product_id TEXT,
            auto_renew_product_id TEXT,
            auto_renew_status INTEGER,
            is_in_billing_retry INTEGER NOT NULL CHECK (is_in_billing_retry IN (0, 1)),
            grace_period_expires_ms INTEGER,
            expiration_intent INTEGER,
            renewal_ms INTEGER,
            signed_ms INTEGER NOT NULL,
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            item_id INTEGER NOT NULL REFERENCES ledger_items(id),
            header_id INTEGER REFERENCES ledger_jws_headers(id),
            body TEXT,
            UNIQUE (environment, test_signed, original_transaction_id, identity)
        );
        CREATE TABLE ledger_item_subjects(
            original_transaction_id TEXT NOT NULL,
            item_id INTEGER NOT NULL REFERENCES ledger_items(id),
            PRIMARY KEY (original_transaction_id, item_id)
        ) WITHOUT ROWID;
        CREATE INDEX ledger_item_subjects_by_item ON ledger_item_subjects(item_id);
        CREATE TABLE ledger_products(
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            product_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            PRIMARY KEY (environment, test_signed, product_id)
        ) WITHOUT ROWID;
        CREATE TABLE ledger_status_changes(
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed INTEGER NOT NULL CHECK (test_signed IN (0, 1)),
            original_transaction_id TEXT NOT NULL,
            group_id TEXT,
            from_status INTEGER CHECK (from_status BETWEEN 1 AND 5),
            to_status INTEGER NOT NULL CHECK (to_status BETWEEN 1 AND 5),
            item_id INTEGER NOT NULL REFERENCES ledger_items(id),
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX ledger_status_changes_by_original ON ledger_status_changes(environment, test_signed, original_transaction_id, id);
        """ + ["ledger_jws_headers", "ledger_items", "ledger_transactions", "ledger_renewals", "ledger_item_subjects",
               "ledger_status_changes"].map { table in
            """
            CREATE TRIGGER \(table)_no_update BEFORE UPDATE ON \(table)
                BEGIN SELECT RAISE(ABORT, '\(table) is append-only'); END;
            CREATE TRIGGER \(table)_no_delete BEFORE DELETE ON \(table)
                BEGIN SELECT RAISE(ABORT, '\(table) is append-only'); END;

            """
        }.joined(),
        // 4: write-lock slots. PostgreSQL's writers lock rows of this table (only the store's
        // own role can), not advisory keys any role could hold; SQLite's writers take the
        // database's own lock, so here it stays empty and exists to keep the schemas equal.
        """
        CREATE TABLE gatekit_locks(
            slot INTEGER PRIMARY KEY CHECK (slot BETWEEN 0 AND 1024)
        );
        """,
    ]

    static var currentVersion: Int64 { Int64(migrations.count) }
}

extension Schema {
    /// Records which GateKit last migrated the store (inside the migration's transaction).
    static func recordWriter(_ db: any DatabaseConnection) throws(GateKitError) {
        let meta = try db.statement("""
            INSERT INTO gatekit_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """)
        try meta.bind(1, text: "schema_written_by").bind(2, text: GateKitVersion.text).run()
    }
}
