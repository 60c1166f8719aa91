import Glibc

/// Where a store lives: an explicit path, `$GATEKIT_STORE`, or the per-app file under the
/// XDG state directory.
public enum StorePath {
    /// App ids become file names: letters, digits, '.', '-', '_'; no "..", at most 128 bytes.
    public static func validateAppID(_ appID: String) throws(GateKitError) {
        guard !appID.isEmpty, appID.utf8.count <= 128 else {
            throw .invalid("app_id must be 1 to 128 characters")
        }
        for c in appID.utf8 {
            let ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
            guard ok else { throw .invalid("app_id '\(appID)' may hold only letters, digits, '.', '-' and '_'") }
        }
        guard !appID.contains(".."), appID != "." else { throw .invalid("app_id must not contain '..'") }
    }

    public static func resolve(path: String?, appID: String?,
                               environment: (String) -> String? = StorePath.environment) throws(GateKitError) -> String {
        if let appID { try validateAppID(appID) }
        if let path {
            guard !path.isEmpty else { throw .invalid("path is empty") }
            return path
        }
        if let env = environment("GATEKIT_STORE"), !env.isEmpty { return env }
        guard let appID else { throw .invalid("app_id is required when neither path nor $GATEKIT_STORE is set") }
        // XDG: a relative $XDG_STATE_HOME is invalid and must be ignored.
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") {
            return "\(state)/gatekit/\(appID).sqlite"
        }
        guard let home = environment("HOME"), home.hasPrefix("/") else {
            throw .invalid("neither $XDG_STATE_HOME nor $HOME is set: pass a path")
        }
        return "\(home)/.local/state/gatekit/\(appID).sqlite"
    }

    public static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(validatingCString: v)
    }

    /// `mkdir -p` for the folder holding `path` (mode 0700: the store is per user).
    static func createParentFolders(of path: String) throws(GateKitError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        components.removeLast()
        var current = path.hasPrefix("/") ? "" : "."
        for c in components where !c.isEmpty {
            current += "/" + c
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .io("cannot create folder '\(current)': \(String(cString: strerror(errno)))")
            }
        }
        if !components.filter({ !$0.isEmpty }).isEmpty {
            var st = stat()
            guard stat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .io("'\(current)' is not a folder")
            }
        }
    }
}
