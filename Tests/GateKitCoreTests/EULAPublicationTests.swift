import Glibc
import Testing
@testable import GateKitEULA
@testable import GateKitSchema
@testable import GateKitStore
@testable import GateKitSupport

/// EULA II: published versions with translations and schedules, and the consent export that
/// proves the history — on SQLite, and on PostgreSQL when `make test` runs the contract suites
/// there.
@Suite struct EULAPublicationTests {
    let folder = TemporaryFolder()
    let gate: EULAGate
    static let ann = Array("ann".utf8)

    init() throws {
        gate = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
    }

    static func version(_ label: String, effective: Int64? = nil, grace: Int64 = 0, _ texts: [(String, String)],
                        defaultLanguage: String = "en") -> EULAVersion {
        EULAVersion(documentID: "terms", label: label, effectiveMilliseconds: effective, graceMilliseconds: grace,
                    defaultLanguage: defaultLanguage, texts: texts.map { EULAVersion.Text(language: $0.0, bytes: Array($0.1.utf8)) })
    }

    @Test func aUserIsAskedInTheirLanguageAndAnyTranslationAcceptsTheVersion() throws {
        try gate.publish(Self.version("2026-12", [("en", "Terms"), ("de", "Bedingungen"), ("de-AT", "Bedingungen (AT)"), ("pt-BR", "Termos")]))
        func shown(_ language: String?) throws -> String {
            try gate.presentation(documentID: "terms", user: Self.ann, language: language, at: nil).language
        }
        #expect(try shown("de-AT") == "de-AT")
        #expect(try shown("DE-at") == "de-AT")           // tags are case-insensitive
        #expect(try shown("de-CH") == "de")              // de-CH → de
        #expect(try shown("de-Latn-CH-u-co-phonebk") == "de")
        #expect(try shown("pt") == "en")                 // pt-BR is not pt: the default
        #expect(try shown("fr") == "en")
        #expect(try shown(nil) == "en")
        #expect(failure { try shown("not a tag") } == .EINVAL)

        let german = try gate.presentation(documentID: "terms", user: Self.ann, language: "de-CH", at: nil)
        let bedingungen = try sha256Hex("Bedingungen")
        #expect(german.status == .required && german.label == "2026-12" && german.hash == bedingungen)
        #expect(try gate.text(documentID: "terms", hash: german.hash) == Array("Bedingungen".utf8))
        let decision = try gate.record(.accepted, documentID: "terms", hash: german.hash, user: Self.ann)
        #expect(decision.language == "de")
        // Accepting the German text accepts the version: in every language, and by any text's hash.
        for language in ["en", "pt-BR", "de-AT"] {
            #expect(try gate.presentation(documentID: "terms", user: Self.ann, language: language, at: nil).status == .accepted)
        }
        #expect(try !gate.shouldPresent(documentID: "terms", hash: try sha256Hex("Terms"), user: Self.ann))
        #expect(try gate.shouldPresent(documentID: "terms", hash: try sha256Hex("Terms"), user: nil))
        // The history says which text: its hash and its language, and the chain covers it.
        #expect(try gate.history(documentID: "terms", user: .named(Self.ann)).map(\.language) == ["de"])
        #expect(EULAGate.historyJSON([decision]).contains("\"language\":\"de\""))
        #expect(try gate.chainProblems() == [])
        // Withdrawn: presented again, whatever the language.
        try gate.withdraw(documentID: "terms", user: Self.ann)
        #expect(try gate.presentation(documentID: "terms", user: Self.ann, language: "en", at: nil).status == .required)
        #expect(try gate.shouldPresent(documentID: "terms", hash: german.hash, user: Self.ann))
    }

    /// A version scheduled ahead takes effect at its exact millisecond; during its grace period
    /// the previous acceptance still counts; as-of questions see only decisions made by then.
    @Test func aScheduleCrossesAtTheExactMillisecond() throws {
        let now = Clock.nowMilliseconds()
        let effective = now + 3_600_000, grace: Int64 = 86_400_000
        try gate.publish(Self.version("v1", [("en", "one")]))
        try gate.publish(Self.version("v2", effective: effective, grace: grace, [("en", "two"), ("fr", "deux")]))
        let accepted = try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("one"), user: Self.ann)
        func at(_ t: Int64, _ user: [UInt8]? = Self.ann) throws -> EULAPresentation {
            try gate.presentation(documentID: "terms", user: user, language: "fr", at: t)
        }
        let before = try at(effective - 1)
        #expect(before.label == "v1" && before.status == .accepted && before.nextEffectiveMilliseconds == effective)
        let crossing = try at(effective)
        #expect(crossing.label == "v2" && crossing.status == .inGrace && crossing.language == "fr")
        #expect(crossing.requiredAtMilliseconds == effective + grace && crossing.nextEffectiveMilliseconds == nil)
        #expect(try at(effective + grace - 1).status == .inGrace)
        #expect(try at(effective + grace).status == .required)
        // Someone who never accepted v1 has no grace.
        #expect(try at(effective, Array("bo".utf8)).status == .required)
        // As of the millisecond before the acceptance, v1 was not accepted yet.
        #expect(try at(accepted.atMilliseconds - 1).status == .required)
        #expect(try at(accepted.atMilliseconds).status == .accepted)
        // Before any version: nothing is in effect.
        #expect(failure { try at(1) } == .ENOTFOUND)
        // Accepting v2 early answers "accepted" from its first millisecond.
        try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("deux"), user: Self.ann)
        #expect(try at(effective).status == .accepted)
        #expect(try gate.versions(documentID: "terms").map(\.label) == ["v1", "v2"])
    }

    /// A version whose text is a declared minor revision of the previous version's: the old
    /// acceptance covers it (the recursive path), until withdrawn.
    @Test func aMinorRevisionCarriesAcceptanceIntoTheNextVersion() throws {
        try gate.publish(Self.version("v1", effective: 1_000, [("en", "one")]))
        try gate.publish(Self.version("v1.1", effective: 2_000, [("en", "one, typo fixed"), ("de", "eins")]))
        try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("one"), user: Self.ann)
        #expect(try gate.presentation(documentID: "terms", user: Self.ann, language: "de", at: nil).status == .required)
        try gate.markMinorRevision(documentID: "terms", from: try sha256Hex("one"), to: try sha256Hex("one, typo fixed"))
        #expect(try gate.presentation(documentID: "terms", user: Self.ann, language: "de", at: nil).status == .accepted)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: try sha256Hex("eins"), user: Self.ann))
        try gate.withdraw(documentID: "terms", user: Self.ann)
        #expect(try gate.presentation(documentID: "terms", user: Self.ann, language: "de", at: nil).status == .required)
    }

    @Test func aPublishedVersionIsNeverEdited() throws {
        let v1 = Self.version("v1", effective: 1_000, [("en", "one"), ("de", "eins")])
        try gate.publish(v1)
        try gate.publish(v1)  // the same again: nothing to do
        #expect(failure { try gate.publish(Self.version("v1", effective: 1_000, [("en", "one, edited")])) } == .EEULA_VERSION_CONFLICT)
        #expect(failure { try gate.publish(Self.version("v1", effective: 2_000, [("en", "one"), ("de", "eins")])) } == .EEULA_VERSION_CONFLICT)
        #expect(failure { try gate.publish(Self.version("v2", [("en", "one")])) } == .EEULA_VERSION_CONFLICT)
        let refused: [(EULAVersion, GateKitError.Code)] = [
            (Self.version("", [("en", "x")]), .EINVAL),
            (Self.version(String(repeating: "l", count: 129), [("en", "x")]), .EINVAL),
            (Self.version("v", [("english", "x")]), .EINVAL),
            (Self.version("v", [("en", "x"), ("EN", "y")]), .EINVAL),
            (Self.version("v", [("en", "x"), ("de", "x")]), .EINVAL),
            (Self.version("v", [("de", "x")]), .EINVAL),               // no text in the default language
            (Self.version("v", grace: -1, [("en", "x")]), .EINVAL),
            (Self.version("v", effective: -5, [("en", "x")]), .EINVAL),
            (Self.version("v", []), .EINVAL),
            (Self.version("v", (0...EULAVersion.maximumTexts).map { ("x\($0)", "text \($0)") }), .ETOOLARGE),
        ]
        for (version, code) in refused { #expect(failure { try gate.publish(version) } == code, "\(version.label)") }
        #expect(try gate.versions(documentID: "terms").count == 1)
        // The tables refuse edits like the history.
        #expect(failure { try gate.store.write { (db) throws(GateKitError) in try db.execute("UPDATE eula_versions SET grace_ms = 5") } } != nil)
        #expect(failure { try gate.store.write { (db) throws(GateKitError) in try db.execute("DELETE FROM eula_texts") } } != nil)
    }

    /// Hardening IV, 18: a publication edited in the file (its grace, effect, language or a
    /// text's hash), a version removed, or a text's bytes changed: the store check names it, and
    /// a text read back is checked against its hash.
    @Test func publicationsAndTextsCarryTamperEvidence() throws {
        try gate.publish(Self.version("v1", effective: 1_000, [("en", "one"), ("de", "eins")]))
        try gate.publish(Self.version("v2", effective: 2_000, grace: 86_400_000, [("en", "two")]))
        #expect(try gate.chainProblems() == [])
        let postgres = TestStores.onPostgres
        func tampering(_ sql: String) throws {
            try gate.store.write { (db) throws(GateKitError) in
                if postgres { try db.execute("SET LOCAL session_replication_role = replica") }
                else {
                    try db.execute("DROP TRIGGER eula_versions_no_update; DROP TRIGGER eula_versions_no_delete; "
                                   + "DROP TRIGGER eula_texts_no_update; DROP TRIGGER eula_texts_no_delete")
                }
                try db.execute(sql)
                if !postgres { try db.execute(DDL.sqliteAppendOnly("eula_versions") + DDL.sqliteAppendOnly("eula_texts")) }
            }
        }
        for (edit, undo) in [("grace_ms = 315360000000", "grace_ms = 86400000"), ("effective_ms = 1500", "effective_ms = 2000"),
                             ("default_language = 'de'", "default_language = 'en'"), ("published_ms = 7", nil)] {
            let before = try gate.store.read { (db) throws(GateKitError) in try db.scalar("SELECT published_ms FROM eula_versions WHERE label = 'v2'") }
            try tampering("UPDATE eula_versions SET \(edit) WHERE label = 'v2'")
            let problems = try gate.chainProblems()
            #expect(problems.count == 1 && problems[0].contains("version \"v2\" of \"terms\" does not match its seal"), "\(edit): \(problems)")
            try tampering("UPDATE eula_versions SET \(undo ?? "published_ms = \(before)") WHERE label = 'v2'")
            #expect(try gate.chainProblems() == [], "restored after \(edit)")
        }
        let eins = try sha256Hex("eins")
        try tampering("UPDATE eula_texts SET language = 'fr' WHERE hash = '\(eins)'")
        #expect(try gate.chainProblems().contains { $0.contains("version \"v1\"") })
        try tampering("UPDATE eula_texts SET language = 'de' WHERE hash = '\(eins)'")
        try tampering("UPDATE eula_texts SET body = \(postgres ? "'\\x65696e7a'::bytea" : "X'65696e7a'") WHERE hash = '\(eins)'")
        #expect(failure { try gate.text(documentID: "terms", hash: eins) } == .ECORRUPT)
        #expect(try gate.chainProblems().contains { $0.contains("is not that text") })
        #expect(try gate.text(documentID: "terms", hash: try sha256Hex("one")) == Array("one".utf8))
        try tampering("UPDATE eula_texts SET body = \(postgres ? "'\\x65696e73'::bytea" : "X'65696e73'") WHERE hash = '\(eins)'")
        #expect(try gate.chainProblems() == [])
    }

    /// An export with texts carries each text's version seal (format 2): an edit of a
    /// publication made after it — even one that wrote the seals again, so `store check` passes —
    /// is found by verifying the earlier export.
    @Test func anEarlierExportFindsAPublicationEditedAfterIt() throws {
        try gate.publish(Self.version("v1", effective: 1_000, grace: 86_400_000, [("en", "one")]))
        try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("one"), user: Self.ann)
        let earlier = write(try exportText(EULAExport.Options(includeTexts: true)), "earlier.jsonl")
        #expect(String(decoding: Array(Files.read(earlier) ?? []), as: UTF8.self).contains(#""version":"gatekit-eula-export/2""#))
        try gate.verifyExport(path: earlier)
        let postgres = TestStores.onPostgres
        try gate.store.write { (db) throws(GateKitError) in
            if postgres { try db.execute("SET LOCAL session_replication_role = replica") }
            else { try db.execute("DROP TRIGGER eula_versions_no_update; DROP TRIGGER eula_version_seals_no_update") }
            try db.execute("UPDATE eula_versions SET grace_ms = 315360000000")
            // The seals written again to match, as someone with the file could.
            let row = try PublicationSeal.rows(db, documentID: "terms")[0]
            try db.statement("UPDATE eula_version_seals SET seal = ?1 WHERE version_id = ?2")
                .bind(1, text: try PublicationSeal.seal(after: nil, row)).bind(2, row.id).run()
            if !postgres {
                try db.execute("CREATE TRIGGER eula_versions_no_update BEFORE UPDATE ON eula_versions BEGIN SELECT RAISE(ABORT, 'x'); END;")
                try db.execute("CREATE TRIGGER eula_version_seals_no_update BEFORE UPDATE ON eula_version_seals BEGIN SELECT RAISE(ABORT, 'x'); END;")
            }
        }
        #expect(try gate.chainProblems() == [])  // consistent in the store
        let found = failure { try gate.verifyExport(path: earlier) }
        #expect(found == .EEULA_EXPORT_ALTERED)
    }

    func exportText(_ options: EULAExport.Options) throws -> [UInt8] {
        var out: [UInt8] = []
        try gate.export(options) { (chunk) throws(GateKitError) in out += chunk }
        return out
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = folder.file(name)
        let f = fopen(path, "wb")
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, f) }
        fclose(f)
        return path
    }

    func recordHistory() throws {
        try gate.publish(Self.version("v1", [("en", "one"), ("de", "eins")]))
        try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("eins"), user: Self.ann,
                        consent: EULAConsent(method: .clickThrough, clientAddress: "192.0.2.7", userAgent: "Agent, \"quoted\"\nline",
                                             locale: "de-AT", metadata: [("checkbox", "news, yes")]))
        try gate.record(.declined, documentID: "terms", hash: try sha256Hex("unpublished"), user: [0xFF, 0x00, 0x41])
        try gate.withdraw(documentID: "terms", user: Self.ann, consent: EULAConsent(method: .admin))
        try gate.record(.accepted, documentID: "privacy", hash: try sha256Hex("p"), user: nil)
    }

    @Test func anExportMatchesTheStoreInBothFormats() throws {
        try recordHistory()
        for format in [EULAExport.Format.jsonLines, .csv] {
            let everything = try exportText(EULAExport.Options(format: format, includeTexts: true))
            #expect(try gate.verifyExport(path: write(everything, "all")) == 4)
            let anns = try exportText(EULAExport.Options(format: format, documentID: "terms", user: .named(Self.ann)))
            #expect(try gate.verifyExport(path: write(anns, "ann")) == 2)
            let odd = try exportText(EULAExport.Options(format: format, user: .named([0xFF, 0x00, 0x41])))
            #expect(try gate.verifyExport(path: write(odd, "odd")) == 1)
            let defaultUser = try exportText(EULAExport.Options(format: format, user: .defaultUser))
            #expect(try gate.verifyExport(path: write(defaultUser, "default")) == 1)
        }
        let lines = String(decoding: try exportText(EULAExport.Options(includeTexts: true)), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 7)  // header, text, 4 decisions, end
        let decision = try JSONParser.parse(Array(lines[2].utf8))
        #expect(decision["language"] == .string("de") && decision["version"] == .string("v1") && decision["method"] == .string("click-through"))
        #expect(decision["metadata"] == .object([("checkbox", .string("news, yes"))]) && decision["chain_seq"] == .number("1"))
        let text = try JSONParser.parse(Array(lines[1].utf8))
        #expect(text["text"]?.stringValue.flatMap { Base64.decode(Array($0.utf8), alphabet: .standard) } == Array("eins".utf8))
        let csv = String(decoding: try exportText(EULAExport.Options(format: .csv)), as: UTF8.self)
        #expect(csv.hasPrefix(EULAExport.columns.joined(separator: ",") + "\r\n"))
        #expect(csv.contains("\"Agent, \"\"quoted\"\"\nline\""))
    }

    @Test func anEditedExportOrAnEditedStoreIsFound() throws {
        try recordHistory()
        for format in [EULAExport.Format.jsonLines, .csv] {
            let good = try exportText(EULAExport.Options(format: format, includeTexts: true))
            let text = String(decoding: good, as: UTF8.self)
            func verdict(_ edited: String) -> String? {
                do {
                    try gate.verifyExport(path: write(Array(edited.utf8), "edited"))
                    return nil
                } catch {
                    return error.code == .EEULA_EXPORT_ALTERED ? error.message : "\(error)"
                }
            }
            #expect(verdict(text) == nil)
            let newline = format == .csv ? "\r\n" : "\n"
            var records = text.components(separatedByNewline: newline)
            #expect(verdict(text.replacingFirst("192.0.2.7", "192.0.2.8"))?.contains("client_address") == true)
            #expect(verdict(text.replacingFirst("click-through", "admin"))?.contains("method") == true)
            let at = records.firstIndex { $0.contains("declined") } ?? 0
            let removed = records.remove(at: at)
            #expect(verdict(records.joined(separator: newline))?.contains("removed, added or moved") == true)
            records.insert(removed, at: at)
            #expect(verdict(records.joined(separator: newline)) == nil)
            #expect(verdict(records.dropLast(2).joined(separator: newline) + newline) != nil)      // cut short
            #expect(verdict(text + text) != nil)                                                    // more after the end
            #expect(verdict(text.replacingFirst(Base64.encode(Array("eins".utf8)), Base64.encode(Array("zwei".utf8))))?.contains("text") == true)
            #expect(verdict("") != nil && verdict("not an export\n") != nil)
            // Decisions cut off the end with the header and the end record edited to match:
            // every record is the store's, but the store never wrote this file.
            let cut = records.filter { !$0.contains("privacy") }.map { line in
                line.contains("\"export\"") || line.hasPrefix("export,") || line.contains("\"end\"") || line.hasPrefix("end,")
                    ? line.replacingFirst(format == .csv ? "export,4," : "\"id\":4", format == .csv ? "export,3," : "\"id\":3")
                        .replacingFirst(format == .csv ? "end,4," : "\"id\":4}", format == .csv ? "end,3," : "\"id\":3}")
                    : line
            }
            #expect(verdict(cut.joined(separator: newline))?.contains("never wrote this file") == true, "\(cut)")
            // Its instant edited: the same.
            let year = text.firstRange(of: "\"at\":\"").map { text[$0.upperBound...].prefix(4) } ?? ""
            if format == .jsonLines {
                #expect(verdict(text.replacingFirst("\"at\":\"\(year)", "\"at\":\"2019"))?.contains("never wrote this file") == true)
            }
        }
        // The store's history rewritten after an export (its triggers off, as only its owner
        // can, and the chain recomputed would not help): the old export no longer matches.
        let export = write(try exportText(EULAExport.Options()), "before")
        try gate.store.write { (db) throws(GateKitError) in
            if TestStores.onPostgres {
                try db.execute("SET LOCAL session_replication_role = replica")
            } else {
                try db.execute("DROP TRIGGER eula_decisions_no_update")
            }
            try db.execute("UPDATE eula_decisions SET at_ms = at_ms - 1000 WHERE document_id = 'privacy'")
        }
        #expect(failure { try gate.verifyExport(path: export) } == .EEULA_EXPORT_ALTERED)
    }

    /// Pages of a thousand rows, one snapshot: a decision recorded during the export is not in
    /// it, and the verification of many pages streams.
    @Test func anExportOfManyPagesStreamsAndVerifies() throws {
        let v = try sha256Hex("v")
        try gate.store.write { (db) throws(GateKitError) in
            for i in 0..<2_500 {
                // One user with more than a page of decisions (their pages come by their index).
                let user = i % 2 == 0 ? "heavy" : "user\(i % 700)"
                let d = EULADecision(documentID: "terms", hash: v, user: Array(user.utf8), kind: i % 3 == 0 ? .declined : .accepted,
                                     atMilliseconds: 1_700_000_000_000 + Int64(i))
                try ConsentChain.insert(d, subject: try ConsentChain.subject(documentID: "terms", user: d.user), db)
            }
        }
        var chunks = 0
        var bytes: [UInt8] = []
        var recordedDuring = false
        let count = try gate.export(EULAExport.Options(format: .csv)) { (chunk) throws(GateKitError) in
            chunks += 1
            bytes += chunk
            if !recordedDuring {
                recordedDuring = true
                // Another handle writes while the export is open.
                do {
                    try EULAGate(store: try TestStores.open(folder.file("s.sqlite"))).record(.accepted, documentID: "terms", hash: v, user: nil)
                } catch {
                    throw GateKitError(.EINTERNAL, "\(error)")
                }
            }
        }
        #expect(count == 2_500 && chunks > 1)
        #expect(try gate.verifyExport(path: write(bytes, "many.csv")) == 2_500)
        let heavy = try exportText(EULAExport.Options(documentID: "terms", user: .named(Array("heavy".utf8))))
        #expect(try gate.verifyExport(path: write(heavy, "heavy.jsonl")) == 1_250)
        #expect(try gate.history(documentID: "terms", user: .everyone).count == 2_501)
        #expect(try gate.chainProblems() == [])
    }

    /// Migration 10 from the previous version: decisions and chains recorded before it keep
    /// their links (no language), and the upgraded store publishes, answers and exports.
    @Test func aStoreOfTheConsentSchemaMovesForward() throws {
        let (path, appID) = TestStores.previous(in: folder, "eula-versions-previous")
        let previous = StoreSchema(Array(StoreSchema.gatekit.migrations.prefix(9)))
        let one = try sha256Hex("one")
        do {
            let old = EULAGate(store: try Store(schema: previous, path: path, appID: appID))
            try old.store.write { (db) throws(GateKitError) in
                // The released statement of migration 9 (no language column yet).
                let d = EULADecision(documentID: "terms", hash: one, user: nil, kind: .accepted, atMilliseconds: 5,
                                     consent: EULAConsent(method: .api))
                let s = try db.statement("""
                    INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms, method) VALUES ('terms', NULL, ?1, 1, 5, 4) RETURNING id
                    """)
                s.bind(1, text: one)
                guard try s.step() else { throw .internalError("not inserted") }
                let id = s.int64(0)
                s.reset()
                let link = try db.statement("INSERT INTO eula_chain(decision_id, subject, seq, chain) VALUES (?3, ?1, 1, ?2)")
                try link.bind(1, text: try ConsentChain.subject(documentID: "terms", user: nil)).bind(2, text: try ConsentChain.link(after: nil, d))
                    .bind(3, id).run()
            }
        }
        let gate = EULAGate(store: try Store(schema: .gatekit, path: path, appID: appID))
        #expect(try gate.chainProblems() == [])
        try gate.publish(Self.version("v1", effective: 1, [("en", "one")]))
        #expect(try gate.presentation(documentID: "terms", user: nil, language: "en", at: nil).status == .accepted)
        try gate.record(.declined, documentID: "terms", hash: one, user: nil)
        #expect(try gate.history(documentID: "terms", user: .defaultUser).map(\.language) == [nil, "en"])
        #expect(try gate.chainProblems() == [])
        var bytes: [UInt8] = []
        try gate.export(EULAExport.Options(documentID: "terms")) { (chunk) throws(GateKitError) in bytes += chunk }
        #expect(try gate.verifyExport(path: write(bytes, "upgraded")) == 2)
        #expect(failure { try Store(schema: previous, path: path, appID: appID) } == .ENEWER)
    }
}

private extension String {
    func components(separatedByNewline newline: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: newline) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }

    func replacingFirst(_ target: String, _ replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
