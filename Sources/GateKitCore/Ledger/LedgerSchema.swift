import GateKitStore

/// The entitlement ledger's tables (docs/ledger.md). A version's header_id and body are NULL
/// when its signed text is its item's own (a transaction or renewal info ingested alone) or
/// when it has none (a receipt purchase). Items, versions, subjects and status changes are
/// append-only; the products table only ever gains rows. No AUTOINCREMENT on SQLite: rows are
/// never deleted, so ids only grow, without a sqlite_sequence write per insert. A store's own
/// migrations live with its adapter (`Adapters/Play/PlaySchema.swift`).
package enum LedgerSchema {
    static let appendOnlyTables = ["ledger_jws_headers", "ledger_items", "ledger_transactions", "ledger_renewals", "ledger_item_subjects", "ledger_status_changes"]

    /// Released as migration 3: never edit it (its text runs straight into the triggers, as
    /// it shipped).
    package static let ledger = Migration(
        sqlite: """
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
            """ + appendOnlyTables.map(DDL.sqliteAppendOnly).joined(),
        postgres: """
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
            """ + appendOnlyTables.map(DDL.postgresAppendOnly).joined(),
        tables: ["ledger_jws_headers", "ledger_items", "ledger_transactions", "ledger_renewals", "ledger_item_subjects", "ledger_products", "ledger_status_changes"],
        appendOnlyTables: appendOnlyTables)

    /// Migration 5: the host's product catalogs (`ProductCatalog`), each with the instant it
    /// took effect; append-only, so as-of answers keep the catalog of their time.
    package static let catalogs = Migration([
        .table("ledger_catalogs", [
            Column("id", .identity),
            Column("effective_ms", .integer, notNull: true, check: "effective_ms >= 0"),
            Column("declared_ms", .integer, notNull: true),
            Column("document", .text, notNull: true),
        ]),
        .index("ledger_catalogs_by_effect", on: "ledger_catalogs", ["effective_ms", "id"]),
        .appendOnly("ledger_catalogs"),
    ])

    /// Migration 7: the host's app accounts linked to ledger customers (`AppAccountRows`), every
    /// link and unlink kept with its instant, so as-of answers use the links of their time.
    package static let accounts = Migration([
        .table("ledger_account_links", [
            Column("id", .identity),
            Column("environment", .text, notNull: true),
            Column("app_user_id", .text, notNull: true),
            Column("customer", .text, notNull: true),
            Column("linked", .integer, notNull: true, check: "linked IN (0, 1)"),
            Column("at_ms", .integer, notNull: true, check: "at_ms >= 0"),
            // "transfer" when linking the customer to another app account unlinked it here.
            Column("cause", .text),
        ]),
        .index("ledger_account_links_by_user", on: "ledger_account_links", ["environment", "app_user_id", "id"]),
        .index("ledger_account_links_by_customer", on: "ledger_account_links", ["environment", "customer", "id"]),
        .appendOnly("ledger_account_links"),
    ])

    /// A subscription's product and the answer for it, in the feed's two tables.
    static let answerColumns = [
        Column("environment", .text, notNull: true),
        Column("test_signed", .integer, notNull: true, check: "test_signed IN (0, 1)"),
        Column("original_transaction_id", .text, notNull: true),
        Column("product_id", .text, notNull: true),
        Column("entitled", .integer, notNull: true, check: "entitled IN (0, 1)"),
        Column("reason", .integer, notNull: true),
        Column("status", .integer),
        Column("until_ms", .integer),
    ]

    /// Migration 8: the change feed (`ChangeFeedRows`): every change of an answer, numbered in commit
    /// order by the one head row; and the answer each subscription's product last gave, with the
    /// instant it next changes by time alone.
    package static let changes = Migration([
        .table("ledger_feed_head", [
            Column("id", .integer, notNull: true, primaryKey: true, check: "id = 1"),
            Column("last_seq", .integer, notNull: true, check: "last_seq >= 0"),
        ]),
        .table("ledger_changes", [Column("seq", .integer, notNull: true, primaryKey: true, check: "seq > 0")] + answerColumns + [
            Column("at_ms", .integer, notNull: true),
            Column("cause", .text, notNull: true, check: "cause IN ('ingest', 'time')"),
            Column("item_id", .integer),
            Column("app_account_token", .text),
            Column("app_user_ids", .text, notNull: true),
            Column("recorded_ms", .integer, notNull: true),
        ]),
        .appendOnly("ledger_changes"),
        .table("ledger_answers", answerColumns + [
            Column("next_change_ms", .integer),
        ], constraints: ["PRIMARY KEY (environment, test_signed, original_transaction_id, product_id)"], withoutRowID: true),
        .index("ledger_answers_due", on: "ledger_answers", ["next_change_ms"], where: "next_change_ms IS NOT NULL"),
    ])

    /// Migration 11: what each transaction sold (`TransactionVersion.Sale`), the metrics'
    /// revenue and splits, as columns beside the version; rows already held are filled from
    /// their stored signed text (`SaleColumns.fill`).
    package static let sales = Migration([
        .addColumn("ledger_transactions", Column("price", .integer)),
        .addColumn("ledger_transactions", Column("currency", .text)),
        .addColumn("ledger_transactions", Column("storefront", .text)),
        .addColumn("ledger_transactions", Column("trial", .integer, check: "trial IN (0, 1)")),
        .addColumn("ledger_transactions", Column("revocation_type", .text)),
        .addColumn("ledger_transactions", Column("revocation_percentage", .integer)),
    ], fill: SaleColumns.fill)

    /// A roll-up row's environment and test flag, and a day sum's key and value (migrations 12
    /// and 16 render them alike).
    private static let scopeColumns = [
        Column("environment", .text, notNull: true),
        Column("test_signed", .integer, notNull: true, check: "test_signed IN (0, 1)"),
    ]
    private static let metricSumColumns = [
        Column("day", .integer, notNull: true),
        Column("metric", .integer, notNull: true),
        Column("product", .text, notNull: true),
        Column("grp", .text, notNull: true),
        Column("storefront", .text, notNull: true),
        Column("currency", .text, notNull: true),
        Column("cohort", .integer, notNull: true),
        Column("value", .integer, notNull: true),
    ]

    /// Migration 12: the metrics' day roll-up (`MetricsRollup`), derived from the ledger and
    /// kept in step with it when a question is asked: per-day sums of what subscriptions
    /// contribute, the days each subscription touches, each subscription's newest signed
    /// instant, and the last item counted. Never the source of an answer's facts: it can be
    /// rebuilt from the ledger at any time.
    package static let metricsRollup = Migration([
        .table("ledger_metric_state", [
            Column("environment", .text, notNull: true),
            Column("test_signed", .integer, notNull: true, check: "test_signed IN (0, 1)"),
            Column("last_item", .integer, notNull: true, check: "last_item >= 0"),
            // While it is first built, a chunk of subscriptions per transaction: the item it
            // counts up to and the last subscription done (both NULL once built).
            Column("build_through", .integer),
            Column("build_after", .text),
        ], constraints: ["PRIMARY KEY (environment, test_signed)"], withoutRowID: true),
        .table("ledger_metric_days", scopeColumns + metricSumColumns, constraints: ["PRIMARY KEY (environment, test_signed, day, metric, product, grp, storefront, currency, cohort)"], withoutRowID: true),
        .table("ledger_metric_marks", scopeColumns + [
            Column("day", .integer, notNull: true),
            Column("original_transaction_id", .text, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, day, original_transaction_id)"], withoutRowID: true),
        .table("ledger_metric_subscriptions", scopeColumns + [
            Column("original_transaction_id", .text, notNull: true),
            Column("last_signed_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, original_transaction_id)"], withoutRowID: true),
        .index("ledger_metric_subscriptions_by_signed", on: "ledger_metric_subscriptions", ["environment", "test_signed", "last_signed_ms"]),
    ])

    /// Forgets the roll-up's state: the next question builds it again from the ledger.
    private static let rebuiltRollup = Migration(sqlite: "DELETE FROM ledger_metric_state;\n", postgres: "DELETE FROM ledger_metric_state;\n", tables: [])

    /// Migration 16: the day roll-up as it became known (`RollupChain`, `RollupTokens`), so a
    /// question as of a past instant, or over subscriptions that carry customer tokens, reads
    /// sums instead of rows: the changes rows signed on a day made to earlier days, each
    /// subscription's tokens with the instant it first carried each, and the instant each
    /// token became shared by two subscriptions. The roll-up is built again from the ledger
    /// (its marks now include the days rows were signed on).
    package static let metricsAsKnown = Migration([
        .table("ledger_metric_late", scopeColumns + [Column("known_day", .integer, notNull: true)] + metricSumColumns, constraints: ["PRIMARY KEY (environment, test_signed, known_day, day, metric, product, grp, storefront, currency, cohort)"],
           withoutRowID: true),
        .table("ledger_metric_tokens", scopeColumns + [
            Column("token", .text, notNull: true),
            Column("original_transaction_id", .text, notNull: true),
            Column("first_signed_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, token, original_transaction_id)"], withoutRowID: true),
        .table("ledger_metric_shared", scopeColumns + [
            Column("token", .text, notNull: true),
            Column("shared_from_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, token)"], withoutRowID: true),
    ]) + rebuiltRollup

    /// Migration 17: the paid periods of subscriptions whose customer token another one shares
    /// (`RollupPaid`): per subscription, one row per run of signing days its periods held
    /// through, the periods packed in one value, so a question counts such a customer once from
    /// them instead of from the subscriptions' rows; and each marked day's latest instant, so a
    /// question as of an instant inside a day counts from their rows only the subscriptions with
    /// something later that day. Built again with the rest of the roll-up.
    package static let metricsSharedPaid = Migration([
        .table("ledger_metric_paid", scopeColumns + [
            Column("original_transaction_id", .text, notNull: true),
            Column("from_day", .integer, notNull: true),
            // After the key's columns: SQLite 3.40's integrity check misreads a NOT NULL column
            // of a WITHOUT ROWID table declared before key columns as NULL.
            Column("through_day", .integer, notNull: true),
            Column("periods", .blob, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, original_transaction_id, from_day)"], withoutRowID: true),
        // The latest instant of a marked day: a question as of an instant after it reads the
        // subscription from the day's sums (NULL: counted exactly at any instant of the day).
        .addColumn("ledger_metric_marks", Column("last_ms", .integer)),
    ]) + rebuiltRollup

    /// Migration 18: each marked day's first instant and what the day added to the
    /// subscription's sums (`RollupDayChange`), so a question as of an instant inside a day
    /// takes the day's change out for the subscriptions with nothing of theirs before the
    /// instant that day, instead of counting them from their rows. Built again with the rest of
    /// the roll-up (NULL: a mark of an older roll-up, counted from the rows).
    package static let metricsDayChanges = Migration([
        .addColumn("ledger_metric_marks", Column("first_ms", .integer)),
        .addColumn("ledger_metric_marks", Column("day_change", .blob)),
        // The changes' texts, numbered (`RollupTexts`).
        .table("ledger_metric_texts", scopeColumns + [
            Column("number", .integer, notNull: true, check: "number >= 0"),
            Column("content", .text, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, number)"], withoutRowID: true),
    ]) + rebuiltRollup

    /// Migration 19: the kept paid periods (`RollupPaid`) keyed by the last day of their run of
    /// signing days, so a question as of day T reads only the runs lasting to T or later — as of
    /// now, each subscription's last — instead of every run; their texts numbered in
    /// `ledger_metric_texts` as the day changes' are. Derived data: the table is made anew and
    /// built again with the rest of the roll-up.
    package static let metricsPaidByDay = Migration([
        .dropTable("ledger_metric_paid"),
        .table("ledger_metric_paid", scopeColumns + [
            Column("through_day", .integer, notNull: true),
            Column("original_transaction_id", .text, notNull: true),
            Column("from_day", .integer, notNull: true),
            Column("periods", .blob, notNull: true),
        ], constraints: ["PRIMARY KEY (environment, test_signed, through_day, original_transaction_id, from_day)"], withoutRowID: true),
        // A refresh replaces a subscription's runs.
        .index("ledger_metric_paid_by_original", on: "ledger_metric_paid", ["environment", "test_signed", "original_transaction_id"]),
    ]) + rebuiltRollup

    /// Migration 22: recording a version reads only the versions it can keep
    /// (`LedgerRows.compactedRecord`) by index seeks: each transaction's newest (its versions in
    /// signing order under the subscription's: the index by subscription gains two columns
    /// rather than a second index beside it), the subscription's newest token-carrying version,
    /// and a purchase's earliest revocation (an index of the few revoked rows). And the store
    /// column takes any store's code (a short name; migration 15 allowed only Play's), so a later
    /// store never rebuilds the table: SQLite rebuilds it once here, with its rows, indexes and
    /// append-only triggers; PostgreSQL replaces the check. The Play tokens' index becomes every
    /// named store's purchases in order.
    package static let compactedReads = Migration(sqlite: """
        CREATE TABLE ledger_transactions_rebuilt(
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
            price INTEGER,
            currency TEXT,
            storefront TEXT,
            trial INTEGER CHECK (trial IN (0, 1)),
            revocation_type TEXT,
            revocation_percentage INTEGER,
            store TEXT CHECK (\(storeCheck)),
            replaces TEXT,
            pending INTEGER CHECK (pending IN (0, 1)),
            acknowledged INTEGER CHECK (acknowledged IN (0, 1)),
            store_state TEXT,
            UNIQUE (environment, test_signed, transaction_id, identity)
        );
        INSERT INTO ledger_transactions_rebuilt SELECT \(rebuiltColumns) FROM ledger_transactions;
        DROP TABLE ledger_transactions;
        ALTER TABLE ledger_transactions_rebuilt RENAME TO ledger_transactions;
        CREATE INDEX ledger_transactions_by_token ON ledger_transactions(environment, test_signed, app_account_token)
            WHERE app_account_token IS NOT NULL;
        CREATE INDEX ledger_transactions_by_replaced ON ledger_transactions(environment, test_signed, replaces)
            WHERE replaces IS NOT NULL;

        """ + DDL.sqliteAppendOnly("ledger_transactions") + indexes.map { $0.render(.sqlite) }.joined(), postgres: """
        ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_store_check,
            ADD CONSTRAINT ledger_transactions_store_check CHECK (\(storeCheck));
        DROP INDEX ledger_transactions_by_original;
        DROP INDEX ledger_transactions_by_play_token;

        """ + indexes.map { $0.render(.postgres) }.joined(), tables: [])

    /// A store's code: a short name (NULL: the store the ledger held first).
    private static let storeCheck = "length(store) BETWEEN 1 AND 32"

    private static let rebuiltColumns = """
        id, environment, test_signed, transaction_id, original_transaction_id, app_account_token, product_id, group_id, product_type,
        family_shared, purchase_ms, original_purchase_ms, expires_ms, revocation_ms, revocation_reason, is_upgraded, offer_type,
        signed_ms, identity, item_id, header_id, body, price, currency, storefront, trial, revocation_type, revocation_percentage,
        store, replaces, pending, acknowledged, store_state
        """

    private static let indexes: [DDL] = [
        .index("ledger_transactions_by_original", on: "ledger_transactions",
               ["environment", "test_signed", "original_transaction_id", "transaction_id", "signed_ms"]),
        .index("ledger_transactions_tokened", on: "ledger_transactions", ["environment", "test_signed", "original_transaction_id", "signed_ms"],
               where: "app_account_token IS NOT NULL"),
        .index("ledger_transactions_revoked", on: "ledger_transactions",
               ["environment", "test_signed", "original_transaction_id", "transaction_id", "revocation_ms"],
               where: "revocation_ms IS NOT NULL"),
        .index("ledger_transactions_by_store_purchase", on: "ledger_transactions", ["environment", "store", "original_transaction_id", "test_signed"],
               where: "store IS NOT NULL"),
    ]

    /// Migration 23: a version someone gave by hand names who gave it and why
    /// (`Attribution`: a support grant's), and an item's store kind takes any
    /// store's name (a short name; migration 15 allowed only Play's), so a later store never
    /// rebuilds the table: SQLite rebuilds `ledger_items` once here, with its rows, index and
    /// append-only triggers; PostgreSQL replaces the check.
    package static let attributions = Migration([
        .addColumn("ledger_transactions", Column("granted_by", .text, check: "length(granted_by) BETWEEN 1 AND 256")),
        .addColumn("ledger_transactions", Column("note", .text, check: "length(note) <= 1024")),
    ]) + Migration(sqlite: """
        CREATE TABLE ledger_items_rebuilt(
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
            store_kind TEXT CHECK (\(storeKindCheck)),
            UNIQUE (environment, test_signed, identity)
        );
        INSERT INTO ledger_items_rebuilt SELECT id, environment, test_signed, identity, kind, notification_uuid, notification_type,
            subtype, signed_ms, ingested_ms, outcome, header_id, body, store_kind FROM ledger_items;
        DROP TABLE ledger_items;
        ALTER TABLE ledger_items_rebuilt RENAME TO ledger_items;
        CREATE UNIQUE INDEX ledger_items_by_notification ON ledger_items(environment, test_signed, notification_uuid)
            WHERE notification_uuid IS NOT NULL;

        """ + DDL.sqliteAppendOnly("ledger_items"), postgres: """
        ALTER TABLE ledger_items DROP CONSTRAINT ledger_items_store_kind_check,
            ADD CONSTRAINT ledger_items_store_kind_check CHECK (\(storeKindCheck));

        """, tables: [])

    /// A store's own kind of item: a short name (NULL: a kind `ledger_items.kind` names itself).
    private static let storeKindCheck = "length(store_kind) BETWEEN 1 AND 32"

    /// Migration 14: a paused subscription's resumption instant beside its renewal intent
    /// (`RenewalVersion.pausedUntilMs`). Apple has no pause: rows already held keep NULL.
    package static let pauses = Migration([
        .addColumn("ledger_renewals", Column("paused_until_ms", .integer)),
    ])

    /// Migration 24: payments, where a store answers them apart from the purchase (Stripe):
    /// which purchase, item ('' : every item) and period each payment paid for (`PaymentLink`,
    /// one row per answer that said it), and each answer that a payment was taken back
    /// (`PaymentRevocation`). Read with the record of a purchase whose store answers so;
    /// append-only as the versions are.
    package static let payments = Migration([
        .table("ledger_payments", [
            Column("id", .identity),
            Column("environment", .text, notNull: true),
            Column("test_signed", .integer, notNull: true, check: "test_signed IN (0, 1)"),
            Column("payment", .text, notNull: true),
            Column("original_transaction_id", .text, notNull: true),
            Column("transaction_id", .text, notNull: true),
            Column("period_start_ms", .integer),
            Column("period_end_ms", .integer),
            Column("signed_ms", .integer, notNull: true),
            Column("item_id", .integer, notNull: true, references: "ledger_items(id)"),
        ]),
        .index("ledger_payments_by_original", on: "ledger_payments", ["environment", "test_signed", "original_transaction_id"]),
        .index("ledger_payments_by_payment", on: "ledger_payments", ["environment", "test_signed", "payment"]),
        .appendOnly("ledger_payments"),
        .table("ledger_payment_revocations", [
            Column("id", .identity),
            Column("environment", .text, notNull: true),
            Column("test_signed", .integer, notNull: true, check: "test_signed IN (0, 1)"),
            Column("payment", .text, notNull: true),
            Column("source_id", .text, notNull: true),
            Column("revocation_ms", .integer),
            Column("revocation_reason", .integer),
            Column("refund_kind", .text),
            Column("signed_ms", .integer, notNull: true),
            Column("identity", .text, notNull: true),
            Column("item_id", .integer, notNull: true, references: "ledger_items(id)"),
        ]),
        .index("ledger_payment_revocations_by_payment", on: "ledger_payment_revocations", ["environment", "test_signed", "payment"]),
        .appendOnly("ledger_payment_revocations"),
    ])

    /// Migration 25: the keys a seller gives its plans (`LookupKey`, Stripe's price
    /// `lookup_key`), each plan and key once with the first instant an answer showed them: a
    /// catalog entry by key names every plan that bore it.
    package static let lookupKeys = Migration([
        .table("ledger_lookup_keys", [
            Column("product_id", .text, notNull: true, check: "length(product_id) BETWEEN 1 AND 1024"),
            Column("lookup_key", .text, notNull: true, check: "length(lookup_key) BETWEEN 1 AND 256"),
            Column("seen_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (product_id, lookup_key)"], withoutRowID: true),
    ])

    /// Migration 26: money a payment gave back without taking access back (a partial refund,
    /// `PaymentRevocation.MoneyBack`): when, how much in milliunits and in which currency.
    package static let partialRefunds = Migration([
        .addColumn("ledger_payment_revocations", Column("refund_ms", .integer)),
        .addColumn("ledger_payment_revocations", Column("refund_amount", .integer)),
        .addColumn("ledger_payment_revocations", Column("refund_currency", .text, check: "length(refund_currency) = 3")),
    ])
}

extension LedgerSchema {
    /// Migration 27: webhooks to a team's backend (docs/webhooks.md). The endpoints a team
    /// registered; one delivery per change and endpoint, written with the change (`WebhookOutbox`)
    /// and moved along by the delivery workers (pending, delivered, dead or not wanted), with a
    /// lease while one sends it; every attempt made, append-only; the feed's changes by
    /// purchase, so an event reads the answer its purchase gave before; and whether a
    /// subscription renews, in the feed's answers, so turning auto-renew off is a change.
    package static let webhookOutbox = Migration([
        .table("ledger_webhook_endpoints", [
            Column("id", .text, notNull: true, primaryKey: true, check: "length(id) BETWEEN 1 AND 64"),
            Column("url", .text, notNull: true, check: "length(url) BETWEEN 9 AND 2048"),
            Column("event_types", .text, notNull: true),
            Column("secret", .text, notNull: true),
            Column("previous_secret", .text),
            Column("previous_until_ms", .integer),
            Column("enabled", .integer, notNull: true, check: "enabled IN (0, 1)"),
            Column("description", .text, notNull: true),
            Column("created_ms", .integer, notNull: true),
            Column("disabled_ms", .integer),
            Column("disabled_reason", .text),
        ]),
        // Keyed by customer (the purchase) before the change: the check that keeps each
        // customer's events in order reads its own few rows, and no second index costs every
        // ingestion a write.
        .table("ledger_webhook_deliveries", [
            Column("endpoint_id", .text, notNull: true),
            Column("customer", .text, notNull: true),
            Column("seq", .integer, notNull: true),
            Column("state", .integer, notNull: true, check: "state IN (0, 1, 2, 3)"),
            Column("attempts", .integer, notNull: true),
            Column("next_attempt_ms", .integer, notNull: true),
            Column("lease_holder", .text),
            Column("lease_until_ms", .integer),
            Column("failing_since_ms", .integer),
            Column("last_status", .integer),
            Column("last_error", .text),
            Column("done_ms", .integer),
            Column("event_type", .text),
            Column("body", .text),
            Column("created_ms", .integer, notNull: true),
        ], constraints: ["PRIMARY KEY (endpoint_id, customer, seq)"], withoutRowID: true),
        .index("ledger_webhook_deliveries_due", on: "ledger_webhook_deliveries", ["next_attempt_ms"], where: "state = 0"),
        .table("ledger_webhook_attempts", [
            Column("endpoint_id", .text, notNull: true),
            Column("seq", .integer, notNull: true),
            Column("attempt", .integer, notNull: true),
            Column("at_ms", .integer, notNull: true),
            Column("status", .integer, notNull: true),
            Column("duration_ms", .integer, notNull: true),
            Column("error", .text),
            Column("excerpt", .text),
        ], constraints: ["PRIMARY KEY (endpoint_id, seq, attempt)"], withoutRowID: true),
        .appendOnly("ledger_webhook_attempts"),
        .index("ledger_changes_by_purchase", on: "ledger_changes", ["environment", "test_signed", "original_transaction_id", "product_id", "seq"]),
        // Whether the subscription renews (`ChangeFeedRows.Answer.renewal`): 1, 0, or 2 (not
        // said); NULL in rows kept before, which then emit no change of it.
        .addColumn("ledger_answers", Column("will_renew", .integer, check: "will_renew IN (0, 1, 2)")),
        .addColumn("ledger_changes", Column("will_renew", .integer, check: "will_renew IN (0, 1, 2)")),
    ])
}

extension LedgerSchema {
    /// Migration 28: a change of the feed may be caused by a transfer between app accounts
    /// (`ChangeFeedRows.Cause.transfer`), beside an ingested item and time.
    package static let transferCause = Migration([
        .replaceCheck("ledger_changes", Column("cause", .text, notNull: true, check: "cause IN ('ingest', 'time', 'transfer')"),
                      was: "cause IN ('ingest', 'time')"),
    ])
}

extension LedgerSchema {
    /// Migration 29: notices of the feed (`FeedNotices`), numbered with its changes: an
    /// endpoint the delivery worker disabled.
    package static let feedNotices = Migration([
        .table("ledger_feed_notices", [
            Column("seq", .integer, notNull: true, primaryKey: true, check: "seq > 0"),
            Column("at_ms", .integer, notNull: true),
            Column("kind", .text, notNull: true, check: "kind IN ('webhook_endpoint_disabled')"),
            Column("endpoint_id", .text, notNull: true),
            Column("url", .text, notNull: true),
            Column("detail", .text, notNull: true),
        ]),
        .appendOnly("ledger_feed_notices"),
    ])

    /// Migration 30: the day roll-up keyed by store as well (`DayRollup.Key.store`), so a split
    /// by store is answered from the sums instead of every row. Derived data: the sums are made
    /// anew and the roll-up built again from the ledger (the kept day changes and paid periods
    /// carry the store too, so they are built again with it).
    package static let metricsByStore = Migration([
        .dropTable("ledger_metric_days"),
        .table("ledger_metric_days", scopeColumns + metricSumColumnsByStore,
               constraints: ["PRIMARY KEY (environment, test_signed, day, metric, product, grp, storefront, currency, cohort, store)"], withoutRowID: true),
        .dropTable("ledger_metric_late"),
        .table("ledger_metric_late", scopeColumns + [Column("known_day", .integer, notNull: true)] + metricSumColumnsByStore,
               constraints: ["PRIMARY KEY (environment, test_signed, known_day, day, metric, product, grp, storefront, currency, cohort, store)"],
               withoutRowID: true),
    ]) + rebuiltRollup

    /// A day sum's key, its store, and its value.
    private static let metricSumColumnsByStore = metricSumColumns.dropLast() + [Column("store", .text, notNull: true)] + metricSumColumns.suffix(1)
}

extension LedgerSchema {
    /// Migration 31: the checks every ingestion's feed rows and every queued delivery meet, spelt
    /// for SQLite with lists of two (`DDL.respellCheck`: each allows what it allowed), so
    /// writing a change no longer fills three temporary b-trees; PostgreSQL's are unchanged.
    package static let checksWithoutTemporaryTrees = Migration([
        .respellCheck("ledger_changes", Column("cause", .text, notNull: true, check: "cause IN ('ingest', 'time') OR cause = 'transfer'"),
                      was: "cause IN ('ingest', 'time', 'transfer')"),
        .respellCheck("ledger_changes", Column("will_renew", .integer, check: "will_renew IN (0, 1) OR will_renew = 2"),
                      was: "will_renew IN (0, 1, 2)"),
        .respellCheck("ledger_answers", Column("will_renew", .integer, check: "will_renew IN (0, 1) OR will_renew = 2"),
                      was: "will_renew IN (0, 1, 2)"),
        .respellCheck("ledger_webhook_deliveries", Column("state", .integer, notNull: true, check: "state IN (0, 1) OR state IN (2, 3)"),
                      was: "state IN (0, 1, 2, 3)"),
    ])
}
