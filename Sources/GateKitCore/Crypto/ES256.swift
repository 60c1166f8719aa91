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
