import GateKitStore
import GateKitSupport

/// EULA gating over a store: present a document unless this user's most recent decision
/// on this exact text (or on a text it is a declared minor revision of) is an acceptance.
/// Decisions are appended, never rewritten.
public struct EULAGate: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    public static let maximumDocumentIDLength = 1024
    public static let maximumUserLength = 4096

    static func validate(documentID: String) throws(GateKitError) {
        guard !documentID.isEmpty, documentID.utf8.count <= maximumDocumentIDLength else {
            throw .invalid("document_id must be 1 to \(maximumDocumentIDLength) bytes")
        }
    }

    static func validate(user: [UInt8]?) throws(GateKitError) {
        guard let user else { return }
        guard !user.isEmpty, user.count <= maximumUserLength else {
            throw .invalid("user must be 1 to \(maximumUserLength) bytes, or NULL for the default user")
        }
    }

    /// True when the document must be presented to `user` for the text whose hash is given.
    public func shouldPresent(documentID: String, hash given: String, user: [UInt8]?) throws(GateKitError) -> Bool {
        try EULAGate.validate(documentID: documentID)
        let hash = try DocumentHash.normalized(given)
        try EULAGate.validate(user: user)
        let named = user != nil
        return try store.read { (db) throws(GateKitError) -> Bool in
            // Nearly always no minor revision leads to this text: one indexed lookup answers,
            // and a marker row says when revisions exist (one round trip on PostgreSQL). The
            // recursive query builds temporary B-trees (an order of magnitude slower per call).
            // The user's last withdrawal of the document comes in the same statement: an
            // acceptance before it no longer counts, whatever text it was.
            let direct = try db.statement(named ? EULAGate.latestForNamedUser : EULAGate.latestForDefaultUser)
            direct.bind(1, text: documentID).bind(2, blob: user).bind(3, text: hash)
            var decision: (stored: Int64, id: Int64)? = nil
            var withdrawnID: Int64? = nil
            var revised = false
            var publishedVersion: Int64? = nil
            while try direct.step() {
                switch direct.int64(0) {
                case 0: decision = (direct.int64(1), direct.int64(2))
                case 1: revised = true
                case 2: withdrawnID = direct.int64(2)
                default: publishedVersion = direct.int64(1)
                }
            }
            direct.reset()
            // A published translation: any text of its version counts, and so, before the
            // version is required, does the version before it (`presentation`).
            if let publishedVersion {
                let version = try EULAGate.inEffect(versionID: publishedVersion, db)
                return try EULAGate.status(of: version, documentID: documentID, user: user, at: Clock.nowMilliseconds(), db) == .required
            }
            if revised {
                let s = try db.statement(named ? EULAGate.coveredForNamedUser : EULAGate.coveredForDefaultUser)
                s.bind(1, text: documentID).bind(2, blob: user).bind(3, text: hash)
                defer { s.reset() }
                decision = try s.step() ? (s.int64(0), s.int64(1)) : nil
            }
            guard let decision, decision.stored == EULADecision.Kind.accepted.storedDecision else { return true }
            return withdrawnID.map { $0 > decision.id } ?? false
        }
    }

    // The statements of `shouldPresent`, built once (they are the cache keys of prepared
    // statements). "IS NULL" and "=" use the index on both engines ("IS NOT DISTINCT FROM"
    // would not), so the default user and a named one each have their own text.
    private static func latest(byUser: String) -> String {
        """
        SELECT 0, decision, id FROM (SELECT decision, id FROM eula_decisions
            WHERE document_id = ?1 AND \(byUser) AND hash = ?3 ORDER BY id DESC LIMIT 1) AS latest
        UNION ALL
        SELECT 1, 0, 0 WHERE EXISTS (SELECT 1 FROM eula_minor_revisions WHERE document_id = ?1 AND to_hash = ?3)
        UNION ALL
        SELECT 2, 0, id FROM (SELECT id FROM eula_decisions
            WHERE document_id = ?1 AND \(byUser) AND withdrawal IS NOT NULL ORDER BY id DESC LIMIT 1) AS withdrawn
        UNION ALL
        SELECT 3, version_id, 0 FROM eula_texts WHERE document_id = ?1 AND hash = ?3
        """
    }

    private static func covered(byUser: String) -> String {
        """
        WITH RECURSIVE covered(h) AS (
            VALUES (?3)
            UNION
            SELECT r.from_hash FROM eula_minor_revisions r JOIN covered c ON r.to_hash = c.h
            WHERE r.document_id = ?1)
        SELECT d.decision, d.id FROM eula_decisions d
        WHERE d.document_id = ?1 AND d.\(byUser) AND d.hash IN (SELECT h FROM covered)
        ORDER BY d.id DESC LIMIT 1
        """
    }

    private static let latestForDefaultUser = latest(byUser: "user_name IS NULL")
    private static let latestForNamedUser = latest(byUser: "user_name = ?2")
    private static let coveredForDefaultUser = covered(byUser: "user_name IS NULL")
    private static let coveredForNamedUser = covered(byUser: "user_name = ?2")

    /// Hashes the file as it is now, then decides. A missing or unreadable file is an error.
    public func shouldPresent(documentID: String, path: String, user: [UInt8]?) throws(GateKitError) -> Bool {
        try EULAGate.validate(documentID: documentID)
        try EULAGate.validate(user: user)
        let hash = try DocumentHash.of(file: path)
        return try shouldPresent(documentID: documentID, hash: hash, user: user)
    }

    /// Appends a decision on exactly the text whose hash is given (the text that was shown),
    /// with how it was given, and its link in the user's chain for the document
    /// (`ConsentChain`).
    @discardableResult
    public func record(_ kind: EULADecision.Kind, documentID: String, hash given: String, user: [UInt8]?,
                       consent: EULAConsent = .none) throws(GateKitError) -> EULADecision {
        guard kind != .withdrawn else { throw .invalid("a withdrawal names no text: use withdraw") }
        try EULAGate.validate(documentID: documentID)
        let hash = try DocumentHash.normalized(given)
        try EULAGate.validate(user: user)
        let consent = try consent.validated()
        let decision = EULADecision(documentID: documentID, hash: hash, user: user, kind: kind,
                                    atMilliseconds: Clock.nowMilliseconds(), consent: consent)
        let subject = try ConsentChain.subject(documentID: documentID, user: user)
        return try store.write(.chainLink(subject: subject)) { (db) throws(GateKitError) -> EULADecision in try ConsentChain.insert(decision, subject: subject, db) }
    }

    /// Withdraws `user`'s consent to the document: recorded as a withdrawal of the text whose
    /// acceptance was in force, after which every text of the document is presented again.
    /// `.ENOTFOUND` when no acceptance is in force (never accepted, or withdrawn since).
    @discardableResult
    public func withdraw(documentID: String, user: [UInt8]?, consent: EULAConsent = .none) throws(GateKitError) -> EULADecision {
        try EULAGate.validate(documentID: documentID)
        try EULAGate.validate(user: user)
        let consent = try consent.validated()
        // One withdrawal per acceptance even when two race: the chain's subject serializes them.
        let subject = try ConsentChain.subject(documentID: documentID, user: user)
        return try store.write(.subjects([subject])) { (db) throws(GateKitError) -> EULADecision in
            // The latest acceptance still in force: after the last withdrawal, and not followed
            // by another decision on its own text (a decline ended it already).
            let byUser = user == nil ? "user_name IS NULL" : "user_name = ?2"
            let s = try db.statement("""
                SELECT d.hash FROM eula_decisions d WHERE d.document_id = ?1 AND d.\(byUser) AND d.decision = 1
                    AND d.id > coalesce((SELECT max(id) FROM eula_decisions
                                         WHERE document_id = ?1 AND \(byUser) AND withdrawal IS NOT NULL), 0)
                    AND NOT EXISTS (SELECT 1 FROM eula_decisions later
                                    WHERE later.document_id = ?1 AND later.\(byUser) AND later.hash = d.hash AND later.id > d.id)
                ORDER BY d.id DESC LIMIT 1
                """)
            s.bind(1, text: documentID).bind(2, blob: user)
            let hash = try s.step() ? s.text(0) : nil
            s.reset()
            guard let hash else {
                throw GateKitError(.ENOTFOUND, "\(EULAGate.describe(user)) has no acceptance of \(Quoted.text(documentID)) in force to withdraw")
            }
            let decision = EULADecision(documentID: documentID, hash: hash, user: user, kind: .withdrawn,
                                        atMilliseconds: Clock.nowMilliseconds(), consent: consent)
            return try ConsentChain.insert(decision, subject: subject, db)
        }
    }

    /// The columns `decision(from:at:)` reads, in its order.
    static let decisionColumns = "document_id, user_name, hash, decision, at_ms, withdrawal, method, client_address, user_agent, locale, metadata, language"

    /// A decision from a statement's columns `c` … `c + 11` (`decisionColumns`).
    static func decision(from s: any DatabaseStatement, at c: Int32) -> EULADecision {
        let consent = EULAConsent(
            method: s.isNull(c + 6) ? nil : EULAConsent.Method(rawValue: s.int64(c + 6)),
            clientAddress: s.text(c + 7), userAgent: s.text(c + 8), locale: s.text(c + 9),
            metadata: EULAConsent.metadata(fromJSON: s.text(c + 10)))
        return EULADecision(documentID: s.text(c) ?? "", hash: s.text(c + 2) ?? "", user: s.blob(c + 1),
                            kind: EULADecision.Kind(storedDecision: s.int64(c + 3), withdrawal: !s.isNull(c + 5)),
                            atMilliseconds: s.int64(c + 4), consent: consent, language: s.text(c + 11))
    }

    static func describe(_ user: [UInt8]?) -> String {
        guard let user else { return "the default user" }
        return "user " + Quoted.text(String(decoding: user, as: UTF8.self))
    }

    /// Declares `toHash` a minor revision of `fromHash`: an acceptance of `fromHash` covers `toHash`.
    public func markMinorRevision(documentID: String, from fromGiven: String, to toGiven: String) throws(GateKitError) {
        try EULAGate.validate(documentID: documentID)
        let fromHash = try DocumentHash.normalized(fromGiven, name: "from_hash")
        let toHash = try DocumentHash.normalized(toGiven, name: "to_hash")
        guard fromHash != toHash else { throw .invalid("from_hash and to_hash are the same text") }
        let now = Clock.nowMilliseconds()
        try store.write(.singleInsert) { (db) throws(GateKitError) in
            let s = try db.statement("INSERT INTO eula_minor_revisions(document_id, from_hash, to_hash, at_ms) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
            try s.bind(1, text: documentID).bind(2, text: fromHash).bind(3, text: toHash).bind(4, now).run()
        }
    }

    public enum UserFilter: Sendable {
        case defaultUser
        case named([UInt8])
        case everyone
    }

    /// What breaks the history's chains (`ConsentChain`) and the publications' seals
    /// (`PublicationSeal`); empty when every decision since migration 9 and every published
    /// version and text is as GateKit recorded it. `gatekit_store_check` reports these.
    public func chainProblems() throws(GateKitError) -> [String] {
        try store.read { (db) throws(GateKitError) -> [String] in try ConsentChain.problems(db) + PublicationSeal.problems(db) }
    }

    /// Decisions oldest first, for one document or all (`documentID` nil).
    public func history(documentID: String?, user: UserFilter) throws(GateKitError) -> [EULADecision] {
        if let documentID { try EULAGate.validate(documentID: documentID) }
        if case let .named(name) = user { try EULAGate.validate(user: name) }
        return try store.read { (db) throws(GateKitError) -> [EULADecision] in
            var sql = "SELECT \(EULAGate.decisionColumns) FROM eula_decisions WHERE (?1 IS NULL OR document_id = ?1)"
            switch user {
            case .defaultUser: sql += " AND user_name IS NULL"
            case .named: sql += " AND user_name = ?2"
            case .everyone: break
            }
            sql += " ORDER BY id"
            let s = try db.statement(sql)
            defer { s.reset() }
            s.bind(1, text: documentID)
            if case let .named(name) = user { s.bind(2, blob: name) }
            var out: [EULADecision] = []
            while try s.step() { out.append(EULAGate.decision(from: s, at: 0)) }
            return out
        }
    }

    public static func historyJSON(_ decisions: [EULADecision]) -> String {
        JSONDocument.list("decisions", decisions.map(\.json))
    }
}
