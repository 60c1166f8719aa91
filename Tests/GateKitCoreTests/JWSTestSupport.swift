import Glibc
@testable import GateKitJWS
@testable import GateKitSupport

/// Files, a throw-away test PKI and a JWS signer for the signed-data tests. The PKI is made
/// with the openssl CLI by Tests/scripts/jws-test-pki.sh in a fresh temporary folder.
enum JWSTestFiles {
    /// The repository root (this file is Tests/GateKitCoreTests/JWSTestSupport.swift).
    static let repoRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static var fixtures: String { FixtureFiles.root }

    static func read(path: String) -> [UInt8]? { Files.read(path) }

    /// A fixture file, or nil with a printed reason (the calling test then skips).
    static func fixture(_ relative: String) -> [UInt8]? {
        guard let bytes = read(path: fixtures + "/" + relative) else {
            print("SKIP: fixture \(relative) not found under \(fixtures) (set GATEKIT_FIXTURES)")
            return nil
        }
        return bytes
    }

    /// A fixture JWS without its trailing newline.
    static func fixtureJWS(_ relative: String) -> [UInt8]? {
        guard var bytes = fixture(relative) else { return nil }
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) {
        guard let f = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }

    static func run(_ command: String) -> Bool { system(command) == 0 }
}

/// The generated test PKI (one per test process).
final class JWSTestPKI: @unchecked Sendable {
    static let shared: JWSTestPKI? = JWSTestPKI()

    let dir: String

    private init?() {
        var template = Array("/tmp/gatekit-jws-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let p = mkdtemp(base) else { return nil }
            return String(cString: p)
        }
        guard let made else { return nil }
        dir = made
        let script = JWSTestFiles.repoRoot + "/Tests/scripts/jws-test-pki.sh"
        guard JWSTestFiles.run("'\(script)' '\(dir)' >/dev/null 2>&1") else {
            print("SKIP: could not generate the test PKI with the openssl CLI (\(script))")
            return nil
        }
        atexit { JWSTestPKI.removeFiles() }
    }

    static func removeFiles() {
        guard let dir = shared?.dir, dir.hasPrefix("/tmp/gatekit-jws-") else { return }
        _ = JWSTestFiles.run("rm -rf '\(dir)'")
    }

    func der(_ name: String) -> [UInt8] { JWSTestFiles.read(path: "\(dir)/\(name).der") ?? [] }
    func key(_ name: String) -> String { "\(dir)/\(name).key" }

    /// A compact JWS over `payload`, with `header` members (x5c filled from `chain` names)
    /// signed by `signer`'s key. `algorithm` nil: the header has no alg.
    func sign(_ payload: String, chain: [String], signer: String? = nil, algorithm: String? = "ES256",
              extraHeader: String = "", digest: String = "sha256") -> String {
        let x5c = chain.map { "\"" + Base64.encode(der($0)) + "\"" }.joined(separator: ",")
        var header = "{"
        if let algorithm { header += "\"alg\":\"\(algorithm)\"," }
        header += "\"x5c\":[\(x5c)]\(extraHeader)}"
        let input = Base64.encode(Array(header.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url)
        let signature = rawSignature(input, key: key(signer ?? chain.first ?? "leaf"), digest: digest)
        return input + "." + Base64.encode(signature, alphabet: .url)
    }

    /// openssl dgst signature of `input`; ECDSA DER signatures are converted to raw r‖s.
    func rawSignature(_ input: String, key: String, digest: String = "sha256", keepDER: Bool = false) -> [UInt8] {
        let inPath = "\(dir)/input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        JWSTestFiles.write(Array(input.utf8), to: inPath)
        defer { unlink(inPath); unlink(inPath + ".sig") }
        guard JWSTestFiles.run("openssl dgst -\(digest) -sign '\(key)' -out '\(inPath).sig' '\(inPath)'"),
              let der = JWSTestFiles.read(path: inPath + ".sig") else { return [] }
        return keepDER ? der : Self.rawECDSA(der) ?? der
    }

    /// DER ECDSA-Sig-Value (SEQUENCE { INTEGER r, INTEGER s }) to 32-byte r ‖ 32-byte s.
    static func rawECDSA(_ der: [UInt8]) -> [UInt8]? {
        guard der.count > 8, der[0] == 0x30 else { return nil }
        var i = der[1] == 0x81 ? 3 : 2
        var out: [UInt8] = []
        for _ in 0..<2 {
            guard i + 2 <= der.count, der[i] == 0x02 else { return nil }
            let n = Int(der[i + 1])
            guard i + 2 + n <= der.count else { return nil }
            var v = Array(der[(i + 2)..<(i + 2 + n)])
            while v.count > 32, v.first == 0 { v.removeFirst() }
            guard v.count <= 32 else { return nil }
            out += [UInt8](repeating: 0, count: 32 - v.count) + v
            i += 2 + n
        }
        return out
    }
}

extension JWSOptions {
    /// Test options. Production ones carry the test-only flag, so the identity checks that
    /// follow can be exercised with test-signed data (`testProduction: false` to see the refusal).
    static func test(_ anchor: [UInt8]?, bundle: String = "com.example", environment: AppStoreEnvironment = .sandbox,
                     appAppleID: Int64? = nil, at time: Int64? = nil, testProduction: Bool = true) -> JWSOptions? {
        try? JWSOptions(bundleID: bundle, appAppleID: appAppleID, environment: environment, verifyTime: time, testAnchorDER: anchor,
                        allowTestSignedProduction: testProduction && environment == .production)
    }
}

func jwsError<T>(_ body: () throws(GateKitError) -> T) -> GateKitError.Code? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}

func nowSeconds() -> Int64 { Clock.nowMilliseconds() / 1000 }
