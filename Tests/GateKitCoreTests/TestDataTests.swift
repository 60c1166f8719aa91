import Glibc
import Testing
@testable import GateKitJWS
@testable import GateKitSupport
@testable import GateKitTestData

/// Test data for hosts (TestPKI, TestSigner): the PKI is Apple-shaped and owner-only, what it
/// signs verifies as its kind only under its root, and a payload GateKit would refuse is
/// refused at signing.
@Suite struct TestDataTests {
    static func payload(environment: String = "Sandbox", product: String = "\"productId\":\"p\",") -> String {
        "{\"transactionId\":\"1\",\"originalTransactionId\":\"1\",\"bundleId\":\"com.example\",\(product)"
            + "\"purchaseDate\":1767225600000,\"type\":\"Non-Consumable\",\"signedDate\":1767225600000,\"environment\":\"\(environment)\"}"
    }

    static let transaction = payload()

    @Test func aPKIIsMadeOnceOwnerOnlyWithApplesMarkers() throws {
        let folder = TemporaryFolder()
        let dir = folder.file("pki")
        try TestPKI.create(in: dir)
        for name in [TestPKI.rootFile, TestPKI.intermediateFile, TestPKI.leafFile, TestPKI.keyFile] {
            var st = stat()
            #expect(stat("\(dir)/\(name)", &st) == 0 && st.st_mode & 0o777 == 0o600, "\(name)")
        }
        var st = stat()
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(failure { try TestPKI.create(in: dir) } == .EIO)
        let files = try TestPKI.load(from: dir)
        // The chain verifies as Apple's does: leaf -> intermediate -> the root as anchor, with
        // the leaf and intermediate marker OIDs the verifier requires.
        let chain = try X5CChain.verifiedChain([files.leaf, files.intermediate, files.root], at: 1_767_225_600, testAnchor: files.root)
        #expect(chain.isTestAnchored)
        #expect(failure { try X5CChain.verifiedChain([files.leaf, files.intermediate, files.root], at: 1_767_225_600, testAnchor: nil) } == .EJWS_UNTRUSTED)
        #expect(failure { try X5CChain.verifiedChain([files.intermediate, files.root, files.root], at: 1_767_225_600, testAnchor: files.root) } != nil)
    }

    @Test func whatItSignsVerifiesOnlyUnderItsRoot() throws {
        let folder = TemporaryFolder()
        let dir = folder.file("pki")
        try TestPKI.create(in: dir)
        let jws = try TestSigner.sign(payload: Array(Self.transaction.utf8), kind: .transaction, pki: dir)
        let root = try TestPKI.load(from: dir).root
        let options = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .sandbox, testAnchorDER: root)
        let verified = try JWSVerifier.verify(Array(jws.utf8), kind: .transaction, options: options)
        #expect(verified.isTestSigned)
        let appStoreOnly = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .sandbox)
        #expect(failure { try JWSVerifier.verify(Array(jws.utf8), kind: .transaction, options: appStoreOnly) } == .EJWS_UNTRUSTED)
        // The payload is signed exactly as given.
        let payload = jws.split(separator: ".")[1]
        #expect(Base64.decode(payload.utf8, alphabet: .url) == Array(Self.transaction.utf8))
    }

    @Test func whatGateKitWouldRefuseIsRefusedAtSigning() throws {
        let folder = TemporaryFolder()
        let dir = folder.file("pki")
        try TestPKI.create(in: dir)
        func code(_ payload: String, _ kind: JWSVerifier.Kind) -> GateKitError.Code? {
            failure { try TestSigner.sign(payload: Array(payload.utf8), kind: kind, pki: dir) }
        }
        #expect(code(Self.transaction, .renewalInfo) == .EJWS_PAYLOAD_FIELD)   // a transaction is not a renewal info
        #expect(code(Self.transaction, .notification) == .EJWS_PAYLOAD_FIELD)
        #expect(code(Self.payload(environment: "sandbox"), .transaction) == .EJWS_PAYLOAD_FIELD)
        #expect(code(Self.payload(product: ""), .transaction) == .EJWS_PAYLOAD_FIELD)
        #expect(code("{\"a\":", .transaction) == .EJWS_MALFORMED)
        #expect(code("[]", .transaction) == .EJWS_PAYLOAD_FIELD)
        #expect(code(Self.transaction, .transaction) == nil)
        #expect(failure { try TestSigner.sign(payload: Array(Self.transaction.utf8), kind: .transaction, pki: folder.file("none")) } == .ENOTFOUND)
    }
}
