import GateKitSupport

/// The sandboxed app's own id, from the file Flatpak puts at the sandbox's root.
enum FlatpakInfo {
    static let path = "/.flatpak-info"

    /// `[Application] name=` of /.flatpak-info; `.EINVAL` outside a Flatpak sandbox
    /// (an explicit app id is then required: GateKit will not guess one).
    static func appID(path: String = FlatpakInfo.path) throws(GateKitError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: 1 << 20)
        } catch where error.code == .ENOTFOUND {
            throw .invalid("app_id is required outside a Flatpak sandbox (\(path) does not exist)")
        }
        var inApplication = false
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let text = line.first == " " ? line.dropFirst() : line
            if text.hasPrefix("[") {
                inApplication = text.hasPrefix("[Application]")
            } else if inApplication, text.hasPrefix("name=") {
                let name = String(text.dropFirst(5))
                guard !name.isEmpty else { break }
                return name
            }
        }
        throw .invalid("\(Quoted.path(path)) names no application ([Application] name=): pass the app id")
    }
}
