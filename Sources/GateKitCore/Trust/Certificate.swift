import COpenSSL
import Glibc

/// One decoded X.509 certificate (an owned OpenSSL `X509*`).
package final class Certificate {
    let x509: OpaquePointer

    /// Decodes exactly one DER certificate; trailing bytes are an error.
    package convenience init(der: [UInt8], role: String) throws(TrustFailure) {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            Certificate.decode(UnsafeRawBufferPointer(buffer))
        }
        guard let decoded else { throw .malformedCertificate("\(role) is not a DER X.509 certificate") }
        self.init(owning: decoded)
    }

    convenience init(der: UnsafeRawBufferPointer, role: String) throws(TrustFailure) {
        guard let decoded = Certificate.decode(der) else {
            throw .malformedCertificate("\(role) is not a DER X.509 certificate")
        }
        self.init(owning: decoded)
    }

    init(owning x509: OpaquePointer) { self.x509 = x509 }

    deinit { X509_free(x509) }

    private static func decode(_ der: UnsafeRawBufferPointer) -> OpaquePointer? {
        guard let base = der.baseAddress?.assumingMemoryBound(to: UInt8.self), der.count > 0,
              der.count <= Int(Int32.max) else { return nil }
        var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
        guard let x = d2i_X509(nil, &cursor, der.count) else { ERR_clear_error(); return nil }
        guard let end = cursor, end == UnsafePointer(base) + der.count else { X509_free(x); return nil }
        return x
    }

    package var subject: String { Certificate.subject(of: x509) }

    static func subject(of x509: OpaquePointer?) -> String {
        guard let x509 else { return "(no certificate)" }
        var buffer = [CChar](repeating: 0, count: 256)
        let text = buffer.withUnsafeMutableBufferPointer { b -> String in
            guard X509_NAME_oneline(X509_get_subject_name(x509), b.baseAddress, Int32(b.count)) != nil,
                  let base = b.baseAddress else { return "(unprintable name)" }
            return String(cString: base)
        }
        return text
    }

    /// The certificate's DER encoding, as OpenSSL re-encodes it.
    static func der(of x509: OpaquePointer) -> [UInt8]? {
        let length = i2d_X509(x509, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { b -> Int32 in
            var p: UnsafeMutablePointer<UInt8>? = b.baseAddress
            return i2d_X509(x509, &p)
        }
        return written == length ? out : nil
    }

    /// notBefore / notAfter as Unix seconds.
    static func validity(of x509: OpaquePointer) -> (notBefore: Int64, notAfter: Int64)? {
        guard let nb = seconds(X509_get0_notBefore(x509)), let na = seconds(X509_get0_notAfter(x509)) else { return nil }
        return (nb, na)
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var t = tm()
        guard ASN1_TIME_to_tm(time, &t) == 1 else { return nil }
        return Int64(timegm(&t))
    }

    /// True when the certificate carries an extension with this dotted OID.
    static func hasExtension(_ x509: OpaquePointer, oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The digest NID of the certificate's own signature (NID_undef when unknown).
    static func signatureDigestNID(_ x509: OpaquePointer) -> Int32 {
        var digest: Int32 = 0
        var key: Int32 = 0
        guard OBJ_find_sigid_algs(X509_get_signature_nid(x509), &digest, &key) == 1 else { return NID_undef }
        return digest
    }
}
