import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitEULA
@testable import GateKitStore
@testable import GateKitSupport

/// Safety settings read back from what the store actually uses (issue 32): a setting nothing
/// reads back can be lost in a refactor without a test failing.
@Suite(.serialized) struct StoreSettingsTests {
    @Test func sqliteDurabilitySettingsAreInForce() throws {
        let folder = TemporaryFolder()
        let store = try Store(schema: .gatekit, path: folder.file("s.sqlite"), appID: nil)
        #expect(try store.read { (db) throws(GateKitError) in try db.scalar("PRAGMA synchronous") } == 2)  // FULL
        let mode = try store.read { (db) throws(GateKitError) -> String? in
            let s = try db.statement("PRAGMA journal_mode")
            defer { s.reset() }
            return try s.step() ? s.text(0) : nil
        }
        #expect(mode == "wal")
    }

    @Test func filesAndFoldersAreOwnerOnlyWhateverTheUmask() throws {
        for mask: mode_t in [0, 0o077, 0o022] {
            let folder = TemporaryFolder()
            let old = umask(mask)
            defer { umask(old) }
            let path = folder.file("deeper/still/s.sqlite")
            let store = try Store(schema: .gatekit, path: path, appID: nil)
            _ = try EULAGate(store: store).record(.accepted, documentID: "d", hash: try sha256Hex("x"), user: nil)
            for (file, want) in [(path, mode_t(0o600)), (path + "-wal", 0o600), (folder.file("deeper"), 0o700), (folder.file("deeper/still"), 0o700)] {
                var st = stat()
                #expect(stat(file, &st) == 0, "\(file)")
                #expect(st.st_mode & 0o777 == want, "\(file) under umask \(String(mask, radix: 8)): \(String(st.st_mode & 0o777, radix: 8))")
            }
        }
    }
}
