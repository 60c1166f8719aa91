import COpenSSL
import GateKitCrypto
import GateKitSupport

/// Issues the X.509 certificates of a test PKI with OpenSSL: P-256 keys, ecdsa-with-SHA256,
/// the extensions Apple's StoreKit 2 chain carries. Tests only: nothing here is trusted unless
/// a caller names the root as its test anchor.
struct TestCertificate {
    /// The certificate (`X509 *`) and its key (`EVP_PKEY *`), both owned.
    let x509: OpaquePointer
    let key: OpaquePointer

    enum Role {
        case root
        case intermediate
        case leaf
    }

    /// Apple's marker extensions (docs/apple-receipts.md): the WWDR intermediate's and the
    /// App Store signing leaf's. The verifier requires them; the value is a DER NULL.
    static let intermediateOID = "1.2.840.113635.100.6.2.1"
    static let leafOID = "1.2.840.113635.100.6.11.1"

    /// Valid from 2000-01-01 to 2100-01-01: signed data is checked at its own signedDate, so a
    /// test's timeline may use any date of a subscription's life.
    static let notBefore: time_t = 946_684_800
    static let notAfter: time_t = 4_102_444_800

    /// A new key and a certificate for it: self-signed for `.root`, else signed by `issuer`.
    init(role: Role, commonName: String, serial: Int, issuer: TestCertificate?) throws(GateKitError) {
        key = try TestCertificate.newP256Key()
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw GateKitError(.ENOMEM, "X509_new failed")
        }
        self.x509 = x509
        do {
            try build(role: role, commonName: commonName, serial: serial, issuer: issuer)
        } catch {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw error
        }
    }

    func free() {
        X509_free(x509)
        EVP_PKEY_free(key)
    }

    var der: [UInt8] {
        get throws(GateKitError) {
            let size = i2d_X509(x509, nil)
            guard size > 0 else { throw .internalError("i2d_X509 failed") }
            var out = [UInt8](repeating: 0, count: Int(size))
            let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var p = buffer.baseAddress
                return i2d_X509(x509, &p)
            }
            guard written == size else { throw .internalError("i2d_X509 wrote \(written) of \(size) bytes") }
            return out
        }
    }

    /// The private key as PKCS#8 PEM ("BEGIN PRIVATE KEY"), unencrypted.
    var privateKeyPEM: [UInt8] {
        get throws(GateKitError) {
            try PEMWriter.text("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        }
    }

    private static func newP256Key() throws(GateKitError) -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw GateKitError(.ENOMEM, "EVP_PKEY_CTX_new_from_name failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else {
            ERR_clear_error()
            throw .internalError("P-256 key generation failed")
        }
        return key
    }

    private func build(role: Role, commonName: String, serial: Int, issuer: TestCertificate?) throws(GateKitError) {
        guard X509_set_version(x509, 2) == 1,  // X.509 v3
              ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), TestCertificate.notBefore) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), TestCertificate.notAfter) != nil,
              X509_set_pubkey(x509, key) == 1 else { throw failure("the certificate's fields") }
        guard let name = X509_NAME_new() else { throw GateKitError(.ENOMEM, "X509_NAME_new failed") }
        defer { X509_NAME_free(name) }
        for (field, value) in [("CN", commonName), ("O", "GateKit Tests (not Apple)")] {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else { throw failure("the subject name") }
        }
        guard X509_set_subject_name(x509, name) == 1,
              X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.x509) } ?? name) == 1 else { throw failure("the names") }

        var ctx = X509V3_CTX()
        X509V3_set_ctx(&ctx, issuer?.x509 ?? x509, x509, nil, nil, 0)
        let ca = "critical,CA:TRUE" + (role == .intermediate ? ",pathlen:0" : "")
        var extensions: [(Int32, String)] = [
            (NID_basic_constraints, role == .leaf ? "critical,CA:FALSE" : ca),
            (NID_key_usage, role == .leaf ? "critical,digitalSignature" : "critical,keyCertSign,cRLSign"),
            (NID_subject_key_identifier, "hash"),
        ]
        if role != .root { extensions.append((NID_authority_key_identifier, "keyid:always")) }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &ctx, nid, value) else { throw failure("extension \(nid)") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw failure("extension \(nid)") }
        }
        switch role {
        case .root: break
        case .intermediate: try addMarker(TestCertificate.intermediateOID)
        case .leaf: try addMarker(TestCertificate.leafOID)
        }
        guard X509_sign(x509, issuer?.key ?? key, EVP_sha256()) > 0 else { throw failure("the signature") }
    }

    /// A non-critical extension whose value is a DER NULL, as Apple's marker extensions are.
    private func addMarker(_ oid: String) throws(GateKitError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw failure("OID \(oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw GateKitError(.ENOMEM, "ASN1_OCTET_STRING_new failed") }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        guard ASN1_OCTET_STRING_set(value, null, Int32(null.count)) == 1,
              let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value) else { throw failure("extension \(oid)") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else { throw failure("extension \(oid)") }
    }

    private func failure(_ what: String) -> GateKitError {
        ERR_clear_error()
        return .internalError("OpenSSL could not set \(what) of a test certificate")
    }
}
