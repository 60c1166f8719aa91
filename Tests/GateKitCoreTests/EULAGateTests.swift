import Testing
@testable import GateKitEULA
@testable import GateKitLedger
@testable import GateKitPermissions
@testable import GateKitSupport

@Suite struct EULAGateTests {
    let folder = TemporaryFolder()
    let gate: EULAGate

    init() throws {
        gate = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
    }

    @Test func presentsUntilThisExactTextIsAccepted() throws {
        let v1 = try sha256Hex("terms v1"), v2 = try sha256Hex("terms v2")
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        #expect(try gate.shouldPresent(documentID: "terms", hash: v2, user: nil))       // the text changed
        #expect(try gate.shouldPresent(documentID: "privacy", hash: v1, user: nil))     // another document
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: Array("bob".utf8)))  // another user
    }

    @Test func theMostRecentDecisionDecides() throws {
        let v1 = try sha256Hex("v1")
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        try gate.record(.declined, documentID: "terms", hash: v1, user: nil)
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
    }

    @Test func minorRevisionsAreCoveredTransitively() throws {
        let v1 = try sha256Hex("v1"), v1a = try sha256Hex("v1 typo fixed"), v1b = try sha256Hex("v1 typo fixed twice")
        let v2 = try sha256Hex("v2")
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        try gate.markMinorRevision(documentID: "terms", from: v1, to: v1a)
        try gate.markMinorRevision(documentID: "terms", from: v1a, to: v1b)
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1a, user: nil))
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1b, user: nil))
        #expect(try gate.shouldPresent(documentID: "terms", hash: v2, user: nil))
        // A later decline of the covered text presents it again.
        try gate.record(.declined, documentID: "terms", hash: v1a, user: nil)
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1b, user: nil))
        // Minor revisions are per document, and a cycle does not hang the query.
        #expect(try gate.shouldPresent(documentID: "other", hash: v1a, user: nil))
        try gate.markMinorRevision(documentID: "terms", from: v1b, to: v1)
        #expect(try gate.shouldPresent(documentID: "terms", hash: v1, user: nil))
    }

    @Test func acceptingAnotherTextThanTheCurrentFileStillPresentsTheFile() throws {
        let path = folder.file("EULA.txt")
        Files.write(path, Array("current text".utf8))
        try gate.record(.accepted, documentID: "terms", hash: try sha256Hex("the text that was shown"), user: nil)
        #expect(try gate.shouldPresent(documentID: "terms", path: path, user: nil))
        try gate.record(.accepted, documentID: "terms", hash: try DocumentHash.of(file: path), user: nil)
        #expect(try !gate.shouldPresent(documentID: "terms", path: path, user: nil))
    }

    @Test func aMissingFileIsAnErrorNotADecision() {
        do {
            _ = try gate.shouldPresent(documentID: "terms", path: folder.file("absent"), user: nil)
            Issue.record("a missing EULA file gave an answer")
        } catch {
            #expect(error.code == .ENOTFOUND)
        }
    }

    @Test func historyIsOrderedAndRecordsWhoWhatWhen() throws {
        let v1 = try sha256Hex("v1")
        let before = Clock.nowMilliseconds()
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        try gate.record(.declined, documentID: "privacy", hash: v1, user: [0xFF, 0x61])
        try gate.record(.declined, documentID: "terms", hash: v1, user: nil)
        let mine = try gate.history(documentID: nil, user: .defaultUser)
        #expect(mine.map(\.kind) == [.accepted, .declined])
        #expect(mine.allSatisfy { $0.atMilliseconds >= before && $0.user == nil && $0.hash == v1 })
        let theirs = try gate.history(documentID: "privacy", user: .named([0xFF, 0x61]))
        #expect(theirs.count == 1 && theirs[0].user == [0xFF, 0x61])
        #expect(try gate.history(documentID: nil, user: .everyone).count == 3)

        let json = try JSONParser.parse(Array(EULAGate.historyJSON(theirs).utf8))
        #expect(json["version"] == .number(1))
        guard case let .array(entries)? = json["decisions"], let entry = entries.first else {
            Issue.record("history JSON has no non-empty \"decisions\" list")
            return
        }
        #expect(entry["user_hex"]?.stringValue == "ff61")
        #expect(entry["decision"]?.stringValue == "declined")
        #expect(entry["user"]?.stringValue == "\u{FFFD}a")
        #expect(Timestamp.parseRFC3339(Array((entry["at"]?.stringValue ?? "").utf8)) == theirs[0].atMilliseconds)
    }

    @Test func rejectsInvalidArguments() throws {
        let v1 = try sha256Hex("v1")
        let gate = self.gate
        let invalid: [() throws -> Void] = [
            { _ = try gate.shouldPresent(documentID: "", hash: v1, user: nil) },
            { try gate.record(.accepted, documentID: "t", hash: "g" + String(v1.dropFirst()), user: nil) },
            { try gate.record(.accepted, documentID: "t", hash: String(v1.dropLast()), user: nil) },
            { try gate.record(.accepted, documentID: "t", hash: v1 + "0", user: nil) },
            { try gate.record(.accepted, documentID: "t", hash: v1, user: []) },
            { try gate.markMinorRevision(documentID: "t", from: v1, to: v1) },
        ]
        for call in invalid {
            #expect(performing: call, throws: { ($0 as? GateKitError)?.code == .EINVAL })
        }
        #expect(try gate.history(documentID: nil, user: .everyone).isEmpty)
    }

    @Test func upperCaseHashesAreAcceptedAndStoredLowerCase() throws {
        let v1 = try sha256Hex("v1")
        try gate.record(.accepted, documentID: "t", hash: v1.uppercased(), user: nil)
        #expect(try !gate.shouldPresent(documentID: "t", hash: v1, user: nil))
        #expect(try !gate.shouldPresent(documentID: "t", hash: v1.uppercased(), user: nil))
        #expect(try gate.history(documentID: "t", user: .defaultUser).map(\.hash) == [v1])
    }
}
