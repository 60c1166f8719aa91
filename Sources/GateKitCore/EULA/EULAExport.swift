import GateKitCrypto
import GateKitStore
import GateKitSupport

/// The consent record as a file a lawyer can hand on (GDPR Art. 7(1)): every decision of one
/// user (or of everyone), oldest first, with the exact text's hash, its language and version
/// label, the instant, how it was given, and its link in the user's chain — and, on request,
/// each text itself. JSON lines or CSV, written in pages from one snapshot, so millions of rows
/// stream in bounded memory. `EULAExportVerifier` checks a file against the store.
public enum EULAExport {
    public enum Format: Sendable { case jsonLines, csv }

    public struct Options: Sendable {
        public var format: Format
        public var documentID: String?
        public var user: EULAGate.UserFilter
        /// Each published text once, before the first decision on it.
        public var includeTexts: Bool

        public init(format: Format = .jsonLines, documentID: String? = nil, user: EULAGate.UserFilter = .everyone, includeTexts: Bool = false) {
            self.format = format
            self.documentID = documentID
            self.user = user
            self.includeTexts = includeTexts
        }
    }

    /// Format 2 (Hardening IV) carries each text's version seal (`PublicationSeal`) in its text
    /// record, so an export taken before a publication was edited in the store finds the edit;
    /// files of format 1 (no seals) are still verified as they were written.
    public static let formatName = "gatekit-eula-export/2"
    static func formatName(_ format: Int) -> String { "gatekit-eula-export/\(format)" }
    static let pageRows: Int64 = 1000

    /// CSV's columns. Every record uses them: an "export" record says what was exported
    /// (`id`: the last decision id the snapshot held; `decision`: whose, "every user's
    /// decisions" or "one user's decisions"; `version`: the format; `at`: when; `text`:
    /// "published texts included" when they are; an earlier GateKit wrote "everyone", "one
    /// user" and "texts", which still verify), a "text"
    /// record one published text (`at`: its effect; `text`: its bytes in base64), an "end"
    /// record how many decisions came (`id`).
    static let columns = ["record", "id", "document_id", "user", "user_hex", "hash", "language", "version", "decision", "at", "at_ms",
                          "method", "client_address", "user_agent", "locale", "metadata", "chain_seq", "chain", "text"]

    /// What was exported, as the first record says it.
    struct Header: Equatable {
        var documentID: String?
        var user: EULAGate.UserFilter
        var includeTexts: Bool
        var throughID: Int64
        var exportedAt: Int64
        /// 2 when written now; 1 for a file an earlier GateKit wrote.
        var format = 2

        /// The header's values, in words that say what they mean (format 2); `earlier`: as
        /// format 1 (GateKit 0.1) wrote them, still verified as written.
        static let everyone = "every user's decisions", oneUser = "one user's decisions", textsIncluded = "published texts included"
        static let earlier = (everyone: "everyone", oneUser: "one user", textsIncluded: "texts")

        static func == (a: Header, b: Header) -> Bool {
            a.documentID == b.documentID && a.includeTexts == b.includeTexts && a.throughID == b.throughID && a.exportedAt == b.exportedAt
                && a.user.sameFilter(as: b.user) && a.format == b.format
        }
    }

    /// One record, as named members; CSV writes them in `columns`' order, JSON in theirs.
    static func header(_ h: Header) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("record", .string("export")), ("version", .string(formatName(h.format))), ("id", .number(h.throughID))]
        members.append(("document_id", h.documentID.map(JSONValue.string) ?? .null))
        let words = h.format == 1 ? Header.earlier : (everyone: Header.everyone, oneUser: Header.oneUser, textsIncluded: Header.textsIncluded)
        switch h.user {
        case .everyone: members.append(("decision", .string(words.everyone)))
        case .defaultUser: members += [("decision", .string(words.oneUser)), ("user", .null)]
        case let .named(name): members += [("decision", .string(words.oneUser))] + userMembers(name)
        }
        members.append(("at", .string(Timestamp.rfc3339Milliseconds(h.exportedAt))))
        if h.includeTexts { members.append(("text", .string(words.textsIncluded))) }
        return members
    }

    static func userMembers(_ user: [UInt8]?) -> [(String, JSONValue)] {
        guard let user else { return [("user", .null)] }
        if let text = String(validating: user, as: UTF8.self) { return [("user", .string(text))] }
        return [("user", .string(String(decoding: user, as: UTF8.self))), ("user_hex", .string(Hex.encode(user)))]
    }

    /// `seal`: the version's seal (format 2), in the `chain` column; nil in format 1.
    static func text(documentID: String, label: String, language: String, hash: String, effective: Int64, body: [UInt8],
                     seal: String?) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("record", .string("text")), ("document_id", .string(documentID)), ("hash", .string(hash)),
                                              ("language", .string(language)), ("version", .string(label)),
                                              ("at", .string(Timestamp.rfc3339Milliseconds(effective)))]
        if let seal { members.append(("chain", .string(seal))) }
        members.append(("text", .string(Base64.encode(body))))
        return members
    }

    static func decision(id: Int64, _ d: EULADecision, label: String?, seq: Int64?, chain: String?) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("record", .string("decision")), ("id", .number(id)), ("document_id", .string(d.documentID))]
        members += userMembers(d.user)
        members += [("hash", .string(d.hash)), ("language", d.language.map(JSONValue.string) ?? .null),
                    ("version", label.map(JSONValue.string) ?? .null), ("decision", .string(d.kind.name)),
                    ("at", .string(Timestamp.rfc3339Milliseconds(d.atMilliseconds))), ("at_ms", .number(d.atMilliseconds)),
                    ("method", d.consent.method.map { .string($0.name) } ?? .null),
                    ("client_address", d.consent.clientAddress.map(JSONValue.string) ?? .null),
                    ("user_agent", d.consent.userAgent.map(JSONValue.string) ?? .null),
                    ("locale", d.consent.locale.map(JSONValue.string) ?? .null),
                    ("metadata", d.consent.metadata.isEmpty ? .null : d.consent.metadataObject),
                    ("chain_seq", seq.map(JSONValue.number) ?? .null), ("chain", chain.map(JSONValue.string) ?? .null)]
        return members
    }

    static func end(count: Int64) -> [(String, JSONValue)] { [("record", .string("end")), ("id", .number(count))] }

    /// The record's bytes with their line break.
    static func render(_ members: [(String, JSONValue)], _ format: Format) -> [UInt8] {
        switch format {
        case .jsonLines:
            return Array(JSONWriter.serialize(.object(members)).utf8) + [UInt8(ascii: "\n")]
        case .csv:
            let fields = columns.map { (column) -> String in
                switch members.first(where: { $0.0 == column })?.1 {
                case nil, .null?: ""
                case let .string(s)?: DelimitedRecords.csvField(s)
                case let .number(n)?: n
                case let value?: DelimitedRecords.csvField(JSONWriter.serialize(value))
                }
            }
            return Array((fields.joined(separator: ",") + "\r\n").utf8)
        }
    }

    static var csvHeader: [UInt8] { Array((columns.joined(separator: ",") + "\r\n").utf8) }
}

extension EULAGate.UserFilter {
    func sameFilter(as other: EULAGate.UserFilter) -> Bool {
        switch (self, other) {
        case (.everyone, .everyone), (.defaultUser, .defaultUser): true
        case let (.named(a), .named(b)): a == b
        default: false
        }
    }
}

extension EULAGate {
    /// Writes the export through `sink` in chunks of about 64 KiB and returns how many
    /// decisions it holds. Reads one snapshot (other writers go on): decisions recorded while
    /// it runs are not in it. Then records the export — its instant, the snapshot's last
    /// decision and the SHA-256 of every byte written — so that `verifyExport` can tell a
    /// file the store wrote from one edited after (a read-only store cannot export).
    /// `sink` must not use this store.
    @discardableResult
    public func export(_ options: EULAExport.Options, to sink: ([UInt8]) throws(GateKitError) -> Void) throws(GateKitError) -> Int64 {
        if let documentID = options.documentID { try EULAGate.validate(documentID: documentID) }
        if case let .named(name) = options.user { try EULAGate.validate(user: name) }
        guard !store.isReadOnly else {
            throw GateKitError(.EREADONLY, "store \(Quoted.path(store.path)) is open read-only: an export is recorded in it (its digest, which verification checks)")
        }
        // Small records gathered into chunks for the host's sink, and digested as written.
        let digest = try StreamingDigest(.sha256)
        var pending: [UInt8] = []
        func write(_ bytes: [UInt8]) throws(GateKitError) {
            try digest.update(bytes)
            pending += bytes
            if pending.count >= 1 << 16 { try flush() }
        }
        func flush() throws(GateKitError) {
            guard !pending.isEmpty else { return }
            try sink(pending)
            pending.removeAll(keepingCapacity: true)
        }
        var header = EULAExport.Header(documentID: options.documentID, user: options.user, includeTexts: options.includeTexts,
                                       throughID: 0, exportedAt: 0)
        let count = try store.snapshot { (db) throws(GateKitError) -> Int64 in
            header.throughID = try db.scalar("SELECT coalesce(max(id), 0) FROM eula_decisions")
            header.exportedAt = Clock.nowMilliseconds()
            if options.format == .csv { try write(EULAExport.csvHeader) }
            try write(EULAExport.render(EULAExport.header(header), options.format))
            let count = try EULAGate.exportRecords(header, db) { (members) throws(GateKitError) in
                try write(EULAExport.render(members, options.format))
            }
            try write(EULAExport.render(EULAExport.end(count: count), options.format))
            return count
        }
        try flush()
        let exported = Hex.encode(try digest.finish())
        try store.write(.singleInsert) { (db) throws(GateKitError) in
            let s = try db.statement("INSERT INTO eula_exports(exported_ms, through_id, decisions, digest) VALUES (?1, ?2, ?3, ?4)")
            try s.bind(1, header.exportedAt).bind(2, header.throughID).bind(3, count).bind(4, text: exported).run()
        }
        return count
    }

    /// The records after the header, in order: each decision the header's filter selects up
    /// to its `throughID`, preceded by each text on first use when texts are included.
    /// Returns the number of decisions. Pages of at most `pageRows`, so the PostgreSQL
    /// client never holds more than a page.
    static func exportRecords(_ h: EULAExport.Header, _ db: any DatabaseConnection,
                              _ emit: ([(String, JSONValue)]) throws(GateKitError) -> Void) throws(GateKitError) -> Int64 {
        var sql = """
            SELECT d.id, \(ConsentChain.prefixed("d")), v.label, c.seq, c.chain
            FROM eula_decisions d
            LEFT JOIN eula_chain c ON c.decision_id = d.id
            LEFT JOIN eula_texts t ON t.document_id = d.document_id AND t.hash = d.hash
            LEFT JOIN eula_versions v ON v.id = t.version_id
            WHERE d.id > ?1 AND d.id <= ?2
            """
        // Parameters numbered without gaps: PostgreSQL must see a type for each.
        var next: Int32 = 3
        let documentParameter = h.documentID.map { _ in defer { next += 1 }; return next }
        if let documentParameter { sql += " AND d.document_id = ?\(documentParameter)" }
        var userParameter: Int32? = nil
        switch h.user {
        case .defaultUser: sql += " AND d.user_name IS NULL"
        case .named: userParameter = next; sql += " AND d.user_name = ?\(next)"
        case .everyone: break
        }
        // Pages never depend on the planner's estimates (a table filled minutes ago has none
        // yet, and PostgreSQL then reads the whole rest of the range and sorts it for every
        // page): one user's rows come by that user's index, `pageRows` at a time; everyone's
        // in windows of `pageRows` ids.
        let byUser: Bool
        if case .everyone = h.user { byUser = false } else { byUser = true }
        sql += byUser ? " ORDER BY d.id LIMIT \(EULAExport.pageRows)" : " ORDER BY d.id"
        var after: Int64 = 0, count: Int64 = 0
        var textsSent = Set<String>()
        // The work is bounded by what the store holds, never by what a header claims (a
        // crafted file's id of 10^15 would step through a thousand ids at a time for months):
        // windows stop at the newest decision, and skip every gap between decisions at once.
        let newest = try db.scalar("SELECT COALESCE(MAX(id), 0) FROM eula_decisions")
        let through = min(h.throughID, newest)
        let following = try db.statement("SELECT MIN(id) FROM eula_decisions WHERE id > ?1")
        while true {
            let s = try db.statement(sql)
            let (window, overflow) = after.addingReportingOverflow(EULAExport.pageRows)
            s.bind(1, after).bind(2, byUser || overflow ? through : min(window, through))
            if let documentParameter { s.bind(documentParameter, text: h.documentID) }
            if let userParameter, case let .named(name) = h.user { s.bind(userParameter, blob: name) }
            var page: [(id: Int64, decision: EULADecision, label: String?, seq: Int64?, chain: String?)] = []
            while try s.step() {
                page.append((s.int64(0), EULAGate.decision(from: s, at: 1), s.text(13), s.optionalInt64(14), s.text(15)))
            }
            s.reset()
            for row in page {
                if h.includeTexts, row.label != nil, textsSent.insert(row.decision.documentID + "\u{0}" + row.decision.hash).inserted {
                    try emit(try EULAGate.textRecord(documentID: row.decision.documentID, hash: row.decision.hash, format: h.format, db))
                }
                try emit(EULAExport.decision(id: row.id, row.decision, label: row.label, seq: row.seq, chain: row.chain))
                count += 1
            }
            if byUser {
                guard let last = page.last, page.count == Int(EULAExport.pageRows) else { return count }
                after = last.id
            } else {
                guard !overflow, window < through else { return count }
                after = window
                if page.isEmpty {  // a gap: on to the decision after it
                    following.bind(1, window)
                    let next = try following.step() ? following.optionalInt64(0) : nil
                    following.reset()
                    guard let next, next <= through else { return count }
                    after = next - 1
                }
            }
        }
    }

    private static func textRecord(documentID: String, hash: String, format: Int, _ db: any DatabaseConnection) throws(GateKitError) -> [(String, JSONValue)] {
        let s = try db.statement("""
            SELECT v.label, t.language, v.effective_ms, t.body, p.seal FROM eula_texts t JOIN eula_versions v ON v.id = t.version_id
            LEFT JOIN eula_version_seals p ON p.version_id = v.id
            WHERE t.document_id = ?1 AND t.hash = ?2
            """)
        s.bind(1, text: documentID).bind(2, text: hash)
        defer { s.reset() }
        guard try s.step() else { throw .internalError("the text \(hash) vanished from the snapshot") }
        return EULAExport.text(documentID: documentID, label: s.text(0) ?? "", language: s.text(1) ?? "", hash: hash,
                               effective: s.int64(2), body: try PublicationSeal.checkedBody(s.blob(3) ?? [], hash: hash, documentID: documentID),
                               seal: format >= 2 ? s.text(4) ?? "" : nil)
    }
}
