import Glibc
import GateKitSupport

/// Where a store lives: an explicit path, `$GATEKIT_STORE`, or the per-app file under the
/// XDG state directory.
public enum StorePath {
    /// The app id of a PostgreSQL store opened without one (it names the schema).
    public static let defaultPostgresAppID = "default"

    /// App ids become file names: letters, digits, '.', '-', '_'; no "..", at most 128 bytes.
    public static func validateAppID(_ appID: String) throws(GateKitError) {
        guard !appID.isEmpty, appID.utf8.count <= 128 else {
            throw .invalid("app_id must be 1 to 128 characters")
        }
        for c in appID.utf8 {
            let ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
            guard ok else { throw .invalid("app_id \(Quoted.text(appID)) may hold only letters, digits, '.', '-' and '_'") }
        }
        guard !Text.contains(appID, ".."), appID != "." else { throw .invalid("app_id must not contain '..'") }
    }

    /// The store's path. A variable that is set is either used or an error naming it: a
    /// value GateKit cannot use never silently selects another file (every earlier decision
    /// would look gone). An empty `$XDG_STATE_HOME` counts as unset, as the XDG spec says.
    public static func resolve(path: String?, appID: String?,
                               environment: (String) -> [UInt8]? = StorePath.environment) throws(GateKitError) -> String {
        if let appID { try validateAppID(appID) }
        if let path {
            guard !path.isEmpty else { throw .invalid("path is empty") }
            return path
        }
        if let raw = environment("GATEKIT_STORE") {
            let value = try usable("GATEKIT_STORE", raw)
            guard !value.isEmpty else { throw .invalid("$GATEKIT_STORE is set but empty: unset it or name the store file") }
            return value
        }
        guard let appID else { throw .invalid("app_id is required when neither path nor $GATEKIT_STORE is set") }
        if let raw = environment("XDG_STATE_HOME"), !raw.isEmpty {
            let state = try usable("XDG_STATE_HOME", raw)
            guard state.hasPrefix("/") else {
                throw .invalid("$XDG_STATE_HOME is \(Quoted.path(state)), a relative path; it must be absolute (or unset)")
            }
            return "\(state)/gatekit/\(appID).sqlite"
        }
        guard let raw = environment("HOME") else {
            throw .invalid("neither $XDG_STATE_HOME nor $HOME is set: pass a path")
        }
        let home = try usable("HOME", raw)
        guard home.hasPrefix("/") else {
            throw .invalid("$HOME is \(Quoted.path(home)), not an absolute path: set it, set $XDG_STATE_HOME, or pass a path")
        }
        return "\(home)/.local/state/gatekit/\(appID).sqlite"
    }

    /// A variable's bytes as a path: valid UTF-8 without NUL (getenv cannot hold one).
    private static func usable(_ name: String, _ raw: [UInt8]) throws(GateKitError) -> String {
        guard let value = String(validating: raw, as: UTF8.self) else {
            throw .invalid("$\(name) is not valid UTF-8 (\(Quoted.bytes(raw))); GateKit will not guess another file")
        }
        return value
    }

    /// The raw bytes of an environment variable; nil only when it is not set.
    public static func environment(_ name: String) -> [UInt8]? {
        guard let v = getenv(name) else { return nil }
        return Array(UnsafeRawBufferPointer(start: v, count: strlen(v)))
    }

    /// `mkdir -p` for the folder holding `path`; folders it creates get exactly `mode`
    /// (0700: the store is per user), whatever the umask.
    static func createParentFolders(of path: String, mode: mode_t = 0o700) throws(GateKitError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        components.removeLast()
        var current = path.hasPrefix("/") ? "" : "."
        for c in components where !c.isEmpty {
            current += "/" + c
            if mkdir(current, mode) == 0 {
                // mkdir applied the umask; the folder is new and ours, so set the mode exactly.
                _ = chmod(current, mode)
            } else if errno != EEXIST {
                throw .io("cannot create folder \(Quoted.path(current)): \(String(cString: strerror(errno)))")
            }
        }
        if !components.filter({ !$0.isEmpty }).isEmpty {
            var st = stat()
            guard stat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .io("\(Quoted.path(current)) is not a folder")
            }
        }
    }
}
