/// The store's own tables: its metadata (with PostgreSQL's append-only trigger function the
/// domains' tables use) and the write-lock slots. Released migrations: never edit them.
package enum StoreTables {
    /// Migration 1 begins with it (`StoreSchema.gatekit`).
    package static let metadata = Migration(
        sqlite: """
            CREATE TABLE gatekit_meta(
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) WITHOUT ROWID;

            """,
        postgres: """
            CREATE TABLE gatekit_meta(
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            CREATE FUNCTION gatekit_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
                BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END
            $fn$;

            """,
        tables: ["gatekit_meta"], functions: ["gatekit_append_only"])

    /// Migration 4: write-lock slots. PostgreSQL's writers lock rows of this table (only the
    /// store's own role can), not advisory keys any role could hold; SQLite's writers take the
    /// database's own lock, so there it stays empty and exists to keep the schemas equal. A
    /// writer locks the rows of its subjects' slots (`PostgresNamespace.lockSlot`) with
    /// SELECT … FOR UPDATE, which needs UPDATE on the table.
    package static let writeLocks = Migration(
        sqlite: """
            CREATE TABLE gatekit_locks(
                slot INTEGER PRIMARY KEY CHECK (slot BETWEEN 0 AND 1024)
            );
            """,
        postgres: """
            CREATE TABLE gatekit_locks(
                slot BIGINT PRIMARY KEY CHECK (slot BETWEEN 0 AND 1024)
            );
            INSERT INTO gatekit_locks(slot) SELECT generate_series(0, 1024);
            """,
        tables: ["gatekit_locks"])
}
