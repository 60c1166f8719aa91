import COpenSSL

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
        guard let ctx = EVP_MD_CTX_new() else { throw GateKitError(.outOfMemory, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        ERR_clear_error()
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw GateKitError(.jwsSignature, "the signing key cannot verify ES256 signatures")
        }
        let result = der.withUnsafeBufferPointer { sig in
            EVP_DigestVerify(ctx, sig.baseAddress, sig.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        ERR_clear_error()
        return result == 1
    }
}
