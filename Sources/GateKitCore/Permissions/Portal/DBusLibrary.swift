import CDBus
import GateKitSupport

/// libdbus-1, loaded on the first `perm_use_portal` (the CDBus shim says why).
enum DBusLibrary {
    nonisolated(unsafe) private static let loaded: Result<UnsafePointer<gk_dbus>, GateKitError> = {
        let table = LazyLibrary.load(["libdbus-1.so.3", "libdbus-1.so"], code: .EPERM_PORTAL, install: "Debian: libdbus-1-3",
                                     bind: { gk_dbus_bind($0, $1) })
        // The calls connection is used from several threads (the listener, callers mapping categories).
        if case .success(let bus) = table, bus.pointee.dbus_threads_init_default() == 0 {
            return .failure(GateKitError(.ENOMEM, "libdbus could not set up its thread support"))
        }
        return table
    }()

    /// libdbus's functions; the same table for the life of the process.
    static func functions() throws(GateKitError) -> UnsafePointer<gk_dbus> { try loaded.get() }
}
