import COpenSSL
import Glibc

/// An App Store Connect private key — the `.p8` file Apple issues: PKCS#8 PEM, EC P-256 — with
/// the ids Apple's signed requests carry. Immutable; signing from many threads at once is safe
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
        var length = 0
        let ok = message.withUnsafeBufferPointer { m -> Bool in
            guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1,
                  EVP_DigestSign(ctx, nil, &length, m.baseAddress, m.count) == 1 else { return false }
            return true
        }
        guard ok, length > 0 else {
            ERR_clear_error()
            throw .internalError("ECDSA signing failed")
        }
        var der = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { m in
            der.withUnsafeMutableBufferPointer { d in EVP_DigestSign(ctx, d.baseAddress, &length, m.baseAddress, m.count) }
        }
        ERR_clear_error()
        guard signed == 1 else { throw .internalError("ECDSA signing failed") }
        return Array(der.prefix(length))
    }

    /// The same signature as JWS writes it: raw 32-byte r ‖ 32-byte s.
    func signRaw(_ message: [UInt8]) throws(GateKitError) -> [UInt8] {
        let der = try signDER(message)
        var p: UnsafePointer<UInt8>? = nil
        let sig: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            p = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &p, buffer.count)
        }
        guard let sig else { throw .internalError("OpenSSL made an ECDSA signature it cannot read back") }
        defer { ECDSA_SIG_free(sig) }
        var raw = [UInt8](repeating: 0, count: ES256.signatureLength)
        let ok = raw.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = out.baseAddress else { return false }
            return BN_bn2binpad(ECDSA_SIG_get0_r(sig), base, 32) == 32 && BN_bn2binpad(ECDSA_SIG_get0_s(sig), base + 32, 32) == 32
        }
        guard ok else { throw .internalError("an ECDSA signature component does not fit 32 bytes") }
        return raw
    }
}
