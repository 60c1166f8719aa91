import GateKitCrypto
import GateKitStore
import GateKitSupport

/// A hash chain over each user's decisions on each document, kept by the store beside the
/// history (`eula_chain`, migration 9): link n is SHA-256(link n−1 ‖ the decision's canonical
/// bytes), numbered 1, 2, … per (document, user). A row changed, removed or slipped in behind
/// GateKit's back breaks its chain, and `problems` names it. One chain per (document, user),
/// not one for the whole store, so acceptances of different users never wait for each other.
/// What a chain kept in the same database cannot show is the loss of a chain's newest links
/// together with their decisions: an export carries each chain's last link for that.
enum ConsentChain {
    /// The chain a decision belongs to: SHA-256 of the document id and the user, each length-
    /// prefixed (the default user is its own marker).
    static func subject(documentID: String, user: [UInt8]?) throws(GateKitError) -> String {
        var bytes = Array("gatekit-eula-subject-v1".utf8)
        append(&bytes, Array(documentID.utf8))
        if let user { append(&bytes, user) } else { bytes.append(0xFF) }
        return Hex.encode(try Digest.hash(.sha256, bytes))
    }

    /// Every field of the decision a reader of the history relies on, length-prefixed.
    static func canonical(_ d: EULADecision) -> [UInt8] {
        var bytes = Array("gatekit-eula-decision-v1".utf8)
        append(&bytes, Array(d.documentID.utf8))
        if let user = d.user { append(&bytes, user) } else { bytes.append(0xFF) }
        for field in [d.hash, d.kind.name, String(d.atMilliseconds), d.consent.method?.name ?? "", d.consent.clientAddress ?? "",
                      d.consent.userAgent ?? "", d.consent.locale ?? "", d.consent.metadataJSON ?? ""] {
            append(&bytes, Array(field.utf8))
        }
        // Since migration 10, and only when the text is a published translation: the links
        // of earlier decisions stay as they were (one field more is another byte string).
        if let language = d.language { append(&bytes, Array(language.utf8)) }
        return bytes
    }

    /// Link n from link n−1 (nil for the first).
    static func link(after previous: String?, _ d: EULADecision) throws(GateKitError) -> String {
        var bytes = previous.flatMap(Hex.decode) ?? [UInt8](repeating: 0, count: 32)
        bytes += canonical(d)
        return Hex.encode(try Digest.hash(.sha256, bytes))
    }

    /// `EULAGate.decisionColumns`, each prefixed with a table's alias.
    static func prefixed(_ alias: String) -> String {
        Text.pieces(EULAGate.decisionColumns, separatedBy: ", ").map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    private static func append(_ bytes: inout [UInt8], _ field: [UInt8]) {
        var length = UInt64(field.count).bigEndian
        withUnsafeBytes(of: &length) { bytes += $0 }
        bytes += field
    }

    /// Inserts the decision and its link, and returns it with the language of its text when
    /// that text is published. On PostgreSQL one statement does it on the server — the
    /// text's language and the previous link read, the decision inserted, the link computed
    /// with the server's `sha256` over the canonical bytes (the language's field appended
    /// there) — autocommitted (`write(.chainLink)`): one round trip, as the released single
    /// INSERT was. Two writers of one chain at once both read link n; the unique (subject, seq)
    /// lets one insert n + 1 and fails the other, which the store retries holding the chain's
    /// lock (queued behind its other writers, not racing them again), reading the new link.
    /// The statement also holds that lock while it runs, taken with SKIP LOCKED: finding it
    /// held by a queued writer, it writes nothing and queues as well, so a queued writer never
    /// loses its link to one that did not queue (which in 24 racing processes once made a
    /// queued writer give up after ten lost races). SQLite runs one writer at a time and reads for free.
    @discardableResult
    static func insert(_ given: EULADecision, subject: String, _ db: any DatabaseConnection) throws(GateKitError) -> EULADecision {
        var d = given
        let columns = EULAGate.decisionColumns
        func bindDecision(_ s: any DatabaseStatement, from first: Int32) {
            let withdrawal: Int64? = d.kind == .withdrawn ? 1 : nil
            s.bind(first, text: d.documentID).bind(first + 1, blob: d.user).bind(first + 2, text: d.hash)
            s.bind(first + 3, d.kind.storedDecision).bind(first + 4, d.atMilliseconds).bind(first + 5, withdrawal)
            s.bind(first + 6, d.consent.method?.rawValue).bind(first + 7, text: d.consent.clientAddress)
            s.bind(first + 8, text: d.consent.userAgent).bind(first + 9, text: d.consent.locale).bind(first + 10, text: d.consent.metadataJSON)
        }
        if db.dialect == .postgresql {
            d.language = nil  // the server appends it to the canonical bytes
            let s = try db.statement("""
                WITH queue AS (SELECT slot FROM gatekit_locks WHERE slot = ?14 FOR UPDATE SKIP LOCKED),
                     prev AS (SELECT seq, chain FROM eula_chain WHERE subject = ?1 ORDER BY seq DESC LIMIT 1),
                     lang AS (SELECT (SELECT language FROM eula_texts WHERE document_id = ?2 AND hash = ?4) AS language),
                     d AS (INSERT INTO eula_decisions(\(columns))
                           SELECT ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, language FROM lang, queue RETURNING id, language)
                INSERT INTO eula_chain(decision_id, subject, seq, chain)
                SELECT d.id, ?1, coalesce((SELECT seq FROM prev), 0) + 1,
                       encode(sha256(coalesce(decode((SELECT chain FROM prev), 'hex'), decode(repeat('00', 32), 'hex')) || ?13
                                     || coalesce(int8send(octet_length(convert_to(d.language, 'UTF8'))::bigint) || convert_to(d.language, 'UTF8'),
                                                 ''::bytea)), 'hex')
                FROM d
                RETURNING (SELECT language FROM d)
                """)
            defer { s.reset() }
            s.bind(1, text: subject)
            bindDecision(s, from: 2)
            s.bind(13, blob: canonical(d)).bind(14, WriteScope.chainLockSlot(subject))
            guard try s.step() else { throw .chainLinkQueued }
            d.language = s.text(0)
            return d
        }
        let read = try db.statement("""
            SELECT (SELECT coalesce(max(id), 0) + 1 FROM eula_decisions), c.seq, c.chain,
                   (SELECT language FROM eula_texts WHERE document_id = ?2 AND hash = ?3)
            FROM (SELECT 1) AS one LEFT JOIN (SELECT seq, chain FROM eula_chain WHERE subject = ?1 ORDER BY seq DESC LIMIT 1) AS c ON 1 = 1
            """)
        read.bind(1, text: subject).bind(2, text: d.documentID).bind(3, text: d.hash)
        guard try read.step() else { throw .internalError("the next decision id could not be drawn") }
        let id = read.int64(0), previousSeq = read.isNull(1) ? 0 : read.int64(1), previous = read.text(2)
        d.language = read.text(3)
        read.reset()
        let decision = try db.statement("INSERT INTO eula_decisions(id, \(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
        decision.bind(1, id)
        bindDecision(decision, from: 2)
        try decision.bind(13, text: d.language).run()
        let link = try db.statement("INSERT INTO eula_chain(decision_id, subject, seq, chain) VALUES (?1, ?2, ?3, ?4)")
        try link.bind(1, id).bind(2, text: subject).bind(3, previousSeq &+ 1).bind(4, text: try ConsentChain.link(after: previous, d)).run()
        return d
    }

    /// What breaks a chain, in words (empty: every chain holds), at most `limit` of them. One
    /// pass over the links in chain order, keeping only the link before (SQLite steps through
    /// the rows; PostgreSQL's answer is read whole, as every read of this store).
    static func problems(_ db: any DatabaseConnection, limit: Int = 100) throws(GateKitError) -> [String] {
        var problems: [String] = []
        func report(_ text: String) { if problems.count < limit { problems.append(text) } }
        let links = try db.statement("""
            SELECT c.subject, c.seq, c.chain, c.decision_id, d.id, \(ConsentChain.prefixed("d"))
            FROM eula_chain c LEFT JOIN eula_decisions d ON d.id = c.decision_id
            ORDER BY c.subject, c.seq
            """)
        defer { links.reset() }
        var subject = "", previous: String? = nil, seq: Int64 = 0
        while try links.step() {
            let rowSubject = links.text(0) ?? "", rowSeq = links.int64(1), stored = links.text(2) ?? "", id = links.int64(3)
            if rowSubject != subject { (subject, previous, seq) = (rowSubject, nil, 0) }
            // After a gap the link before this one is gone: it cannot be checked, only named.
            let gap = rowSeq != seq &+ 1
            if gap { report("the history of chain \(subject.prefix(12)) lost links \(seq &+ 1) to \(rowSeq &- 1) (rows removed)") }
            seq = rowSeq
            defer { previous = stored }
            guard !links.isNull(4) else {
                report("eula decision \(id) was removed (its chain link \(rowSeq) remains)")
                continue
            }
            let d = EULAGate.decision(from: links, at: 5)
            let linked = gap ? true : try ConsentChain.link(after: previous, d) == stored
            guard try ConsentChain.subject(documentID: d.documentID, user: d.user) == subject, linked else {
                report("eula decision \(id) was changed (it no longer matches its chain link)")
                continue
            }
        }
        // A decision recorded since the chain began but without a link was written behind
        // GateKit's back (decisions from before migration 9 have none, legitimately).
        let unlinked = try db.statement("""
            SELECT d.id FROM eula_decisions d
            WHERE d.id >= (SELECT coalesce(min(decision_id), 9223372036854775807) FROM eula_chain)
              AND NOT EXISTS (SELECT 1 FROM eula_chain c WHERE c.decision_id = d.id)
            ORDER BY d.id
            """)
        defer { unlinked.reset() }
        while try unlinked.step() { report("eula decision \(unlinked.int64(0)) has no chain link (written outside GateKit)") }
        return problems
    }
}
