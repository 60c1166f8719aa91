import Glibc

// libFuzzer entry points for every GateKit fuzz target, compiled together with the
// GateKitCore sources into one instrumented binary (Fuzz/build.sh). The target is chosen
// with $GATEKIT_FUZZ_TARGET; each target lives in its own file as `fuzz<Name>(bytes)`.
//
// A target must never crash on any input: a Swift trap, an ASan report or a broken
// round-trip property (fuzzFail) is a finding.

/// Every target: name (as on the command line), entry point, and what it makes once (a key
/// pair, a store, options), made in LLVMFuzzerInitialize: libFuzzer does not time it, so on a
/// loaded machine the first input does not pay for it and time out (an RSA key generated under
/// ASan took over a second in CI).
let fuzzTargets: [(name: String, run: @Sendable (UnsafeRawBufferPointer) -> Void, setUp: (@Sendable () -> Void)?)] = [
    ("json", fuzzJSON, nil),
    ("date", fuzzDate, nil),
    ("base64", fuzzBase64, nil),
    ("eula-history", fuzzEULAHistory, nil),
    ("eula-export", fuzzEULAExport, { _ = ExportScratch.lines; _ = ExportScratch.csv }),
    ("store-file", fuzzStoreFile, { _ = StoreFileScratch.path }),
    ("receipt-container", fuzzReceiptContainer, nil),
    ("receipt-payload", fuzzReceiptPayload, nil),
    ("receipt-validate", fuzzReceiptValidate, { _ = FuzzFixtures.receiptAnchor }),
    ("jws-parse", fuzzJWSParse, nil),
    ("jws-verify", fuzzJWSVerify, { _ = FuzzFixtures.jwsAnchor; _ = JWSFuzzOptions.sandbox; _ = JWSFuzzOptions.production }),
    ("ber-differential", fuzzBERDifferential, nil),
    ("api-answer", fuzzAPIAnswer, { _ = FuzzFixtures.jwsAnchor; _ = JWSFuzzOptions.sandbox }),
    ("play-push", fuzzPlayPush, { _ = PlayFuzzVerifier.shared }),
]

enum Selected {
    static let target: (name: String, run: @Sendable (UnsafeRawBufferPointer) -> Void, setUp: (@Sendable () -> Void)?) = {
        let name = getenv("GATEKIT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            let names = fuzzTargets.map(\.name).joined(separator: " ")
            fuzzLog("set GATEKIT_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        return target
    }()
}

/// A new folder for a target's files, in $GATEKIT_FUZZ_SCRATCH (Fuzz/run.sh: /dev/shm, memory)
/// or /tmp: on a disk, a loaded machine's writeback stalled an fsync or an O_TRUNC past the
/// 1 s an input may take, and the fuzzer reported the stall as a hang.
func fuzzScratchFolder(_ name: String) -> String {
    let parent = getenv("GATEKIT_FUZZ_SCRATCH").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(parent)/gatekit-fuzz-\(name)-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
    guard let dir else { fuzzFail("mkdtemp failed in \(parent)") }
    return String(cString: dir)
}

/// A broken property: report and abort, so libFuzzer saves the input as a crash.
func fuzzFail(_ what: String) -> Never {
    fuzzLog("FUZZ PROPERTY FAILED: \(what)")
    abort()
}

func fuzzLog(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    if getenv("GATEKIT_FUZZ_LIST") != nil {
        for t in fuzzTargets { print(t.name) }
        exit(0)
    }
    Selected.target.setUp?()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Selected.target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
