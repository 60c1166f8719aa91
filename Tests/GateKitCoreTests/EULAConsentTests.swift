import Dispatch
import Glibc
import Synchronization
import Testing
@testable import GateKitEULA
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// EULA II: how a decision was given, withdrawal, and headless acceptance bound to one text —
/// on SQLite, and on PostgreSQL when `make test` runs the contract suites there.
@Suite struct EULAConsentTests {
    let folder = TemporaryFolder()
    let gate: EULAGate

    init() throws {
        gate = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
    }

    static let clickThrough = EULAConsent(method: .clickThrough, clientAddress: "::ffff:192.0.2.1", userAgent: "GateKit/1 (\"test\")",
                                          locale: "pt-BR", metadata: [("checkbox", "marketing"), ("ünïcode", "✓ \u{0}-free")])

    @Test func theConsentIsStoredAsGivenAndReadBack() throws {
        let v1 = try sha256Hex("v1")
        let recorded = try gate.record(.accepted, documentID: "terms", hash: v1, user: Array("ann".utf8), consent: EULAConsentTests.clickThrough)
        #expect(recorded.consent.clientAddress == "::ffff:192.0.2.1")
        let read = try gate.history(documentID: "terms", user: .named(Array("ann".utf8)))
        #expect(read == [recorded])
        #expect(read.first?.consent == EULAConsentTests.clickThrough)
        // The JSON entry: the released members first, then the parts that were given.
        let json = try JSONParser.parse(Array(EULAGate.historyJSON(read).utf8))
        guard case let .array(entries)? = json["decisions"], case let .object(members)? = entries.first else {
            Issue.record("no history entry")
            return
        }
        #expect(members.map(\.0) == ["document_id", "hash", "user", "decision", "at", "method", "client_address", "user_agent", "locale", "metadata"])
        #expect(entries.first?["metadata"] == .object([("checkbox", .string("marketing")), ("ünïcode", .string("✓ \u{0}-free"))]))
        // A decision without a consent keeps the released entry exactly.
        try gate.record(.declined, documentID: "terms", hash: v1, user: nil)
        let plain = try gate.history(documentID: "terms", user: .defaultUser)
        #expect(plain.first?.consent == EULAConsent.none)
        if case let .object(m)? = try JSONParser.parse(Array(EULAGate.historyJSON(plain).utf8))["decisions"].flatMap({ if case let .array(a) = $0 { a.first } else { nil } }) {
            #expect(m.map(\.0) == ["document_id", "hash", "user", "decision", "at"])
        } else {
            Issue.record("no plain history entry")
        }
    }

    @Test func addressesAreCanonicalAndEveryMalformedPartIsRefused() throws {
        let v1 = try sha256Hex("v1")
        #expect(try gate.record(.accepted, documentID: "t", hash: v1, user: nil,
                                consent: EULAConsent(clientAddress: "2001:0DB8:0000:0000:0000:0000:0000:0001")).consent.clientAddress == "2001:db8::1")
        #expect(try gate.record(.accepted, documentID: "t", hash: v1, user: nil,
                                consent: EULAConsent(clientAddress: "198.51.100.23")).consent.clientAddress == "198.51.100.23")
        let tooMany = (0...EULAConsent.maximumMetadataPairs).map { (key: "k\($0)", value: "v") }
        let refused: [(EULAConsent, GateKitError.Code)] = [
            (EULAConsent(clientAddress: "example.com"), .EINVAL),
            (EULAConsent(clientAddress: "192.0.2.1:443"), .EINVAL),
            (EULAConsent(clientAddress: "1.2.3"), .EINVAL),
            (EULAConsent(clientAddress: "192.0.2.1\u{0}evil"), .EINVAL),
            (EULAConsent(userAgent: ""), .EINVAL),
            (EULAConsent(userAgent: String(repeating: "a", count: 1025)), .ETOOLARGE),
            (EULAConsent(locale: "de_AT"), .EINVAL),
            (EULAConsent(locale: "d"), .EINVAL),
            (EULAConsent(locale: "de-AT-" + String(repeating: "x", count: 9)), .EINVAL),
            (EULAConsent(metadata: tooMany), .ETOOLARGE),
            (EULAConsent(metadata: [("", "v")]), .EINVAL),
            (EULAConsent(metadata: [(String(repeating: "k", count: 65), "v")]), .ETOOLARGE),
            (EULAConsent(metadata: [("k", String(repeating: "v", count: 1025))]), .ETOOLARGE),
            (EULAConsent(metadata: [("k", "1"), ("k", "2")]), .EINVAL),
        ]
        for (consent, code) in refused {
            #expect(failure { try gate.record(.accepted, documentID: "t", hash: v1, user: nil, consent: consent) } == code, "\(consent)")
        }
        #expect(try gate.history(documentID: "t", user: .everyone).count == 2)  // nothing refused was recorded
        // The bounds themselves are accepted.
        let widest = EULAConsent(userAgent: String(repeating: "a", count: 1024), locale: "zh-Hant-TW",
                                 metadata: (1...EULAConsent.maximumMetadataPairs).map { n in
                                     ("\(n)" + String(repeating: "k", count: EULAConsent.maximumKeyBytes - "\(n)".count),
                                      String(repeating: "v", count: EULAConsent.maximumValueBytes))
                                 })
        try gate.record(.accepted, documentID: "t", hash: v1, user: nil, consent: widest)
        #expect(try gate.history(documentID: "t", user: .everyone).last?.consent == widest)
    }

    @Test func withdrawalPresentsEveryTextAgainUntilAcceptedAnew() throws {
        let v1 = try sha256Hex("v1"), v1a = try sha256Hex("v1 typo fixed"), v2 = try sha256Hex("v2")
        let ann = Array("ann".utf8)
        #expect(failure { try gate.withdraw(documentID: "terms", user: ann) } == .ENOTFOUND)
        try gate.record(.accepted, documentID: "terms", hash: v1, user: ann)
        try gate.markMinorRevision(documentID: "terms", from: v1, to: v1a)
        try gate.record(.accepted, documentID: "terms", hash: v2, user: ann)
        try gate.record(.declined, documentID: "terms", hash: v2, user: ann)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: ann))
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1a, user: ann))   // covered by v1's acceptance
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))  // the default user is someone else

        let withdrawal = try gate.withdraw(documentID: "terms", user: ann, consent: EULAConsent(method: .api))
        #expect(withdrawal.kind == .withdrawn && withdrawal.hash == v1)  // v2's acceptance ended with its decline
        for text in [v1, v1a, v2] { #expect(try gate.shouldPresent(documentID: "terms", hash: text, user: ann)) }
        #expect(failure { try gate.withdraw(documentID: "terms", user: ann) } == .ENOTFOUND)  // nothing in force
        #expect(failure { try gate.record(.withdrawn, documentID: "terms", hash: v1, user: ann) } == .EINVAL)

        // Accepting anew counts again; a later withdrawal ends that one too.
        try gate.record(.accepted, documentID: "terms", hash: v1a, user: ann)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1a, user: ann))
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: ann))
        #expect(try gate.withdraw(documentID: "terms", user: ann).hash == v1a)
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1a, user: ann))
        #expect(try gate.history(documentID: "terms", user: .named(ann)).map(\.kind) == [.accepted, .accepted, .declined, .withdrawn, .accepted, .withdrawn])
        // Other documents and users are untouched.
        try gate.record(.accepted, documentID: "privacy", hash: v1, user: ann)
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        #expect(try !gate.shouldPresent(documentID: "privacy", hash: v1, user: ann))
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        #expect(try gate.withdraw(documentID: "terms", user: nil).user == nil)
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
    }

    @Test func namedAcceptanceAcceptsOnlyTheNamedText() throws {
        let v1 = try sha256Hex("v1"), v2 = try sha256Hex("v2")
        let consent = EULAConsent(method: .cliFlag)
        #expect(try gate.acceptIfNamed(documentID: "terms", hash: v1, user: nil, names: "terms@\(v1.prefix(8).uppercased())",
                                       source: "--accept", consent: consent))
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        // The text changed since it was named: refused, nothing recorded.
        do {
            try gate.acceptIfNamed(documentID: "terms", hash: v2, user: nil, names: "terms@\(v1.prefix(8))", source: "--accept", consent: consent)
            Issue.record("another text's name accepted v2")
        } catch {
            #expect(error.code == .EEULA_HASH_MISMATCH && error.message.contains(v2) && error.message.contains("--accept"))
        }
        #expect(try gate.shouldPresent(documentID: "terms", hash: v2, user: nil))
        // Not named: false, nothing recorded. A document id with "@" is named by its last one.
        #expect(try !gate.acceptIfNamed(documentID: "privacy", hash: v2, user: nil, names: "terms@\(v2)", source: "x", consent: consent))
        #expect(try gate.acceptIfNamed(documentID: "a@b", hash: v2, user: nil, names: " other@\(v1.prefix(9)) ,a@b@\(v2.prefix(10))",
                                       source: "x", consent: consent))
        for malformed in ["terms", "terms@", "terms@1234567", "terms@\(v1)0", "terms@xyzxyzxy", "@\(v1.prefix(8))", "terms@\(v1.prefix(8)),"] {
            #expect(failure { try gate.acceptIfNamed(documentID: "terms", hash: v1, user: nil, names: malformed, source: "x", consent: consent) }
                    == .EINVAL, "\(malformed)")
        }
        #expect(try gate.history(documentID: nil, user: .everyone).count == 2)
    }

    @Test func theEnvironmentVariableTheHostNamesIsReadAndRecorded() throws {
        let v1 = try sha256Hex("v1")
        let variable = "GATEKIT_SWIFT_TEST_ACCEPT_\(getpid())"
        #expect(try !gate.acceptFromEnvironment(documentID: "terms", hash: v1, user: nil, variable: variable, consent: .none))
        setenv(variable, "", 1)
        #expect(try !gate.acceptFromEnvironment(documentID: "terms", hash: v1, user: nil, variable: variable, consent: .none))
        setenv(variable, "terms@\(v1.prefix(16))", 1)
        defer { unsetenv(variable) }
        #expect(try gate.acceptFromEnvironment(documentID: "terms", hash: v1, user: nil, variable: variable, consent: EULAConsent(locale: "en")))
        let entry = try gate.history(documentID: "terms", user: .defaultUser)
        #expect(entry.map(\.consent) == [EULAConsent(method: .environment, locale: "en", metadata: [("variable", variable)])])
        for bad in ["", "1X", "A-B", "A=B", String(repeating: "A", count: 256)] {
            #expect(failure { try gate.acceptFromEnvironment(documentID: "terms", hash: v1, user: nil, variable: bad, consent: .none) } == .EINVAL)
        }
        // A consent that cannot be kept is an error even while the variable is unset.
        #expect(failure { try gate.acceptFromEnvironment(documentID: "terms", hash: v1, user: nil, variable: "GATEKIT_UNSET_\(getpid())",
                                                         consent: EULAConsent(clientAddress: "nowhere")) } == .EINVAL)
    }

    /// Each user's decisions on a document form a hash chain: a row changed, removed or
    /// slipped in behind GateKit's back (its append-only triggers switched off, as only the
    /// store's owner can) is found, and named.
    @Test func theChainFindsADecisionChangedRemovedOrSlippedIn() throws {
        let v1 = try sha256Hex("v1"), v2 = try sha256Hex("v2")
        for user in ["ann", "bo"].map({ Array($0.utf8) }) {
            try gate.record(.accepted, documentID: "terms", hash: v1, user: user, consent: EULAConsentTests.clickThrough)
            try gate.record(.declined, documentID: "terms", hash: v2, user: user)
            try gate.withdraw(documentID: "terms", user: user)
            try gate.record(.accepted, documentID: "terms", hash: v2, user: user)
        }
        try gate.record(.accepted, documentID: "privacy", hash: v1, user: nil)
        #expect(try gate.chainProblems() == [])
        let links = try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT count(*) FROM eula_chain") }
        #expect(links == 9)

        // The test server's role may switch triggers (and foreign keys) off for its session;
        // on SQLite the triggers are dropped and made again.
        let postgres = TestStores.onPostgres
        func tampering(_ sql: String) throws {
            try gate.store.write { (db) throws(GateKitError) in
                if postgres {
                    try db.execute("SET LOCAL session_replication_role = replica")
                } else {
                    try db.execute("DROP TRIGGER eula_decisions_no_update; DROP TRIGGER eula_decisions_no_delete")
                    try db.execute("DROP TRIGGER eula_chain_no_update; DROP TRIGGER eula_chain_no_delete")
                }
                try db.execute(sql)
                if !postgres { try db.execute(DDL.sqliteAppendOnly("eula_decisions") + DDL.sqliteAppendOnly("eula_chain")) }
            }
        }
        // Ann's first acceptance now says it came from another address.
        let first = try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT min(id) FROM eula_decisions") }
        try tampering("UPDATE eula_decisions SET client_address = '203.0.113.66' WHERE id = \(first)")
        #expect(try gate.chainProblems() == ["eula decision \(first) was changed (it no longer matches its chain link)"])
        try tampering("UPDATE eula_decisions SET client_address = '::ffff:192.0.2.1' WHERE id = \(first)")
        #expect(try gate.chainProblems() == [])
        // Bo's withdrawal is removed, with its link: the chain lost a link.
        try tampering("""
            DELETE FROM eula_chain WHERE decision_id = \(first + 6); DELETE FROM eula_decisions WHERE id = \(first + 6)
            """)
        let removed = try gate.chainProblems()
        #expect(removed.count == 1 && removed[0].contains("lost links 3 to 3"), "\(removed)")
        // A decision slipped in without a link, and a decision removed whose link remains.
        try tampering("""
            INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES ('terms', NULL, '\(v2)', 1, 1);
            DELETE FROM eula_decisions WHERE id = \(first + 1)
            """)
        let problems = try gate.chainProblems()
        #expect(problems.contains { $0.contains("has no chain link") }, "\(problems)")
        #expect(problems.contains("eula decision \(first + 1) was removed (its chain link 2 remains)"), "\(problems)")
    }

    /// Hardening IV, 23: every field a reader of the history relies on is in the chain's link,
    /// each one tested (only the address was; a backdated instant went unnoticed by the tests).
    @Test func everyFieldOfADecisionIsInItsChainLink() throws {
        let v1 = try sha256Hex("v1"), v2 = try sha256Hex("v2")
        // A published text, so the decision records its language (a field of its own).
        try gate.publish(EULAVersion(documentID: "terms", label: "v1", effectiveMilliseconds: 0, graceMilliseconds: 0, defaultLanguage: "en",
                                     texts: [EULAVersion.Text(language: "en", bytes: Array("v1".utf8))]))
        try gate.record(.accepted, documentID: "terms", hash: v1, user: Array("ann".utf8),
                        consent: EULAConsent(method: .clickThrough, clientAddress: "192.0.2.1", userAgent: "agent", locale: "en-US",
                                             metadata: [("k", "v")]))
        let id = try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT max(id) FROM eula_decisions") }
        #expect(try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT count(*) FROM eula_decisions WHERE language = 'en'") } == 1)
        #expect(try gate.chainProblems() == [])
        let postgres = TestStores.onPostgres
        func tampering(_ sql: String) throws {
            try gate.store.write { (db) throws(GateKitError) in
                if postgres { try db.execute("SET LOCAL session_replication_role = replica") }
                else { try db.execute("DROP TRIGGER eula_decisions_no_update; DROP TRIGGER eula_decisions_no_delete") }
                try db.execute(sql)
                if !postgres { try db.execute(DDL.sqliteAppendOnly("eula_decisions")) }
            }
        }
        let bytes = { (hex: String) in postgres ? "decode('\(hex)', 'hex')" : "X'\(hex)'" }
        let edits = ["document_id = 'privacy'", "user_name = \(bytes("626f62"))", "hash = '\(v2)'", "decision = 2", "at_ms = at_ms - 86400000",
                     "method = 4", "client_address = '192.0.2.2'", "user_agent = 'other'", "locale = 'de-DE'",
                     "metadata = '{\"k\":\"w\"}'", "language = 'de'"]
        for edit in edits {
            let original = try gate.store.read { (db) throws(GateKitError) -> [String?] in
                let s = try db.statement("SELECT document_id, \(postgres ? "encode(user_name, 'hex')" : "hex(user_name)"), hash, decision, at_ms, method, client_address, user_agent, locale, metadata, language FROM eula_decisions WHERE id = ?1")
                defer { s.reset() }
                s.bind(1, id)
                _ = try s.step()
                return (0..<11).map { s.text(Int32($0)) }
            }
            try tampering("UPDATE eula_decisions SET \(edit) WHERE id = \(id)")
            #expect(try gate.chainProblems() == ["eula decision \(id) was changed (it no longer matches its chain link)"], "\(edit)")
            let restore = ["document_id", "user_name", "hash", "decision", "at_ms", "method", "client_address", "user_agent", "locale", "metadata", "language"]
                .enumerated().map { (i, column) in
                    guard let value = original[i] else { return "\(column) = NULL" }
                    return column == "user_name" ? "user_name = \(bytes(value))" : "\(column) = '\(value)'"  // no value here holds a quote
                }.joined(separator: ", ")
            try tampering("UPDATE eula_decisions SET \(restore) WHERE id = \(id)")
            #expect(try gate.chainProblems() == [], "restored after \(edit)")
        }
    }

    /// Eight handles record decisions of one user on one document at once: every decision is
    /// kept and the chain stays one line (on PostgreSQL the racing writers meet at the chain's
    /// unique (subject, seq) and retry).
    @Test func writersRacingOnOneChainKeepItWhole() throws {
        let v1 = try sha256Hex("v1")
        let path = folder.file("s.sqlite")
        let gates = try (0..<8).map { _ in EULAGate(store: try TestStores.open(path)) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: gates.count) { worker in
            for i in 0..<25 {
                do {
                    try gates[worker].record(i % 2 == 0 ? .accepted : .declined, documentID: "terms", hash: v1, user: Array("ann".utf8),
                                             consent: EULAConsent(metadata: [("worker", "\(worker)"), ("n", "\(i)")]))
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try gate.history(documentID: "terms", user: .named(Array("ann".utf8))).count == 200)
        #expect(try gate.chainProblems() == [])
        let links = try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT max(seq) FROM eula_chain") }
        #expect(links == 200)
    }

    /// A writer that holds the chain's lock (one queued after losing a race) is never overtaken
    /// by a writer trying alone: a decision recorded meanwhile waits and takes the link after
    /// the holder's. On PostgreSQL the one trying alone would otherwise take that link first,
    /// and a queued writer racing fresh writers could lose every attempt and give up.
    @Test func aWriterHoldingTheChainsLockIsNotOvertaken() throws {
        let v1 = try sha256Hex("v1"), ann = Array("ann".utf8)
        let other = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
        try other.record(.accepted, documentID: "terms", hash: v1, user: ann)
        let subject = try ConsentChain.subject(documentID: "terms", user: ann)
        let held = EULADecision(documentID: "terms", hash: v1, user: ann, kind: .declined,
                                atMilliseconds: Clock.nowMilliseconds(), consent: .none)
        let meanwhile = Mutex<Result<EULADecision, GateKitError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        try gate.store.write(.subjects([subject])) { (db) throws(GateKitError) in
            _ = try db.scalar("SELECT count(*) FROM eula_chain")  // a read: the pipelined lock is now held
            DispatchQueue.global().async {
                let result = Result { () throws(GateKitError) in try other.record(.accepted, documentID: "terms", hash: v1, user: ann) }
                meanwhile.withLock { $0 = result }
                done.signal()
            }
            usleep(400_000)  // the other writer tries its link while this one holds the lock
            try ConsentChain.insert(held, subject: subject, db)
        }
        done.wait()
        #expect(try meanwhile.withLock { $0 }?.get().kind == .accepted)
        let kinds = try gate.store.integers("SELECT d.decision FROM eula_chain c JOIN eula_decisions d ON d.id = c.decision_id ORDER BY c.seq")
        let (accepted, declined) = (EULADecision.Kind.accepted.storedDecision, EULADecision.Kind.declined.storedDecision)
        #expect(kinds == [accepted, declined, accepted])
        #expect(try gate.chainProblems() == [])
    }

    /// Migration 9 from the previous version: decisions recorded before it keep their meaning
    /// (no consent, no withdrawal), and the upgraded store takes the new ones.
    @Test func aStoreOfTheReleasedEULASchemaMovesForward() throws {
        let (path, appID) = TestStores.previous(in: folder, "eula-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(8)))
        let v1 = try sha256Hex("v1")
        do {
            let old = try Store(schema: previous, path: path, appID: appID)
            try old.write { (db) throws(GateKitError) in
                try db.execute("INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES ('terms', NULL, '\(v1)', 1, 5)")
            }
        }
        let gate = EULAGate(store: try Store(schema: .gatekit, path: path, appID: appID))
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        #expect(try gate.history(documentID: "terms", user: .defaultUser)
                == [EULADecision(documentID: "terms", hash: v1, user: nil, kind: .accepted, atMilliseconds: 5)])
        try gate.withdraw(documentID: "terms", user: nil, consent: EULAConsent(method: .admin))
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }
}
