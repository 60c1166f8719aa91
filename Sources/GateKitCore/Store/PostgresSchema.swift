/// The store's schema on PostgreSQL: the same tables, constraints and version numbers as
/// `Schema` (SQLite), in PostgreSQL's types. Each app id gets its own PostgreSQL schema
/// (namespace), so several apps share one database without seeing each other's rows, and the
/// store's SQL runs unchanged under `search_path`. Append new versions; never edit one.
enum PostgresSchema {
    /// `gatekit_meta` rows that mark a namespace as a GateKit store.
    static let formatKey = "format"
    static let formatValue = "gatekit-store"
    static let versionKey = "schema_version"
    static let appIDKey = "app_id"

    /// Migration N takes a store from version N-1 to N (the same N as `Schema.migrations`).
    static let migrations: [String] = [
        // 1: metadata and EULA decisions.
        """
        CREATE TABLE gatekit_meta(
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE FUNCTION gatekit_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
            BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END
        $fn$;
        CREATE TABLE eula_decisions(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            document_id TEXT NOT NULL,
            user_name BYTEA,
            hash TEXT NOT NULL CHECK (length(hash) = 64),
            decision BIGINT NOT NULL CHECK (decision IN (1, 2)),
            at_ms BIGINT NOT NULL
        );
        CREATE INDEX eula_decisions_by_subject ON eula_decisions(document_id, user_name, hash, id);
        CREATE TABLE eula_minor_revisions(
            document_id TEXT NOT NULL,
            from_hash TEXT NOT NULL CHECK (length(from_hash) = 64),
            to_hash TEXT NOT NULL CHECK (length(to_hash) = 64),
            at_ms BIGINT NOT NULL,
            PRIMARY KEY (document_id, to_hash, from_hash)
        );
        """ + appendOnly(["eula_decisions"]),
        // 2: permission state. Keys are category numbers, never names.
        """
        CREATE TABLE perm_categories(
            category BIGINT PRIMARY KEY CHECK (category BETWEEN 1000000 AND 2147483647),
            name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
            registered_ms BIGINT NOT NULL
        );
        CREATE TABLE perm_usage_descriptions(
            category BIGINT PRIMARY KEY CHECK (category > 0),
            text TEXT NOT NULL CHECK (length(text) > 0),
            updated_ms BIGINT NOT NULL
        );
        CREATE TABLE perm_states(
            category BIGINT PRIMARY KEY CHECK (category > 0),
            state BIGINT NOT NULL CHECK (state IN (0, 100, 200, 403, 406)),
            system_state BIGINT CHECK (system_state IN (0, 200, 403, 501)),
            updated_ms BIGINT NOT NULL
        );
        CREATE TABLE perm_history(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            category BIGINT NOT NULL CHECK (category > 0),
            from_state BIGINT NOT NULL,
            to_state BIGINT NOT NULL,
            source BIGINT NOT NULL CHECK (source IN (1, 2, 3, 4)),
            at_ms BIGINT NOT NULL
        );
        CREATE INDEX perm_history_by_category ON perm_history(category, id);
        """ + appendOnly(["perm_history"]),
        // 3: the entitlement ledger (docs/ledger.md), as in `Schema`.
        """
        CREATE TABLE ledger_jws_headers(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            header TEXT NOT NULL UNIQUE
        );
        CREATE TABLE ledger_items(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed BIGINT NOT NULL CHECK (test_signed IN (0, 1)),
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            kind BIGINT NOT NULL CHECK (kind BETWEEN 1 AND 5),
            notification_uuid TEXT,
            notification_type TEXT,
            subtype TEXT,
            signed_ms BIGINT NOT NULL,
            ingested_ms BIGINT NOT NULL,
            outcome BIGINT NOT NULL CHECK (outcome IN (1, 3)),
            header_id BIGINT REFERENCES ledger_jws_headers(id),
            body TEXT NOT NULL,
            UNIQUE (environment, test_signed, identity)
        );
        CREATE UNIQUE INDEX ledger_items_by_notification ON ledger_items(environment, test_signed, notification_uuid)
            WHERE notification_uuid IS NOT NULL;
        CREATE TABLE ledger_transactions(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed BIGINT NOT NULL CHECK (test_signed IN (0, 1)),
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            app_account_token TEXT,
            product_id TEXT NOT NULL,
            group_id TEXT,
            product_type BIGINT NOT NULL CHECK (product_type BETWEEN 0 AND 4),
            family_shared BIGINT NOT NULL CHECK (family_shared IN (0, 1)),
            purchase_ms BIGINT,
            original_purchase_ms BIGINT,
            expires_ms BIGINT,
            revocation_ms BIGINT,
            revocation_reason BIGINT,
            is_upgraded BIGINT NOT NULL CHECK (is_upgraded IN (0, 1)),
            offer_type BIGINT,
            signed_ms BIGINT NOT NULL,
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            item_id BIGINT NOT NULL REFERENCES ledger_items(id),
            header_id BIGINT REFERENCES ledger_jws_headers(id),
            body TEXT,
            UNIQUE (environment, test_signed, transaction_id, identity)
        );
        CREATE INDEX ledger_transactions_by_original ON ledger_transactions(environment, test_signed, original_transaction_id);
        CREATE INDEX ledger_transactions_by_token ON ledger_transactions(environment, test_signed, app_account_token)
            WHERE app_account_token IS NOT NULL;
        CREATE TABLE ledger_renewals(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed BIGINT NOT NULL CHECK (test_signed IN (0, 1)),
            original_transaction_id TEXT NOT NULL,
            product_id TEXT,
            auto_renew_product_id TEXT,
            auto_renew_status BIGINT,
            is_in_billing_retry BIGINT NOT NULL CHECK (is_in_billing_retry IN (0, 1)),
            grace_period_expires_ms BIGINT,
            expiration_intent BIGINT,
            renewal_ms BIGINT,
            signed_ms BIGINT NOT NULL,
            identity TEXT NOT NULL CHECK (length(identity) = 64),
            item_id BIGINT NOT NULL REFERENCES ledger_items(id),
            header_id BIGINT REFERENCES ledger_jws_headers(id),
            body TEXT,
            UNIQUE (environment, test_signed, original_transaction_id, identity)
        );
        CREATE TABLE ledger_item_subjects(
            original_transaction_id TEXT NOT NULL,
            item_id BIGINT NOT NULL REFERENCES ledger_items(id),
            PRIMARY KEY (original_transaction_id, item_id)
        );
        CREATE INDEX ledger_item_subjects_by_item ON ledger_item_subjects(item_id);
        CREATE TABLE ledger_products(
            environment TEXT NOT NULL,
            test_signed BIGINT NOT NULL CHECK (test_signed IN (0, 1)),
            product_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            PRIMARY KEY (environment, test_signed, product_id)
        );
        CREATE TABLE ledger_status_changes(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            environment TEXT NOT NULL,
            test_signed BIGINT NOT NULL CHECK (test_signed IN (0, 1)),
            original_transaction_id TEXT NOT NULL,
            group_id TEXT,
            from_status BIGINT CHECK (from_status BETWEEN 1 AND 5),
            to_status BIGINT NOT NULL CHECK (to_status BETWEEN 1 AND 5),
            item_id BIGINT NOT NULL REFERENCES ledger_items(id),
            at_ms BIGINT NOT NULL
        );
        CREATE INDEX ledger_status_changes_by_original ON ledger_status_changes(environment, test_signed, original_transaction_id, id);
        """ + appendOnly(["ledger_jws_headers", "ledger_items", "ledger_transactions", "ledger_renewals",
                          "ledger_item_subjects", "ledger_status_changes"]),
        // 4: write-lock slots (see `Schema`): a writer locks the rows of its subjects' slots
        // (`lockSlot`) with SELECT … FOR UPDATE, which needs UPDATE on the table: only the
        // store's own role can hold them, unlike advisory locks, which any role can take.
        """
        CREATE TABLE gatekit_locks(
            slot BIGINT PRIMARY KEY CHECK (slot BETWEEN 0 AND 1024)
        );
        INSERT INTO gatekit_locks(slot) SELECT generate_series(0, 1024);
        """,
    ]

    /// Slot 1024 is the whole store's; subjects hash onto slots 0-1023 (two subjects sharing
    /// a slot only wait for each other, never deadlock: slots are taken in order).
    static let wholeStoreSlot: Int64 = 1024
    static func lockSlot(_ subject: String) -> Int64 {
        var hash: UInt32 = 2_166_136_261  // FNV-1a: stable across processes and versions
        for b in subject.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        return Int64(hash % 1024)
    }

    /// The triggers GateKit creates: every other trigger in the namespace is refused.
    static var triggers: Set<String> {
        Set(appendOnlyTables.flatMap { ["\($0)_append_only", "\($0)_no_truncate"] })
    }
    static let appendOnlyTables = ["eula_decisions", "perm_history", "ledger_jws_headers", "ledger_items", "ledger_transactions",
                                   "ledger_renewals", "ledger_item_subjects", "ledger_status_changes"]
    /// The functions GateKit creates.
    static let functions: Set<String> = ["gatekit_append_only"]

    /// UPDATE, DELETE and TRUNCATE refused on each table, as SQLite's triggers do.
    private static func appendOnly(_ tables: [String]) -> String {
        tables.map { table in
            """
            CREATE TRIGGER \(table)_append_only BEFORE UPDATE OR DELETE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION gatekit_append_only();
            CREATE TRIGGER \(table)_no_truncate BEFORE TRUNCATE ON \(table)
                FOR EACH STATEMENT EXECUTE FUNCTION gatekit_append_only();

            """
        }.joined()
    }

    /// Every table a current store has (what `integrityReport` checks).
    static let tables = ["gatekit_meta", "eula_decisions", "eula_minor_revisions", "perm_categories", "perm_usage_descriptions",
                         "perm_states", "perm_history", "ledger_jws_headers", "ledger_items", "ledger_transactions",
                         "ledger_renewals", "ledger_item_subjects", "ledger_products", "ledger_status_changes", "gatekit_locks"]

    /// The namespace holding an app's store: `gatekit/<app id>`, quoted (app ids are letters,
    /// digits, '.', '-', '_'), shortened with a digest past PostgreSQL's 63-byte identifiers.
    static func namespace(appID: String) throws(GateKitError) -> String {
        let full = "gatekit/" + appID
        guard full.utf8.count > 63 else { return full }
        let digest = Hex.encode(try Digest.hash(.sha256, Array(appID.utf8)).prefix(8))
        return "gatekit/" + String(appID.prefix(38)) + "~" + digest
    }

    /// An identifier as a quoted SQL identifier.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
