import GateKitStore

/// The EULA's tables: every decision (append-only) and the minor revisions.
public enum EULASchema {
    /// Released in migration 1, after the store's metadata: never edit it.
    public static let decisions = Migration(
        sqlite: """
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
        postgres: """
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
            """ + DDL.postgresAppendOnly("eula_decisions"),
        tables: ["eula_decisions", "eula_minor_revisions"], appendOnlyTables: ["eula_decisions"])
}
