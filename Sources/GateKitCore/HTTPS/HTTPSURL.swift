import GateKitSupport

/// The https:// URLs a host may set (a stand-in, a proxy, a key set): checked once, when the
/// client is made, so a mistake is an error then and never a request sent somewhere else.
package enum HTTPSURL {
    /// `url` without a trailing slash. `what` names the setting in the error.
    package static func checked(_ url: String, what: String) throws(GateKitError) -> String {
        guard url.hasPrefix("https://"), url.count > 8, !url.contains("?"), !url.contains("#"),
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalid("\(what) must be an https:// URL without query, fragment or spaces, not \(Quoted.text(redacted(url)))")
        }
        // Credentials in the URL would travel in every message that names the server.
        let authority = url.dropFirst(8).prefix { $0 != "/" }
        guard !authority.contains("@") else {
            throw .invalid("\(what) must not carry user information (user:password@): the client authenticates itself")
        }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// `url` with any user information (`user:password@`) replaced by `…@`: what an error may quote.
    package static func redacted(_ url: String) -> String {
        let bytes = Array(url.utf8)
        let start = bytes.firstIndex(of: UInt8(ascii: ":")).flatMap { bytes[$0...].starts(with: "://".utf8) ? $0 + 3 : nil } ?? 0
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        guard let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) else { return url }
        return String(decoding: bytes[..<start], as: UTF8.self) + "…" + String(decoding: bytes[at...], as: UTF8.self)
    }
}
