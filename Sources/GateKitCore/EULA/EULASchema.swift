import GateKitStore

/// The EULA's tables: every decision (append-only) and the minor revisions.
package enum EULASchema {
    /// Released in migration 1, after the store's metadata: never edit it.
    package static let decisions = Migration(
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

    /// Migration 9 (EULA II): how each decision was given (`EULAConsent`), and withdrawals —
    /// a row whose `decision` is 2 (not accepted, as before) marked `withdrawal`, so every
    /// query of the released schema still reads it right. The partial index finds a user's
    /// last withdrawal of a document in one probe. `eula_chain` holds each decision's link in
    /// its user's hash chain for the document (`ConsentChain`).
    package static let consent = Migration([
        .addColumn("eula_decisions", Column("withdrawal", .integer, check: "withdrawal = 1")),
        .addColumn("eula_decisions", Column("method", .integer, check: "method BETWEEN 1 AND 5")),
        .addColumn("eula_decisions", Column("client_address", .text, check: "length(client_address) BETWEEN 2 AND 45")),
        .addColumn("eula_decisions", Column("user_agent", .text)),
        .addColumn("eula_decisions", Column("locale", .text)),
        .addColumn("eula_decisions", Column("metadata", .text)),
        .index("eula_decisions_withdrawals", on: "eula_decisions", ["document_id", "user_name", "id"], where: "withdrawal IS NOT NULL"),
        .table("eula_chain", [
            // No foreign key: the chain itself shows a link without its decision, and
            // TRUNCATE of the history stays refused by its append-only trigger first.
            Column("decision_id", .integer, notNull: true, primaryKey: true),
            Column("subject", .text, notNull: true, check: "length(subject) = 64"),
            Column("seq", .integer, notNull: true, check: "seq > 0"),
            Column("chain", .text, notNull: true, check: "length(chain) = 64"),
        ], constraints: ["UNIQUE (subject, seq)"]),
        .appendOnly("eula_chain"),
    ])

    /// Migration 10 (EULA II): published versions — a label, the instant each takes effect
    /// and its grace period — and their texts, one per language, with the bytes (an export
    /// can carry the text that was accepted). Both append-only: a published version is never
    /// edited, only followed by another. A decision records the language of the text it was
    /// on when that text is published (`language`, part of its chain link). `eula_exports`
    /// keeps the digest of every consent export taken.
    package static let versions = Migration([
        .table("eula_versions", [
            Column("id", .identity),
            Column("document_id", .text, notNull: true),
            Column("label", .text, notNull: true, check: "length(label) BETWEEN 1 AND 128"),
            Column("effective_ms", .integer, notNull: true, check: "effective_ms >= 0"),
            Column("grace_ms", .integer, notNull: true, check: "grace_ms >= 0"),
            Column("default_language", .text, notNull: true),
            Column("published_ms", .integer, notNull: true),
        ], constraints: ["UNIQUE (document_id, label)"]),
        .index("eula_versions_by_effect", on: "eula_versions", ["document_id", "effective_ms", "id"]),
        .table("eula_texts", [
            Column("version_id", .integer, notNull: true),
            Column("document_id", .text, notNull: true),
            Column("language", .text, notNull: true),
            Column("hash", .text, notNull: true, check: "length(hash) = 64"),
            Column("body", .blob, notNull: true),
        ], constraints: ["PRIMARY KEY (version_id, language)", "UNIQUE (document_id, hash)"]),
        // Every consent export taken (`EULAExport`): what a file claims — the snapshot's last
        // decision, its instant — is confirmed here by the file's digest, so a file whose
        // header was edited along with its records (decisions cut off the end) is found.
        .table("eula_exports", [
            Column("id", .identity),
            Column("exported_ms", .integer, notNull: true),
            Column("through_id", .integer, notNull: true, check: "through_id >= 0"),
            Column("decisions", .integer, notNull: true, check: "decisions >= 0"),
            Column("digest", .text, notNull: true, unique: true, check: "length(digest) = 64"),
        ]),
        .appendOnly("eula_versions"),
        .appendOnly("eula_texts"),
        .appendOnly("eula_exports"),
        .addColumn("eula_decisions", Column("language", .text)),
    ])

    /// Migration 13 (Hardening IV): a seal for every published version (`PublicationSeal`),
    /// chained per document, so an edit of a publication or its texts in the file is found by
    /// `gatekit_store_check`; the versions published before are sealed by the migration.
    package static let publicationSeals = Migration([
        .table("eula_version_seals", [
            Column("version_id", .integer, notNull: true, primaryKey: true),
            Column("seal", .text, notNull: true, check: "length(seal) = 64"),
        ]),
        .appendOnly("eula_version_seals"),
    ], fill: PublicationSeal.fill)
}
