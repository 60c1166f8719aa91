import Glibc
import GateKitHTTPS
import GateKitSupport

/// Application Default Credentials from the metadata server of the machine the host runs on
/// (Compute Engine, GKE workload identity, Cloud Run): where organisations forbid key files, the
/// platform hands the workload's service account a token at
/// `/computeMetadata/v1/instance/service-accounts/default/token`, asked with
/// `Metadata-Flavor: Google`. The server speaks plain HTTP on the link-local address only the
/// machine reaches, so it is asked there and nowhere else: GCE_METADATA_HOST moves it as
/// google-auth reads it, to the metadata server's names or a loopback address (a stand-in);
/// any other host is an error, never a token fetched in the clear from the network.
struct MetadataServer: Sendable {
    /// The variable google-auth reads the server's host (and port) from.
    static let environmentVariable = "GCE_METADATA_HOST"
    /// The link-local address, not the DNS name: nothing on the network can answer for it.
    static let defaultHost = "169.254.169.254"

    let tokenURL: String

    static func fromEnvironment() throws(GateKitError) -> MetadataServer {
        let given = getenv(environmentVariable).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strnlen($0, 300)), as: UTF8.self) }
        let host = given.flatMap { $0.isEmpty ? nil : $0 } ?? defaultHost
        guard isMetadataHost(host) else {
            throw .invalid("\(environmentVariable) is \(Quoted.text(host)): the metadata server is asked over plain HTTP, so only "
                           + "\(defaultHost), metadata.google.internal or a loopback address (127.0.0.1, [::1], localhost), with an optional :port, is taken")
        }
        return MetadataServer(tokenURL: "http://\(host)/computeMetadata/v1/instance/service-accounts/default/token?scopes="
                              + PercentEncoding.encode(AccessTokens.scope))
    }

    /// The metadata server's own names, or loopback, each with an optional port.
    static func isMetadataHost(_ authority: String) -> Bool {
        var name = Substring(authority)
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") {
            let port = name[name.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number) else { return false }
            name = name[..<colon]
        }
        return ["169.254.169.254", "metadata.google.internal", "127.0.0.1", "[::1]", "localhost"].contains(String(name))
    }

    /// The token request: Google's metadata server refuses one without the flavour header
    /// (so a browser or a proxy cannot be made to fetch it).
    var tokenRequest: HTTPRequest {
        HTTPRequest(method: "GET", url: tokenURL, headers: ["Metadata-Flavor: Google", "Accept: application/json"], body: nil)
    }
}
