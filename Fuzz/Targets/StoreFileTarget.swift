import Glibc

/// A hostile store file: whatever bytes sit at the store path, opening it either succeeds
/// (and then reads work) or fails with a GateKitError — and a refused file is left exactly
/// as it was.
@Sendable func fuzzStoreFile(_ bytes: UnsafeRawBufferPointer) {
    let path = StoreFileScratch.path
    unlink(path + "-wal")
    unlink(path + "-shm")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fuzzFail("cannot write \(path)") }
    if bytes.count > 0 { _ = write(fd, bytes.baseAddress, bytes.count) }
    close(fd)
    do {
        let store = try Store(schema: .gatekit, path: path, appID: nil)
        let gate = EULAGate(store: store)
        _ = try? gate.history(documentID: nil, user: .everyone)
        _ = try? store.integrityReport()
    } catch {
        guard bytes.count > 0 else { return }
        guard let after = StoreFileScratch.read(path), after.elementsEqual(bytes) else {
            fuzzFail("a refused store file was modified (\(error.code): \(error.message))")
        }
    }
}

enum StoreFileScratch {
    static let path: String = {
        let dir = fuzzScratchFolder("store")
        folder = dir
        // Removed when the fuzzer exits (a crash keeps it, with the input that caused it).
        atexit {
            guard let folder = StoreFileScratch.folder else { return }
            for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal"] { unlink(folder + "/" + name) }
            rmdir(folder)
        }
        return dir + "/store.sqlite"
    }()

    /// The scratch folder, once made.
    nonisolated(unsafe) static var folder: String?

    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }
}
