import GateKitStore
import GateKitSupport

/// Published versions (`EULAVersion`): publishing, the text a user is shown in their
/// language, and the answer by instant — schedules, grace periods and as-of questions.
extension EULAGate {
    /// Publishes a version of a document with its texts. Publishing the same version again
    /// (same label, texts and grace; the same instant of effect, or none given) is a no-op; a label or a text already published
    /// differently is `.EEULA_VERSION_CONFLICT`: a published version is never edited.
    public func publish(_ given: EULAVersion) throws(GateKitError) {
        let version = try given.validated()
        let now = Clock.nowMilliseconds()
        let effective = version.effectiveMilliseconds ?? now
        // Publishers of one document run one at a time (the check for a conflicting label
        // or text, then the insert), under a lock subject of their own ("publish:" + the
        // document; a document so named would only share the lock, never a chain row).
        let subject = try ConsentChain.subject(documentID: "publish:" + version.documentID, user: nil)
        try store.write(.subjects([subject])) { (db) throws(GateKitError) in
            if let existing = try EULAGate.published(label: version.label, documentID: version.documentID, db) {
                guard existing.sameContent(as: version) else {
                    throw GateKitError(.EEULA_VERSION_CONFLICT, "version \(Quoted.text(version.label)) of \(Quoted.text(version.documentID)) is already published with other texts or instants; publish a new label")
                }
                return
            }
            for text in version.texts {
                let s = try db.statement("SELECT v.label, t.language FROM eula_texts t JOIN eula_versions v ON v.id = t.version_id WHERE t.document_id = ?1 AND t.hash = ?2")
                s.bind(1, text: version.documentID).bind(2, text: text.hash)
                defer { s.reset() }
                if try s.step() {
                    throw GateKitError(.EEULA_VERSION_CONFLICT, "the \(text.language) text (sha256 \(text.hash.prefix(12))…) is already the \(s.text(1) ?? "") text of version \(Quoted.text(s.text(0) ?? "")): one text belongs to one version")
                }
            }
            let insert = try db.statement("""
                INSERT INTO eula_versions(document_id, label, effective_ms, grace_ms, default_language, published_ms)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id
                """)
            insert.bind(1, text: version.documentID).bind(2, text: version.label).bind(3, effective)
            insert.bind(4, version.graceMilliseconds).bind(5, text: version.defaultLanguage).bind(6, now)
            guard try insert.step() else { throw .internalError("the version was not inserted") }
            let id = insert.int64(0)
            insert.reset()
            for text in version.texts {
                let s = try db.statement("INSERT INTO eula_texts(version_id, document_id, language, hash, body) VALUES (?1, ?2, ?3, ?4, ?5)")
                try s.bind(1, id).bind(2, text: version.documentID).bind(3, text: text.language).bind(4, text: text.hash).bind(5, blob: text.bytes).run()
            }
            let row = PublicationSeal.Row(id: id, documentID: version.documentID, label: version.label, effectiveMs: effective,
                                          graceMs: version.graceMilliseconds, defaultLanguage: version.defaultLanguage, publishedMs: now,
                                          texts: PublicationSeal.ordered(version.texts.map { ($0.language, $0.hash) }))
            try PublicationSeal.append(db, versionID: id, seal: try PublicationSeal.seal(after: try PublicationSeal.last(db, documentID: version.documentID), row))
        }
    }

    /// Every published version of a document (texts without their bytes), by instant of effect.
    public func versions(documentID: String) throws(GateKitError) -> [EULAVersion] {
        try EULAGate.validate(documentID: documentID)
        return try store.read { (db) throws(GateKitError) -> [EULAVersion] in
            let s = try db.statement("SELECT label FROM eula_versions WHERE document_id = ?1 ORDER BY effective_ms, id")
            s.bind(1, text: documentID)
            var labels: [String] = []
            while try s.step() { labels.append(s.text(0) ?? "") }
            s.reset()
            var out: [EULAVersion] = []
            for label in labels {
                if let v = try EULAGate.published(label: label, documentID: documentID, db, withBytes: false) { out.append(v.version) }
            }
            return out
        }
    }

    /// The bytes of a published text, found by its hash. `.ENOTFOUND` when no version of the
    /// document has that text.
    public func text(documentID: String, hash given: String) throws(GateKitError) -> [UInt8] {
        try EULAGate.validate(documentID: documentID)
        let hash = try DocumentHash.normalized(given)
        return try store.read { (db) throws(GateKitError) -> [UInt8] in
            let s = try db.statement("SELECT body FROM eula_texts WHERE document_id = ?1 AND hash = ?2")
            s.bind(1, text: documentID).bind(2, text: hash)
            defer { s.reset() }
            guard try s.step() else {
                throw GateKitError(.ENOTFOUND, "no published version of \(Quoted.text(documentID)) has the text \(hash)")
            }
            return try PublicationSeal.checkedBody(s.blob(0) ?? [], hash: hash, documentID: documentID)
        }
    }

    /// What to do for `user` at `at` (nil: now) about the version of the document in effect
    /// then: its text in `language` (nil or unpublished: the fallback chain, then the
    /// version's default), and whether acceptance is there, may wait (grace) or is required.
    /// Decisions after `at` do not count, so an auditor's as-of question gets the answer the
    /// gate gave then. `.ENOTFOUND` when no version is in effect at `at`.
    public func presentation(documentID: String, user: [UInt8]?, language: String?, at: Int64?) throws(GateKitError) -> EULAPresentation {
        try EULAGate.validate(documentID: documentID)
        try EULAGate.validate(user: user)
        let wanted = try language.map { (tag) throws(GateKitError) -> String in try LanguageTag.canonical(tag) }
        if let at, at < 0 { throw .invalid("at_ms is \(at): an instant is milliseconds since 1970 (0: now)") }
        let instant = at ?? Clock.nowMilliseconds()
        return try store.read { (db) throws(GateKitError) -> EULAPresentation in
            let s = try db.statement("""
                SELECT id, label, effective_ms, grace_ms, default_language,
                       (SELECT min(effective_ms) FROM eula_versions WHERE document_id = ?1 AND effective_ms > ?2)
                FROM eula_versions WHERE document_id = ?1 AND effective_ms <= ?2 ORDER BY effective_ms DESC, id DESC LIMIT 1
                """)
            s.bind(1, text: documentID).bind(2, instant)
            guard try s.step() else {
                s.reset()
                throw GateKitError(.ENOTFOUND, "no version of \(Quoted.text(documentID)) is in effect at \(Timestamp.rfc3339Milliseconds(instant)) (eula_publish)")
            }
            let version = InEffect(id: s.int64(0), effectiveMilliseconds: s.int64(2), graceMilliseconds: s.int64(3))
            let label = s.text(1) ?? "", defaultLanguage = s.text(4) ?? "", next = s.optionalInt64(5)
            s.reset()
            let texts = try db.statement("SELECT language, hash FROM eula_texts WHERE version_id = ?1")
            texts.bind(1, version.id)
            var hashes: [String: String] = [:]
            while try texts.step() { hashes[texts.text(0) ?? ""] = texts.text(1) }
            texts.reset()
            let chosen = (wanted.map(LanguageTag.fallbacks) ?? []).first { hashes[$0] != nil } ?? defaultLanguage
            guard let hash = hashes[chosen] else { throw GateKitError(.ECORRUPT, "version \(Quoted.text(label)) has no text in its default language \(defaultLanguage)") }
            let status = try EULAGate.status(of: version, documentID: documentID, user: user, at: instant, db)
            return EULAPresentation(status: status, label: label, language: chosen, hash: hash,
                                    effectiveMilliseconds: version.effectiveMilliseconds, requiredAtMilliseconds: version.requiredAt,
                                    nextEffectiveMilliseconds: next)
        }
    }

    /// A published version as `status` needs it.
    struct InEffect {
        var id: Int64
        var effectiveMilliseconds: Int64
        var graceMilliseconds: Int64
        var requiredAt: Int64 {
            let (sum, overflow) = effectiveMilliseconds.addingReportingOverflow(graceMilliseconds)
            return overflow ? .max : sum
        }
    }

    static func inEffect(versionID: Int64, _ db: any DatabaseConnection) throws(GateKitError) -> InEffect {
        let s = try db.statement("SELECT effective_ms, grace_ms FROM eula_versions WHERE id = ?1")
        s.bind(1, versionID)
        defer { s.reset() }
        guard try s.step() else { throw GateKitError(.ECORRUPT, "a published text names version \(versionID), which is not in the store") }
        return InEffect(id: versionID, effectiveMilliseconds: s.int64(0), graceMilliseconds: s.int64(1))
    }

    /// Accepted when one of the version's texts (or a text one of them revises) is accepted
    /// and not withdrawn as of `at`; in grace when not, but `at` is before the version is
    /// required and the version before it is accepted; required otherwise.
    static func status(of version: InEffect, documentID: String, user: [UInt8]?, at: Int64,
                       _ db: any DatabaseConnection) throws(GateKitError) -> EULAPresentation.Status {
        if try accepted(versionID: version.id, documentID: documentID, user: user, at: at, db) { return .accepted }
        guard at < version.requiredAt else { return .required }
        let s = try db.statement("""
            SELECT id FROM eula_versions WHERE document_id = ?1 AND (effective_ms < ?2 OR (effective_ms = ?2 AND id < ?3))
            ORDER BY effective_ms DESC, id DESC LIMIT 1
            """)
        s.bind(1, text: documentID).bind(2, version.effectiveMilliseconds).bind(3, version.id)
        let previous = try s.step() ? s.int64(0) : nil
        s.reset()
        guard let previous, try accepted(versionID: previous, documentID: documentID, user: user, at: at, db) else { return .required }
        return .inGrace
    }

    private static func accepted(versionID: Int64, documentID: String, user: [UInt8]?, at: Int64,
                                 _ db: any DatabaseConnection) throws(GateKitError) -> Bool {
        // Nearly always no minor revision leads to a text of the version: the direct query
        // answers and says so; the recursive one builds temporary B-trees, so only then.
        let named = user != nil
        let direct = try db.statement(named ? versionDecisionForNamedUser : versionDecisionForDefaultUser)
        direct.bind(1, text: documentID).bind(2, blob: user).bind(3, at).bind(4, versionID)
        guard try direct.step() else { direct.reset(); return false }
        var decision = direct.isNull(0) ? nil : (stored: direct.int64(0), id: direct.int64(1))
        let withdrawn = direct.optionalInt64(2), revised = direct.int64(3) != 0
        direct.reset()
        if revised {
            let covered = try db.statement(named ? coveredVersionForNamedUser : coveredVersionForDefaultUser)
            covered.bind(1, text: documentID).bind(2, blob: user).bind(3, at).bind(4, versionID)
            decision = try covered.step() && !covered.isNull(0) ? (covered.int64(0), covered.int64(1)) : nil
            covered.reset()
        }
        guard let decision, decision.stored == EULADecision.Kind.accepted.storedDecision else { return false }
        return withdrawn.map { $0 < decision.id } ?? true
    }

    // The latest decision as of ?3 on a text of version ?4, the user's latest withdrawal of
    // the document as of ?3, and whether a minor revision leads to a text of the version.
    private static func versionDecision(byUser: String) -> String {
        """
        SELECT latest.decision, latest.id,
               (SELECT max(id) FROM eula_decisions w
                WHERE w.document_id = ?1 AND w.\(byUser) AND w.withdrawal IS NOT NULL AND w.at_ms <= ?3),
               EXISTS (SELECT 1 FROM eula_minor_revisions r JOIN eula_texts t ON t.document_id = r.document_id AND t.hash = r.to_hash
                       WHERE r.document_id = ?1 AND t.version_id = ?4)
        FROM (SELECT 1) AS one LEFT JOIN (
            SELECT d.decision, d.id FROM eula_texts t
            JOIN eula_decisions d ON d.document_id = t.document_id AND d.\(byUser) AND d.hash = t.hash
            WHERE t.version_id = ?4 AND d.at_ms <= ?3
            ORDER BY d.id DESC LIMIT 1) AS latest ON 1 = 1
        """
    }

    // The same decision when minor revisions lead to the version's texts: on any text of the
    // version or a text one of them revises, transitively.
    private static func coveredVersion(byUser: String) -> String {
        """
        WITH RECURSIVE covered(h) AS (
            SELECT hash FROM eula_texts WHERE version_id = ?4
            UNION
            SELECT r.from_hash FROM eula_minor_revisions r JOIN covered c ON r.to_hash = c.h WHERE r.document_id = ?1)
        SELECT d.decision, d.id FROM eula_decisions d
        WHERE d.document_id = ?1 AND d.\(byUser) AND d.hash IN (SELECT h FROM covered) AND d.at_ms <= ?3
        ORDER BY d.id DESC LIMIT 1
        """
    }

    private static let versionDecisionForDefaultUser = versionDecision(byUser: "user_name IS NULL")
    private static let versionDecisionForNamedUser = versionDecision(byUser: "user_name = ?2")
    private static let coveredVersionForDefaultUser = coveredVersion(byUser: "user_name IS NULL")
    private static let coveredVersionForNamedUser = coveredVersion(byUser: "user_name = ?2")

    /// A published version, read back, with its row id.
    struct Published {
        var id: Int64
        var version: EULAVersion

        func sameContent(as other: EULAVersion) -> Bool {
            let mine = version.texts.map { "\($0.language) \($0.hash)" }.sorted()
            let theirs = other.texts.map { "\($0.language) \($0.hash)" }.sorted()
            // "Effective when published" matches the instant it was published with.
            return (other.effectiveMilliseconds ?? version.effectiveMilliseconds) == version.effectiveMilliseconds
                && version.graceMilliseconds == other.graceMilliseconds
                && version.defaultLanguage == other.defaultLanguage && mine == theirs
        }
    }

    static func published(label: String, documentID: String, _ db: any DatabaseConnection, withBytes: Bool = false) throws(GateKitError) -> Published? {
        let s = try db.statement("SELECT id, effective_ms, grace_ms, default_language FROM eula_versions WHERE document_id = ?1 AND label = ?2")
        s.bind(1, text: documentID).bind(2, text: label)
        guard try s.step() else { s.reset(); return nil }
        var version = EULAVersion(documentID: documentID, label: label, effectiveMilliseconds: s.int64(1),
                                  graceMilliseconds: s.int64(2), defaultLanguage: s.text(3) ?? "", texts: [])
        let id = s.int64(0)
        s.reset()
        let texts = try db.statement("SELECT language, hash\(withBytes ? ", body" : "") FROM eula_texts WHERE version_id = ?1 ORDER BY language")
        texts.bind(1, id)
        while try texts.step() {
            var text = EULAVersion.Text(language: texts.text(0) ?? "", bytes: withBytes ? texts.blob(2) ?? [] : [])
            text.hash = texts.text(1) ?? ""
            version.texts.append(text)
        }
        texts.reset()
        return Published(id: id, version: version)
    }
}
