import GateKitCrypto
import GateKitStore
import GateKitSupport

/// Tamper evidence for published versions, as the consent chain is for decisions: each version
/// row gets a seal, the SHA-256 of the previous version's seal of the same document and every
/// field a reader relies on — label, instant of effect, grace period, default language, when it
/// was published, and each text's language and hash. A grace period edited in the file (a
/// REQUIRED answer turned IN_GRACE), a version removed or moved, a text swapped: the seals no
/// longer agree, and `gatekit_store_check` says where. A text's bytes are checked against its
/// hash wherever they are read (`checkedBody`) and by the store check.
enum PublicationSeal {
    struct Row {
        let id: Int64
        let documentID: String
        let label: String
        let effectiveMs: Int64
        let graceMs: Int64
        let defaultLanguage: String
        let publishedMs: Int64
        /// (language, hash), in `ordered`'s order.
        var texts: [(String, String)]
    }

    /// Texts by the bytes of their language (never a database's collation, which differs).
    static func ordered(_ texts: [(String, String)]) -> [(String, String)] {
        texts.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    }

    static func seal(after previous: String?, _ row: Row) throws(GateKitError) -> String {
        var bytes = previous.flatMap(Hex.decode) ?? [UInt8](repeating: 0, count: 32)
        bytes += Array("gatekit-eula-version-v1".utf8)
        var fields = [row.documentID, row.label, String(row.effectiveMs), String(row.graceMs), row.defaultLanguage, String(row.publishedMs)]
        for (language, hash) in row.texts { fields += [language, hash] }
        for field in fields {
            var length = UInt64(field.utf8.count).bigEndian
            withUnsafeBytes(of: &length) { bytes += $0 }
            bytes += Array(field.utf8)
        }
        return Hex.encode(try Digest.hash(.sha256, bytes))
    }

    /// The document's versions, in the order they were published, with their texts.
    static func rows(_ db: any DatabaseConnection, documentID: String?) throws(GateKitError) -> [Row] {
        let s = try db.statement("""
            SELECT id, document_id, label, effective_ms, grace_ms, default_language, published_ms FROM eula_versions
            WHERE (?1 IS NULL OR document_id = ?1) ORDER BY id
            """)
        s.bind(1, text: documentID)
        var rows: [Row] = []
        while try s.step() {
            rows.append(Row(id: s.int64(0), documentID: s.text(1) ?? "", label: s.text(2) ?? "", effectiveMs: s.int64(3), graceMs: s.int64(4),
                            defaultLanguage: s.text(5) ?? "", publishedMs: s.int64(6), texts: []))
        }
        s.reset()
        let texts = try db.statement("SELECT language, hash FROM eula_texts WHERE version_id = ?1")
        for i in rows.indices {
            texts.bind(1, rows[i].id)
            var found: [(String, String)] = []
            while try texts.step() { found.append((texts.text(0) ?? "", texts.text(1) ?? "")) }
            texts.reset()
            rows[i].texts = ordered(found)
        }
        return rows
    }

    /// The last seal of the document (nil: nothing published yet).
    static func last(_ db: any DatabaseConnection, documentID: String) throws(GateKitError) -> String? {
        let s = try db.statement("""
            SELECT p.seal FROM eula_version_seals p JOIN eula_versions v ON v.id = p.version_id
            WHERE v.document_id = ?1 ORDER BY v.id DESC LIMIT 1
            """)
        defer { s.reset() }
        s.bind(1, text: documentID)
        return try s.step() ? s.text(0) : nil
    }

    static func append(_ db: any DatabaseConnection, versionID: Int64, seal: String) throws(GateKitError) {
        try db.statement("INSERT INTO eula_version_seals(version_id, seal) VALUES (?1, ?2)").bind(1, versionID).bind(2, text: seal).run()
    }

    /// Migration 13's fill: every version published before it, sealed in order.
    static func fill(_ db: any DatabaseConnection) throws(GateKitError) {
        var previous: [String: String] = [:]
        for row in try rows(db, documentID: nil) {
            let seal = try seal(after: previous[row.documentID], row)
            try append(db, versionID: row.id, seal: seal)
            previous[row.documentID] = seal
        }
    }

    /// A text's bytes, refused unless their SHA-256 is the hash they are stored under.
    static func checkedBody(_ body: [UInt8], hash: String, documentID: String) throws(GateKitError) -> [UInt8] {
        guard Hex.encode(try Digest.hash(.sha256, body)) == hash else {
            throw GateKitError(.ECORRUPT, "the stored text of \(Quoted.text(documentID)) with hash \(hash.prefix(12))… is not that text (its bytes were changed in the store)")
        }
        return body
    }

    /// What breaks the seals or a text's hash; empty when every publication is as published.
    static func problems(_ db: any DatabaseConnection, limit: Int = 100) throws(GateKitError) -> [String] {
        var problems: [String] = []
        func report(_ text: String) { if problems.count < limit { problems.append(text) } }
        let stored = try db.statement("SELECT seal FROM eula_version_seals WHERE version_id = ?1")
        var previous: [String: String] = [:]
        for row in try rows(db, documentID: nil) {
            let expected = try seal(after: previous[row.documentID], row)
            stored.bind(1, row.id)
            let seal = try stored.step() ? stored.text(0) : nil
            stored.reset()
            if seal != expected {
                report("version \(Quoted.text(row.label)) of \(Quoted.text(row.documentID)) " + (seal == nil ? "has no seal" : "does not match its seal")
                       + ": it, its texts or an earlier version of the document were changed in the store")
            }
            previous[row.documentID] = seal ?? expected
        }
        let bodies = try db.statement("SELECT document_id, hash, body FROM eula_texts ORDER BY version_id, language")
        defer { bodies.reset() }
        while try bodies.step() {
            let documentID = bodies.text(0) ?? "", hash = bodies.text(1) ?? ""
            do { _ = try checkedBody(bodies.blob(2) ?? [], hash: hash, documentID: documentID) } catch { report(error.message) }
        }
        return problems
    }
}
