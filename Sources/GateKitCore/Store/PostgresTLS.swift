import COpenSSL
import CPostgres
import Glibc
import GateKitSupport

/// Over TCP a connection is TLS with the server's certificate and name verified, against the
/// system's CAs unless the connection string or libpq's settings name others.
extension PostgresConnection {
    /// Whether libpq will reach any of the hosts over TCP (a host that is not a socket folder,
    /// or a hostaddr); no host at all is the local socket.
    static func usesTCP(_ given: [String: String]) -> Bool {
        if let address = given["hostaddr"] ?? getenv("PGHOSTADDR").map({ String(cString: $0) }), !address.isEmpty { return true }
        guard let hosts = given["host"] ?? getenv("PGHOST").map({ String(cString: $0) }) else { return false }
        return hosts.split(separator: ",", omittingEmptySubsequences: false).contains { h in
            !h.isEmpty && !h.hasPrefix("/") && !h.hasPrefix("@")
        }
    }

    /// The system's CA certificates for `sslrootcert`: libpq 16 reads "system" itself; before,
    /// OpenSSL's default file (Debian: /usr/lib/ssl/cert.pem, the ca-certificates bundle).
    /// Nil when libpq's own ~/.postgresql/root.crt is there to decide.
    static func systemCAs(_ pq: gk_pq) -> String? {
        if let home = getenv("HOME"), access(String(cString: home) + "/.postgresql/root.crt", F_OK) == 0 { return nil }
        if pq.PQlibVersion() >= 160000 { return "system" }
        return X509_get_default_cert_file().map { String(cString: $0) }
    }
}
