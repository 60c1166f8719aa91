import COpenSSL
import Glibc

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
            throw GateKitError(.appStoreKey, "the key is \(pem.count) bytes; a .p8 key is a few hundred (at most \(SigningKey.maximumPEMLength))")
        }
        for (name, value) in [("key_id", keyID), ("bundle_id", bundleID)] where value.isEmpty || value.utf8.count > 1024 {
            throw .invalid("\(name) must be 1 to 1024 bytes")
        }
        if let issuerID, issuerID.isEmpty || issuerID.utf8.count > 1024 { throw .invalid("issuer_id must be 1 to 1024 bytes, or NULL") }
        ERR_clear_error()
        guard let bio = BIO_new_mem_buf(pem.baseAddress, Int32(pem.count)) else { throw GateKitError(.outOfMemory, "BIO_new_mem_buf failed") }
        defer { BIO_free(bio) }
        // No password callback: an encrypted key fails here instead of prompting on a terminal.
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            ERR_clear_error()
            throw GateKitError(.appStoreKey, "the key is not a PEM private key (\"-----BEGIN PRIVATE KEY-----\", unencrypted), as App Store Connect issues it")
        }
        guard ES256.isP256(key) else {
            EVP_PKEY_free(key)
            throw GateKitError(.appStoreKeyType, "the key is a private key but not EC P-256: App Store Connect keys are, and ES256 needs one")
        }
        guard ES256.isUsablePrivateKey(key) else {
            EVP_PKEY_free(key)
            throw GateKitError(.appStoreKey, "the key's private scalar is not one P-256 can sign with (it must be 1 to n-1, at most 32 bytes, and match the key's public point): the file is damaged or not a real key")
        }
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    deinit { EVP_PKEY_free(key) }

    /// ECDSA P-256 / SHA-256 over `message`: the DER ECDSA-Sig-Value.
    func signDER(_ message: [UInt8]) throws(GateKitError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw GateKitError(.outOfMemory, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        ERR_clear_error()
        // EVP_PKEY_get_size: the largest signature the key makes (72 bytes for P-256).
        var der = [UInt8](repeating: 0, count: Int(max(EVP_PKEY_get_size(key), 0)))
        var length = der.count
        let signed = message.withUnsafeBufferPointer { m in
            der.withUnsafeMutableBufferPointer { d -> Bool in
                EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1
                    && EVP_DigestSign(ctx, d.baseAddress, &length, m.baseAddress, m.count) == 1
            }
        }
        ERR_clear_error()
        guard signed, length > 0, length <= der.count else { throw .internalError("ECDSA signing failed") }
        der.removeLast(der.count - length)
        return der
    }

    /// The same signature as JWS writes it: raw 32-byte r ‖ 32-byte s, read from the DER
    /// SEQUENCE { INTEGER r, INTEGER s } OpenSSL made.
    func signRaw(_ message: [UInt8]) throws(GateKitError) -> [UInt8] {
        let der = try signDER(message)
        guard let raw = SigningKey.rawSignature(der) else { throw .internalError("OpenSSL made an ECDSA signature that is not DER r, s") }
        return raw
    }

    static func rawSignature(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }  // P-256: short-form lengths
        var raw = [UInt8](repeating: 0, count: ES256.signatureLength)
        var i = 2
        for k in 0..<2 {
            guard i + 2 <= der.count, der[i] == 0x02 else { return nil }
            var n = Int(der[i + 1])
            var start = i + 2
            guard n >= 1, start + n <= der.count else { return nil }
            while n > 32, der[start] == 0 {
                start += 1
                n -= 1
            }
            guard n <= 32 else { return nil }
            for j in 0..<n { raw[k * 32 + 32 - n + j] = der[start + j] }
            i = start + n
        }
        return i == der.count ? raw : nil
    }
}
