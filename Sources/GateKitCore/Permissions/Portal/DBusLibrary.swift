import CDBus
import Glibc

/// libdbus-1, loaded with `dlopen` on the first `perm_use_portal` (the CDBus shim says why).
enum DBusLibrary {
    nonisolated(unsafe) private static let loaded: Result<UnsafePointer<gk_dbus>, GateKitError> = load()

    /// libdbus's functions; the same table for the life of the process.
    static func functions() throws(GateKitError) -> UnsafePointer<gk_dbus> { try loaded.get() }

    private static func load() -> Result<UnsafePointer<gk_dbus>, GateKitError> {
        var reasons: [String] = []
        for name in ["libdbus-1.so.3", "libdbus-1.so"] {
            guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            let table = UnsafeMutablePointer<gk_dbus>.allocate(capacity: 1)
            if let missing = gk_dbus_bind(library, table) {
                table.deallocate()
                return .failure(GateKitError(.permissionPortal, "\(name) lacks \(String(cString: missing))"))
            }
            // Several threads use one connection (the listener, and callers mapping categories).
            guard table.pointee.dbus_threads_init_default() != 0 else {
                return .failure(GateKitError(.outOfMemory, "libdbus could not set up its thread support"))
            }
            return .success(UnsafePointer(table))
        }
        return .failure(GateKitError(.permissionPortal, "the desktop permission store needs libdbus-1, which cannot be loaded (\(reasons.joined(separator: "; "))); install it (Debian: libdbus-1-3)"))
    }
}
