import Glibc

/// A consent export, edited: a real export of a small store (JSON lines or CSV, with the
/// texts) with up to four edits carved from the bytes, or the bytes themselves as the file.
/// `verifyExport` must accept the file exactly as the store wrote it and nothing else: any
/// other file is `.EEULA_EXPORT_ALTERED` (never another error, never a trap).
@Sendable func fuzzEULAExport(_ bytes: UnsafeRawBufferPointer) {
    var reader = FuzzReader(bytes)
    let base = Int(reader.byte() % 3)
    var file: [UInt8]
    if base == 0 {
        file = reader.bytes(exactly: bytes.count)
    } else {
        file = base == 1 ? ExportScratch.lines : ExportScratch.csv
        for _ in 0..<Int(reader.byte() % 5) where !file.isEmpty {
            let at = Int(reader.uint64() % UInt64(file.count + 1))
            let removed = min(Int(reader.byte() % 8), file.count - at)
            file.replaceSubrange(at..<(at + removed), with: reader.bytes(max: 8))
        }
    }
    let path = ExportScratch.folder + "/edited"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fuzzFail("cannot write \(path)") }
    if !file.isEmpty { _ = file.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
    close(fd)
    let original = file == ExportScratch.lines || file == ExportScratch.csv
    do {
        let count = try ExportScratch.gate.verifyExport(path: path)
        guard original, count == 4 else { fuzzFail("an edited export verified (\(count) decisions): \(Array(file.prefix(300)))") }
    } catch {
        guard !original else { fuzzFail("the store's own export did not verify: \(error.code): \(error.message)") }
        guard error.code == .EEULA_EXPORT_ALTERED else { fuzzFail("an edited export gave \(error.code): \(error.message)") }
    }
}

/// One store, made once: a published version in two languages, four decisions with how they
/// were given (one withdrawal, one non-UTF-8 user), and its two exports.
enum ExportScratch {
    static let folder: String = {
        let path = fuzzScratchFolder("export")
        atexit {
            for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "edited"] { unlink(ExportScratch.folder + "/" + name) }
            rmdir(ExportScratch.folder)
        }
        return path
    }()

    static let gate: EULAGate = {
        do {
            let gate = EULAGate(store: try Store(schema: .gatekit, path: folder + "/store.sqlite", appID: nil))
            try gate.publish(EULAVersion(documentID: "terms", label: "v1", defaultLanguage: "en",
                                         texts: [EULAVersion.Text(language: "en", bytes: Array("Terms".utf8)),
                                                 EULAVersion.Text(language: "de", bytes: Array("Bedingungen, \"v1\"\n".utf8))]))
            let de = Hex.encode(try Digest.hash(.sha256, Array("Bedingungen, \"v1\"\n".utf8)))
            try gate.record(.accepted, documentID: "terms", hash: de, user: Array("ann".utf8),
                            consent: EULAConsent(method: .clickThrough, clientAddress: "192.0.2.7", userAgent: "UA, \"x\"\nline",
                                                 locale: "de-AT", metadata: [("box", "a,b")]))
            try gate.record(.declined, documentID: "privacy", hash: de, user: [0xFF, 0x00, 0x41])
            try gate.withdraw(documentID: "terms", user: Array("ann".utf8), consent: EULAConsent(method: .admin))
            try gate.record(.accepted, documentID: "privacy", hash: de, user: nil)
            return gate
        } catch {
            fuzzFail("cannot make the export store: \(error)")
        }
    }()

    static let lines = export(.jsonLines)
    static let csv = export(.csv)

    private static func export(_ format: EULAExport.Format) -> [UInt8] {
        var out: [UInt8] = []
        do {
            try gate.export(EULAExport.Options(format: format, includeTexts: true)) { (chunk) throws(GateKitError) in out += chunk }
        } catch {
            fuzzFail("cannot export: \(error)")
        }
        return out
    }
}
