import Testing
@testable import GateKitCrypto
@testable import GateKitSupport

@Suite struct DigestTests {
    // FIPS 180-2 / NIST CSRC example vectors.
    @Test func knownSHA256Vectors() throws {
        #expect(try sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(try Digest.hash(.sha256, million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func otherAlgorithms() throws {
        #expect(Hex.encode(try Digest.hash(.sha1, Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(try Digest.hash(.sha384, Array("abc".utf8)))
            == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
    }

    @Test func fileHashEqualsBytesHashAcrossChunkBoundaries() throws {
        let folder = TemporaryFolder()
        // Sizes around the 256 KiB read chunk.
        for size in [0, 1, 262_143, 262_144, 262_145, 1_000_003] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let path = folder.file("doc-\(size)")
            Files.write(path, bytes)
            #expect(try Digest.hashFile(.sha256, path: path) == Digest.hash(.sha256, bytes))
        }
    }

    @Test func missingFileIsNotFoundAndFolderIsIO() {
        let folder = TemporaryFolder()
        #expect(throws: GateKitError.self) { try Digest.hashFile(.sha256, path: folder.file("absent")) }
        do {
            _ = try Digest.hashFile(.sha256, path: folder.file("absent"))
        } catch {
            #expect(error.code == .ENOTFOUND)
        }
        do {
            _ = try Digest.hashFile(.sha256, path: folder.path)
            Issue.record("hashing a folder succeeded")
        } catch {
            #expect(error.code == .EIO)
        }
    }
}
