import COpenSSL
import Glibc
import GateKitCrypto
import GateKitSupport

/// An App Store Connect private key — the `.p8` file Apple issues: PKCS#8 PEM, EC P-256 — with
/// the ids Apple's signed requests carry. The same key in SEC1 PEM ("BEGIN EC PRIVATE KEY",
/// what `openssl ecparam -genkey` writes) is accepted too; encrypted keys are not. Immutable; signing from many threads at once is safe
/// (each signature has its own OpenSSL context).
public final class SigningKey: @unchecked Sendable {
    let key: OpaquePointer
    /// The key's id in App Store Connect (the `kid` header, and part of offer signatures).
    public let keyID: String
    /// The issuer id from App Store Connect's Keys page (`iss`); nil for promotional offers V1.
    public let issuerID: String?
    public let bundleID: String

    public static let maximumPEMLength = 64 * 1024

    public init(pem: UnsafeRawBufferPointer, keyID: String, issuerID: String?, bundleID: String) throws(GateKitError) {
        guard pem.count > 0, pem.count <= SigningKey.maximumPEMLength else {
            throw GateKitError(.EAPPSTORE_KEY, "the key is \(pem.count) bytes; a .p8 key is a few hundred (at most \(SigningKey.maximumPEMLength))")
        }
        for (name, value) in [("key_id", keyID), ("bundle_id", bundleID)] where value.isEmpty || value.utf8.count > 1024 {
            throw .invalid("\(name) must be 1 to 1024 bytes")
        }
        if let issuerID, issuerID.isEmpty || issuerID.utf8.count > 1024 { throw .invalid("issuer_id must be 1 to 1024 bytes, or NULL") }
        let key: OpaquePointer
        switch ES256.privateKey(pem: pem) {
        case let .success(loaded): key = loaded
        case .failure(.notPEM):
            throw GateKitError(.EAPPSTORE_KEY, "the key is not a PEM private key (\"-----BEGIN PRIVATE KEY-----\", unencrypted), as App Store Connect issues it")
        case .failure(.notP256):
            throw GateKitError(.EAPPSTORE_KEY_TYPE, "the key is a private key but not EC P-256: App Store Connect keys are, and ES256 needs one")
        case .failure(.unusable):
            throw GateKitError(.EAPPSTORE_KEY, "the key's private scalar is not one P-256 can sign with (it must be 1 to n-1, at most 32 bytes, and match the key's public point): the file is damaged or not a real key")
        }
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    deinit { EVP_PKEY_free(key) }

    /// ECDSA P-256 / SHA-256 over `message`: the DER ECDSA-Sig-Value.
    func signDER(_ message: [UInt8]) throws(GateKitError) -> [UInt8] { try ES256.signDER(message, key: key) }

    /// The same signature as JWS writes it: raw 32-byte r ‖ 32-byte s.
    func signRaw(_ message: [UInt8]) throws(GateKitError) -> [UInt8] { try ES256.signRaw(message, key: key) }
}
