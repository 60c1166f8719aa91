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
            let direct = try db.statement(named ? EULAGate.latestForNamedUser : EULAGate.latestForDefaultUser)
            direct.bind(1, text: documentID).bind(2, blob: user).bind(3, text: hash)
            var decision: Int64? = nil
            var revised = false
            while try direct.step() {
                if direct.int64(0) == 1 { revised = true } else { decision = direct.int64(1) }
            }
            direct.reset()
            if revised {
                let s = try db.statement(named ? EULAGate.coveredForNamedUser : EULAGate.coveredForDefaultUser)
                s.bind(1, text: documentID).bind(2, blob: user).bind(3, text: hash)
                defer { s.reset() }
                decision = try s.step() ? s.int64(0) : nil
            }
            return decision != EULADecision.Kind.accepted.rawValue
        }
    }

    // The statements of `shouldPresent`, built once (they are the cache keys of prepared
    // statements). "IS NULL" and "=" use the index on both engines ("IS NOT DISTINCT FROM"
    // would not), so the default user and a named one each have their own text.
    private static func latest(byUser: String) -> String {
        """
        SELECT 0, decision FROM (SELECT decision FROM eula_decisions
            WHERE document_id = ?1 AND \(byUser) AND hash = ?3 ORDER BY id DESC LIMIT 1) AS latest
        UNION ALL
        SELECT 1, 0 WHERE EXISTS (SELECT 1 FROM eula_minor_revisions WHERE document_id = ?1 AND to_hash = ?3)
        """
    }

    private static func covered(byUser: String) -> String {
        """
        WITH RECURSIVE covered(h) AS (
            VALUES (?3)
            UNION
            SELECT r.from_hash FROM eula_minor_revisions r JOIN covered c ON r.to_hash = c.h
            WHERE r.document_id = ?1)
        SELECT d.decision FROM eula_decisions d
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

    /// Appends a decision on exactly the text whose hash is given (the text that was shown).
    @discardableResult
    public func record(_ kind: EULADecision.Kind, documentID: String, hash given: String, user: [UInt8]?) throws(GateKitError) -> EULADecision {
        try EULAGate.validate(documentID: documentID)
        let hash = try DocumentHash.normalized(given)
        try EULAGate.validate(user: user)
        let now = Clock.nowMilliseconds()
        try store.write(.singleInsert) { (db) throws(GateKitError) in
            let s = try db.statement("INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)")
            try s.bind(1, text: documentID).bind(2, blob: user).bind(3, text: hash).bind(4, kind.rawValue).bind(5, now).run()
        }
        return EULADecision(documentID: documentID, hash: hash, user: user, kind: kind, atMilliseconds: now)
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

    /// Decisions oldest first, for one document or all (`documentID` nil).
    public func history(documentID: String?, user: UserFilter) throws(GateKitError) -> [EULADecision] {
        if let documentID { try EULAGate.validate(documentID: documentID) }
        if case let .named(name) = user { try EULAGate.validate(user: name) }
        return try store.read { (db) throws(GateKitError) -> [EULADecision] in
            var sql = "SELECT document_id, user_name, hash, decision, at_ms FROM eula_decisions WHERE (?1 IS NULL OR document_id = ?1)"
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
            while try s.step() {
                out.append(EULADecision(
                    documentID: s.text(0) ?? "",
                    hash: s.text(2) ?? "",
                    user: s.blob(1),
                    kind: EULADecision.Kind(rawValue: s.int64(3)) ?? .declined,
                    atMilliseconds: s.int64(4)))
            }
            return out
        }
    }

    public static func historyJSON(_ decisions: [EULADecision]) -> String {
        JSONDocument.list("decisions", decisions.map(\.json))
    }
}
