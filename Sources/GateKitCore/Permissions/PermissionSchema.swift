import GateKitStore

/// Permission state. Keys are category numbers, never names; the history is append-only.
package enum PermissionSchema {
    /// Released as migration 2: never edit it.
    package static let states = Migration(
        sqlite: """
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
        postgres: """
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
            """ + DDL.postgresAppendOnly("perm_history"),
        tables: ["perm_categories", "perm_usage_descriptions", "perm_states", "perm_history"],
        appendOnlyTables: ["perm_history"])
}
