import Glibc

/// Reads fixture files from GATEKIT_FIXTURES (default ../shared/fixtures from the repo root).
enum FixtureFiles {
    static var root: String {
        if let env = getenv("GATEKIT_FIXTURES") { return String(cString: env) }
        return "../shared/fixtures"
    }

    static func read(_ relative: String) -> [UInt8]? {
        guard let f = fopen(root + "/" + relative, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    static func skipNote(_ what: String) {
        print("SKIP: fixture \(what) not found under \(root) (set GATEKIT_FIXTURES)")
    }
}
