import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitStore

/// The store folder's own rule, alone: writable by others without the sticky bit (issue 32).
@Suite struct StoreFolderTests {
    @Test func aWorldWritableFolderWithoutTheStickyBitIsRefused() throws {
        let folder = TemporaryFolder()
        let open = folder.file("open")
        // Writable by others but not by the group: only the world-writable rule refuses it.
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o707) == 0)
        #expect(failure { try Store(schema: .gatekit, path: open + "/s.sqlite", appID: nil) } == .EUNSAFE)
        #expect(access(open + "/s.sqlite", F_OK) != 0)  // nothing created
        #expect(chmod(open, 0o1707) == 0)
        #expect(failure { try Store(schema: .gatekit, path: open + "/s.sqlite", appID: nil) } == nil)
    }
}
