import CSQLite
import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitEULA
@testable import GateKitPermissions
@testable import GateKitStore
@testable import GateKitSupport

@Suite struct StoreTests {
    /// The statement cache hashes a sample of each text (`StatementText`: its length, first 16
    /// and last 32 bytes): texts alike in all three, hashed alike, still run their own SQL.
    @Test func statementsAlikeInLengthStartAndEndAreEachTheirOwn() throws {
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("texts.sqlite"))
        let texts = (1...3).map { "SELECT 0          + \($0) + 0 AS the_answer_of_one_sampled_statement" }
        #expect(Set(texts.map { StatementText(sql: $0).hashValue }).count == 1)
        for _ in 0..<2 {
            #expect(try texts.map { (text) throws -> Int64 in try store.read { (db) throws(GateKitError) -> Int64 in try db.scalar(text) } } == [1, 2, 3])
        }
    }

    @Test func createsAVersionedWALStore() throws {
        let folder = TemporaryFolder()
        let store = try Store(schema: .gatekit, path: folder.file("a/b/s.sqlite"), appID: nil)  // parents created
        let (mode, version, appID) = try store.read { (db) throws(GateKitError) in
            let s = try db.statement("PRAGMA journal_mode")
            _ = try s.step()
            return (s.text(0), try db.scalar("PRAGMA user_version"), try db.scalar("PRAGMA application_id"))
        }
        #expect(mode == "wal")
        #expect(version == StoreSchema.gatekit.currentVersion)
        #expect(appID == StoreFormat.applicationID)
        #expect(try store.integrityReport().isEmpty)
    }

    @Test func reopensAndKeepsData() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.sqlite")
        let hash = try sha256Hex("v1")
        do {
            let store = try Store(schema: .gatekit, path: path, appID: nil)
            try EULAGate(store: store).record(.accepted, documentID: "terms", hash: hash, user: nil)
        }
        let again = try Store(schema: .gatekit, path: path, appID: nil)
        #expect(try EULAGate(store: again).shouldPresent(documentID: "terms", hash: hash, user: nil) == false)
    }

    private func refusal(_ path: String) -> GateKitError.Code? {
        do {
            _ = try Store(schema: .gatekit, path: path, appID: nil)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func refusesAForeignFileAndLeavesItUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.file("notes.txt")
        let bytes = Array("these are my notes, not a database\n".utf8)
        Files.write(path, bytes)
        #expect(refusal(path) == .ENOTSTORE)
        #expect(Files.read(path) == bytes)
    }

    @Test func refusesAForeignSQLiteDatabaseAndLeavesItUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.file("other.sqlite")
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nil, nil, nil)
        sqlite3_close(db)
        let before = Files.read(path)
        #expect(refusal(path) == .ENOTSTORE)
        #expect(Files.read(path) == before)
    }

    /// A GateKit store whose schema version was then set to `version` behind its back.
    func store(withSchemaVersion version: Int64, in folder: TemporaryFolder) throws -> String {
        let path = folder.file("s.sqlite")
        do { _ = try Store(schema: .gatekit, path: path, appID: nil) }
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "PRAGMA user_version=\(version)", nil, nil, nil)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close(db)
        return path
    }

    @Test func refusesANewerSchemaAndLeavesItUntouched() throws {
        let folder = TemporaryFolder()
        let path = try store(withSchemaVersion: StoreSchema.gatekit.currentVersion + 1, in: folder)
        let before = Files.read(path)
        #expect(refusal(path) == .ENEWER)
        #expect(Files.read(path) == before)
    }

    @Test func refusesANegativeSchemaVersionAndLeavesItUntouched() throws {
        // Found by the store-file fuzz smoke: user_version is signed, and a negative one indexed
        // the migrations out of range (a trap inside the host).
        let folder = TemporaryFolder()
        let path = try store(withSchemaVersion: -1, in: folder)
        let before = Files.read(path)
        #expect(refusal(path) == .ECORRUPT)
        #expect(Files.read(path) == before)
    }

    @Test func refusesACorruptStoreAndLeavesItUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.sqlite")
        do {
            let store = try Store(schema: .gatekit, path: path, appID: nil)
            let gate = EULAGate(store: store)
            for i in 0..<400 { try gate.record(.accepted, documentID: "doc-\(i)", hash: try sha256Hex("\(i)"), user: nil) }
        }
        // Fold the WAL into the file, then damage the b-tree pages (not the header).
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", nil, nil, nil)
        sqlite3_close(db)
        guard var bytes = Files.read(path), bytes.count > 8192 else {
            Issue.record("store too small to corrupt")
            return
        }
        for i in stride(from: 4096 + 8, to: bytes.count, by: 97) { bytes[i] ^= 0xA5 }
        Files.write(path, bytes)
        let code = refusal(path)
        #expect(code == .ECORRUPT || code == .ENOTSTORE, "got \(String(describing: code))")
        #expect(Files.read(path) == bytes)
    }

    @Test func refusesATruncatedHeader() {
        let folder = TemporaryFolder()
        let path = folder.file("s.sqlite")
        Files.write(path, Array("SQLite format 3\0".utf8) + [1, 2, 3])
        #expect(refusal(path) == .ECORRUPT)
    }

    @Test func refusesAFolderAsPath() {
        let folder = TemporaryFolder()
        #expect(refusal(folder.path) == .EINVAL)
    }

    @Test func validatesAppIDs() {
        for good in ["com.example.app", "a", "A-b_c.9"] {
            #expect(throws: Never.self) { try StorePath.validateAppID(good) }
        }
        for bad in ["", "..", "a/b", "a..b", ".", "a b", "é", String(repeating: "a", count: 129)] {
            #expect(throws: GateKitError.self, "accepted '\(bad)'") { try StorePath.validateAppID(bad) }
        }
    }

    @Test func resolvesTheDefaultPath() throws {
        func env(_ values: [String: String]) -> (String) -> [UInt8]? { { values[$0].map { Array($0.utf8) } } }
        #expect(try StorePath.resolve(path: nil, appID: "app", environment: env(["GATEKIT_STORE": "/x/s.db", "HOME": "/h"])) == "/x/s.db")
        #expect(try StorePath.resolve(path: nil, appID: "app", environment: env(["XDG_STATE_HOME": "/state", "HOME": "/h"])) == "/state/gatekit/app.sqlite")
        #expect(try StorePath.resolve(path: nil, appID: "app", environment: env(["XDG_STATE_HOME": "", "HOME": "/h"])) == "/h/.local/state/gatekit/app.sqlite")
        #expect(try StorePath.resolve(path: "/p.sqlite", appID: nil, environment: env([:])) == "/p.sqlite")
        #expect(throws: GateKitError.self) { try StorePath.resolve(path: nil, appID: nil, environment: env(["HOME": "/h"])) }
        #expect(throws: GateKitError.self) { try StorePath.resolve(path: nil, appID: "app", environment: env([:])) }
        #expect(throws: GateKitError.self) { try StorePath.resolve(path: "/p", appID: "../evil", environment: env([:])) }
    }

    @Test func aSetVariableIsUsedOrAnErrorNeverAnotherFile() {
        func env(_ values: [String: [UInt8]]) -> (String) -> [UInt8]? { { values[$0] } }
        func message(_ values: [String: [UInt8]]) -> String? {
            do {
                _ = try StorePath.resolve(path: nil, appID: "app", environment: env(values))
                return nil
            } catch {
                return error.code == .EINVAL ? error.message : "wrong code \(error.code)"
            }
        }
        let home = Array("/h".utf8)
        #expect(message(["GATEKIT_STORE": [0x2F, 0xFF, 0xFE], "HOME": home])?.contains("not valid UTF-8") == true)
        #expect(message(["GATEKIT_STORE": [], "HOME": home])?.contains("empty") == true)
        #expect(message(["XDG_STATE_HOME": Array("state".utf8), "HOME": home])?.contains("relative") == true)
        #expect(message(["XDG_STATE_HOME": [0xC3, 0x28], "HOME": home])?.contains("XDG_STATE_HOME") == true)
        #expect(message(["HOME": Array("h".utf8)])?.contains("$HOME") == true)
        #expect(message(["HOME": [0xFF]])?.contains("not valid UTF-8") == true)
        #expect(message(["XDG_STATE_HOME": Array("/s".utf8)]) == nil)
    }

    @Test func migratesAnOlderStoreForwardKeepingItsData() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v1.sqlite")
        // A store exactly as schema version 1 wrote it.
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, StoreSchema.gatekit.migrations[0].sqlite, nil, nil, nil)
        sqlite3_exec(db, "PRAGMA application_id=\(StoreFormat.applicationID); PRAGMA user_version=1;", nil, nil, nil)
        let hash = try sha256Hex("old")
        sqlite3_exec(db, "INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES ('terms', NULL, '\(hash)', 1, 1000)", nil, nil, nil)
        sqlite3_close(db)

        let store = try Store(schema: .gatekit, path: path, appID: nil)
        #expect(try store.read { (db) throws(GateKitError) in try db.scalar("PRAGMA user_version") } == StoreSchema.gatekit.currentVersion)
        #expect(try EULAGate(store: store).shouldPresent(documentID: "terms", hash: hash, user: nil) == false)
    }

    @Test func refusesAnOlderStoreWhoseSchemaDoesNotMatchItsVersionAndLeavesItUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.file("mismatch.sqlite")
        // GateKit's application id and version 1, but not version 1's tables.
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "CREATE TABLE gatekit_meta(x); PRAGMA application_id=\(StoreFormat.applicationID); PRAGMA user_version=1;", nil, nil, nil)
        sqlite3_close(db)
        let before = Files.read(path)
        #expect(refusal(path) == .ECORRUPT)
        #expect(Files.read(path) == before)
    }

    @Test func historyIsAppendOnly() throws {
        let folder = TemporaryFolder()
        let store = try Store(schema: .gatekit, path: folder.file("s.sqlite"), appID: nil)
        try EULAGate(store: store).record(.accepted, documentID: "terms", hash: try sha256Hex("x"), user: nil)
        for sql in ["UPDATE eula_decisions SET decision = 2", "DELETE FROM eula_decisions"] {
            #expect(throws: GateKitError.self) {
                try store.write { (db) throws(GateKitError) in try db.execute(sql) }
            }
        }
        #expect(try EULAGate(store: store).history(documentID: nil, user: .everyone).count == 1)
    }
}
