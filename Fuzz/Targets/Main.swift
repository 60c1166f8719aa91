import Glibc

// libFuzzer entry points for every GateKit fuzz target, compiled together with the
// GateKitCore sources into one instrumented binary (Fuzz/build.sh). The target is chosen
// with $GATEKIT_FUZZ_TARGET; each target lives in its own file as `fuzz<Name>(bytes)`.
//
// A target must never crash on any input: a Swift trap, an ASan report or a broken
// round-trip property (fuzzFail) is a finding.

/// Every target: name (as on the command line) and entry point.
let fuzzTargets: [(name: String, run: @Sendable (UnsafeRawBufferPointer) -> Void)] = [
    ("json", fuzzJSON),
    ("date", fuzzDate),
    ("base64", fuzzBase64),
    ("eula-history", fuzzEULAHistory),
    ("eula-export", fuzzEULAExport),
    ("store-file", fuzzStoreFile),
    ("receipt-container", fuzzReceiptContainer),
    ("receipt-payload", fuzzReceiptPayload),
    ("receipt-validate", fuzzReceiptValidate),
    ("jws-parse", fuzzJWSParse),
    ("jws-verify", fuzzJWSVerify),
    ("ber-differential", fuzzBERDifferential),
    ("api-answer", fuzzAPIAnswer),
    ("play-push", fuzzPlayPush),
]

/// What a target makes once (a key pair, a store, options), made in LLVMFuzzerInitialize:
/// libFuzzer does not time it, so under a loaded machine the first input does not pay for it
/// and time out (an RSA key generated under ASan took over a second in CI).
let fuzzSetUp: [String: @Sendable () -> Void] = [
    "eula-export": { _ = ExportScratch.lines; _ = ExportScratch.csv },
    "store-file": { _ = StoreFileScratch.path },
    "receipt-validate": { _ = FuzzFixtures.receiptAnchor },
    "jws-verify": { _ = FuzzFixtures.jwsAnchor; _ = JWSFuzzOptions.sandbox; _ = JWSFuzzOptions.production },
    "api-answer": { _ = FuzzFixtures.jwsAnchor; _ = JWSFuzzOptions.sandbox },
    "play-push": { _ = PlayFuzzVerifier.shared },
]

enum Selected {
    static let name = getenv("GATEKIT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    static let run: @Sendable (UnsafeRawBufferPointer) -> Void = {
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            let names = fuzzTargets.map(\.name).joined(separator: " ")
            fuzzLog("set GATEKIT_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        return target.run
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
    _ = Selected.run
    fuzzSetUp[Selected.name]?()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Selected.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
