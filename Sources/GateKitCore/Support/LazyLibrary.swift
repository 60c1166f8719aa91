import Glibc

/// A system library GateKit loads with `dlopen` only when a feature needs it (libpq for a
/// PostgreSQL store, libdbus for the desktop portal): hosts that never use the feature never
/// load it, and libgatekit does not depend on it. Its functions land in a C table that the
/// library's shim header declares with the library's own prototypes.
package enum LazyLibrary {
    /// Opens the first of `names` that loads and fills a table with `bind` (which answers the
    /// first missing symbol, or nil). `code` is the error code of "not available".
    package static func load<Table>(_ names: [String], code: GateKitError.Code, install: String,
                            bind: (UnsafeMutableRawPointer, UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?)
        -> Result<UnsafePointer<Table>, GateKitError> {
        var reasons: [String] = []
        for name in names {
            guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
            if let missing = bind(library, table) {
                table.deallocate()
                return .failure(GateKitError(code, "\(name) lacks \(String(cString: missing)); install a newer one (\(install))"))
            }
            return .success(UnsafePointer(table))
        }
        return .failure(GateKitError(code, "\(names[0]) cannot be loaded (\(reasons.joined(separator: "; "))); install it (\(install))"))
    }
}
