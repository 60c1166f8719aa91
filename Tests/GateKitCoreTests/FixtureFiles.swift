import Glibc

/// Reads fixture files from GATEKIT_FIXTURES (default ../shared/fixtures from the repo root).
enum FixtureFiles {
    static var root: String {
        if let env = getenv("GATEKIT_FIXTURES") { return String(cString: env) }
        return JWSTestFiles.repoRoot + "/../shared/fixtures"
    }

    static func read(_ relative: String) -> [UInt8]? { Files.read(root + "/" + relative) }

    static func skipNote(_ what: String) {
        print("SKIP: fixture \(what) not found under \(root) (set GATEKIT_FIXTURES)")
    }
}
