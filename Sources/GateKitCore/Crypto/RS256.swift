import COpenSSL
import GateKitSupport

/// An RSA key held as OpenSSL's `EVP_PKEY *`, freed with this object. Immutable; signing and
/// verifying from many threads at once is safe (each operation has its own context).
public final class RSAKey: @unchecked Sendable {
    let key: OpaquePointer
    /// Modulus size in bits.
    public let bits: Int

    /// RSA keys under 2048 bits are refused (NIST SP 800-131A; Google's are 2048).
    public static let minimumBits = 2048
    /// Keys over 8192 bits cost seconds to verify: a key set could be a denial of service.
    public static let maximumBits = 8192

    private init(_ key: OpaquePointer) {
        self.key = key
        bits = Int(EVP_PKEY_get_bits(key))
    }

    deinit { EVP_PKEY_free(key) }

    /// A public key from a JWK's `n` and `e` (big-endian unsigned bytes). Nil when OpenSSL
    /// refuses them, the size is outside 2048...8192 bits, or e is not an odd number above 1.
    public static func publicKey(modulus: [UInt8], exponent: [UInt8]) -> RSAKey? {
        guard !modulus.isEmpty, modulus.count <= maximumBits / 8 + 1, (1...8).contains(exponent.count) else { return nil }
        let e64 = exponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard e64 >= 3, e64 & 1 == 1 else { return nil }
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        let n = modulus.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let e = exponent.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        defer { BN_free(n); BN_free(e) }
        guard let n, let e, gk_param_bld_push_rsa_public(builder, n, e) == 1, let params = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var made: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &made, gk_evp_pkey_public_key_selection(), params) == 1, let made else { return nil }
        let key = RSAKey(made)
        return (minimumBits...maximumBits).contains(key.bits) ? key : nil
    }

    /// Why a PEM private key cannot sign RS256.
    public enum KeyProblem: Error {
        case notPEM   // not an unencrypted PEM private key
        case notRSA   // a private key of another type
        case size     // RSA, but under 2048 or over 8192 bits
    }

    /// An unencrypted PEM private key (PKCS#8 "PRIVATE KEY", or "RSA PRIVATE KEY").
    public static func privateKey(pem: [UInt8]) -> Result<RSAKey, KeyProblem> {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard !pem.isEmpty, pem.count <= Int(Int32.max) else { return .failure(.notPEM) }
        let loaded: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // No password callback: an encrypted key fails here instead of prompting on a terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let loaded else { return .failure(.notPEM) }
        guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_RSA else {
            EVP_PKEY_free(loaded)
            return .failure(.notRSA)
        }
        let key = RSAKey(loaded)
        return (minimumBits...maximumBits).contains(key.bits) ? .success(key) : .failure(.size)
    }

    /// A fresh key pair (test data only).
    public static func generate(bits: Int = 2048) throws(GateKitError) -> RSAKey {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw GateKitError(.ENOMEM, "EVP_PKEY_CTX_new_from_name failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
              EVP_PKEY_generate(ctx, &made) == 1, let made else { throw .internalError("RSA key generation failed") }
        return RSAKey(made)
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS "RS256", RFC 7518 §3.3) over `message`.
    public func sign(_ message: [UInt8]) throws(GateKitError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw GateKitError(.ENOMEM, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        ERR_clear_error()
        defer { ERR_clear_error() }
        var signature = [UInt8](repeating: 0, count: Int(max(EVP_PKEY_get_size(key), 0)))
        var length = signature.count
        let signed = message.withUnsafeBufferPointer { m in
            signature.withUnsafeMutableBufferPointer { s -> Bool in
                EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1
                    && EVP_DigestSign(ctx, s.baseAddress, &length, m.baseAddress, m.count) == 1
            }
        }
        guard signed, length == signature.count else { throw .internalError("RSA signing failed (is the key private?)") }
        return signature
    }

    /// Whether `signature` is this key's RS256 signature over `message`. A signature whose
    /// length is not the modulus's is false without asking OpenSSL (RFC 8017 §8.2.2 step 1).
    public func verify(signature: [UInt8], message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == (bits + 7) / 8, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { s in
            EVP_DigestVerify(ctx, s.baseAddress, s.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        } == 1
    }

    /// The public key's `n` and `e`, big-endian (a JWK writes them base64url).
    public func publicComponents() -> (modulus: [UInt8], exponent: [UInt8])? {
        func component(_ name: String) -> [UInt8]? {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { ERR_clear_error(); return nil }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(bn) + 7) / 8))
            let written = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(bn, $0.baseAddress) }
            return Int(written) == bytes.count ? bytes : nil
        }
        guard let n = component("n"), let e = component("e") else { return nil }
        return (n, e)
    }

    /// The private key as unencrypted PKCS#8 PEM (test data only).
    public func privateKeyPEM() throws(GateKitError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw GateKitError(.ENOMEM, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            ERR_clear_error()
            throw .internalError("PEM_write_bio_PKCS8PrivateKey failed")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { throw .internalError("an empty PEM") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }
}
