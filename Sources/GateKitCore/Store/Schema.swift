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
    ]

    static var currentVersion: Int64 { Int64(migrations.count) }
}
