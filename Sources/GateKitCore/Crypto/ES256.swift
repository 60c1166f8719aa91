import COpenSSL
import GateKitSupport

/// ECDSA P-256 with SHA-256 as JWS writes it (RFC 7518 §3.4): the signature is the raw
/// 32-byte big-endian r followed by the 32-byte s, which OpenSSL wants as a DER ECDSA-Sig-Value.
public enum ES256 {
    public static let signatureLength = 64

    /// Converts raw r‖s into DER. Nil when the input is not 64 bytes or OpenSSL refuses it.
    public static func derSignature<C: Collection>(raw: C) -> [UInt8]? where C.Element == UInt8 {
        guard raw.count == signatureLength else { return nil }
        let bytes = Array(raw)
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let size = i2d_ECDSA_SIG(sig, nil)
        guard size > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(size))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var p = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &p)
        }
        return written == size ? der : nil
    }

    /// True when `key` is an EC key on P-256 (ES256 allows no other curve).
    public static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    /// The order n of P-256's group: a private scalar d must be 1 ≤ d < n.
    static let p256Order: [UInt8] = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551") ?? []

    /// Whether a P-256 private key's scalar is one ECDSA can use (1 ≤ d < n, at most 32 bytes)
    /// and, where the key carries its public point, that the point is d·G: a key outside this
    /// loads in OpenSSL and signs junk.
    public static func isUsablePrivateKey(_ key: OpaquePointer) -> Bool {
        var d: OpaquePointer?
        // "priv" is OSSL_PKEY_PARAM_PRIV_KEY (a macro Swift cannot import).
        guard EVP_PKEY_get_bn_param(key, "priv", &d) == 1, let d else { ERR_clear_error(); return false }
        defer { BN_clear_free(d) }
        guard let n = BN_bin2bn(p256Order, Int32(p256Order.count), nil) else { return false }
        defer { BN_free(n) }
        guard BN_is_zero(d) == 0, BN_is_negative(d) == 0, BN_cmp(d, n) < 0, BN_num_bits(d) <= 256 else { return false }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        let sound = EVP_PKEY_private_check(ctx) == 1 && EVP_PKEY_pairwise_check(ctx) == 1
        ERR_clear_error()
        return sound
    }

    /// Verifies a raw r‖s signature over `message` with an EC P-256 public key (`EVP_PKEY *`).
    public static func verify(rawSignature: [UInt8], message: UnsafeRawBufferPointer, key: OpaquePointer) throws(GateKitError) -> Bool {
        guard let der = derSignature(raw: rawSignature) else { return false }
        guard let ctx = EVP_MD_CTX_new() else { throw GateKitError(.ENOMEM, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        ERR_clear_error()
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw GateKitError(.EJWS_SIGNATURE, "the signing key cannot verify ES256 signatures")
        }
        let result = der.withUnsafeBufferPointer { sig in
            EVP_DigestVerify(ctx, sig.baseAddress, sig.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        ERR_clear_error()
        return result == 1
    }

    /// Why a PEM private key cannot sign ES256.
    public enum KeyProblem: Error {
        case notPEM      // not an unencrypted PEM private key
        case notP256     // a private key of another type or curve
        case unusable    // a P-256 key whose scalar or public point is wrong
    }

    /// Loads an unencrypted PEM private key (PKCS#8, or SEC1 "EC PRIVATE KEY") that can sign
    /// ES256. The caller owns the `EVP_PKEY *` (EVP_PKEY_free).
    public static func privateKey(pem: UnsafeRawBufferPointer) -> Result<OpaquePointer, KeyProblem> {
        ERR_clear_error()
        guard pem.count > 0, pem.count <= Int(Int32.max), let bio = BIO_new_mem_buf(pem.baseAddress, Int32(pem.count)) else { return .failure(.notPEM) }
        defer { BIO_free(bio) }
        // No password callback: an encrypted key fails here instead of prompting on a terminal.
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            ERR_clear_error()
            return .failure(.notPEM)
        }
        guard isP256(key) else {
            EVP_PKEY_free(key)
            return .failure(.notP256)
        }
        guard isUsablePrivateKey(key) else {
            EVP_PKEY_free(key)
            return .failure(.unusable)
        }
        return .success(key)
    }

    /// ECDSA P-256 / SHA-256 over `message` with a private `EVP_PKEY *`: the DER ECDSA-Sig-Value.
    public static func signDER(_ message: [UInt8], key: OpaquePointer) throws(GateKitError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw GateKitError(.ENOMEM, "EVP_MD_CTX_new failed") }
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
    public static func signRaw(_ message: [UInt8], key: OpaquePointer) throws(GateKitError) -> [UInt8] {
        let der = try signDER(message, key: key)
        guard let raw = rawSignature(der) else { throw .internalError("OpenSSL made an ECDSA signature that is not DER r, s") }
        return raw
    }

    static func rawSignature(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }  // P-256: short-form lengths
        var raw = [UInt8](repeating: 0, count: signatureLength)
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
