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

enum Selected {
    static let run: @Sendable (UnsafeRawBufferPointer) -> Void = {
        let name = getenv("GATEKIT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            let names = fuzzTargets.map(\.name).joined(separator: " ")
            fuzzLog("set GATEKIT_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        return target.run
    }()
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
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Selected.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
