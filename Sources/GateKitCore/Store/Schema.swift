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
    ]

    static var currentVersion: Int64 { Int64(migrations.count) }
}
