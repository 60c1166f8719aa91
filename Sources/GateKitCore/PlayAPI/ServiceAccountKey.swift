import Glibc
import GateKitCrypto
import GateKitHTTPS
import GateKitSupport

/// A Google service account's JSON key (type "service_account", client_email, private_key
/// PEM, private_key_id, token_uri), given as its contents or as a file read once, as a CA file is (TrustedFile: a
/// regular file of this user or root, not a link, that no other user can write), and, as it
/// holds a private key, that no other user can read (as ssh refuses a readable key). The private
/// key is never put in an error, a log or an answer: errors name the member, not its value.
public final class ServiceAccountKey: Sendable {
    public let clientEmail: String
    public let privateKeyID: String?
    public let tokenURI: String
    public let projectID: String?
    let key: RSAKey

    /// Key files are about 2.3 KB.
    public static let maximumLength = 64 * 1024

    /// The variable Google's client libraries read a key file's path from.
    public static let environmentVariable = "GOOGLE_APPLICATION_CREDENTIALS"

    /// The key the host named: its file, its contents (google-auth's `from_service_account_info`
    /// habit), or, when it named neither, the file GOOGLE_APPLICATION_CREDENTIALS names, read as
    /// Google's libraries read it. Both, or none anywhere, is an error that says what to set.
    public static func named(file: String?, contents: [UInt8]?) throws(GateKitError) -> ServiceAccountKey {
        switch (file, contents) {
        case (_?, _?):
            throw .invalid("service_account_file and service_account_json are both set: give the key one way")
        case let (path?, nil):
            return try read(path: path, what: "service_account_file")
        case let (nil, json?):
            return try ServiceAccountKey(json: json)
        case (nil, nil):
            guard let value = getenv(environmentVariable), value.pointee != 0 else {
                throw .invalid("no service account key: set service_account_file (the JSON key's path), service_account_json (its contents) or \(environmentVariable) (the key's path, as Google's client libraries read it)")
            }
            return try read(path: String(decoding: UnsafeRawBufferPointer(start: value, count: strnlen(value, 4096)), as: UTF8.self),
                            what: environmentVariable)
        }
    }

    public static func read(path: String, what: String = "service_account_file") throws(GateKitError) -> ServiceAccountKey {
        // A key's contents where its path belongs would be quoted by every file error: refused unquoted.
        if path.utf8.first == UInt8(ascii: "{") || Text.contains(path, "PRIVATE KEY") || path.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            let instead = what == environmentVariable ? "" : " (pass the contents as service_account_json)"
            throw GateKitError(.EPLAY_KEY, "\(what) holds what looks like a key's contents, not the path of the key file\(instead); not quoted here: it would show the key")
        }
        return try ServiceAccountKey(json: try TrustedFile.read(path, limit: maximumLength, what: what, secret: true))
    }

    public init(json: [UInt8]) throws(GateKitError) {
        func bad(_ why: String) -> GateKitError { GateKitError(.EPLAY_KEY, "the service account key \(why)") }
        guard json.count <= ServiceAccountKey.maximumLength else { throw GateKitError(.ETOOLARGE, "the service account key is over \(ServiceAccountKey.maximumLength) bytes") }
        // The parser's own message could quote the key's bytes: only the fact is reported.
        guard let document = try? JSONParser.parse(json), case .object = document else { throw bad("is not a JSON object (a key file from Google Cloud > IAM > Service accounts > Keys)") }
        guard document["type"]?.stringValue == "service_account" else { throw bad("is not of type \"service_account\"") }
        guard let email = document["client_email"]?.stringValue, !email.isEmpty, email.utf8.count <= 1024 else { throw bad("has no client_email") }
        guard let pem = document["private_key"]?.stringValue else { throw bad("has no private_key") }
        switch RSAKey.privateKey(pem: Array(pem.utf8)) {
        case let .success(loaded): key = loaded
        case .failure(.notPEM): throw bad("private_key is not an unencrypted PEM private key")
        case .failure(.notRSA): throw bad("private_key is not an RSA key (Google's service account keys are)")
        case .failure(.size): throw bad("private_key is an RSA key under 2048 or over 8192 bits")
        }
        let uri = document["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
        do { tokenURI = try HTTPSURL.checked(uri, what: "the key's token_uri") } catch { throw GateKitError(.EPLAY_KEY, error.message) }
        clientEmail = email
        privateKeyID = document["private_key_id"]?.stringValue
        projectID = document["project_id"]?.stringValue
    }
}
