/// RFC 5280 §4.1, as far as a SignerInfo's issuerAndSerialNumber needs to find its certificate:
///
///     Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, ... }
///     TBSCertificate ::= SEQUENCE {
///       version [0] EXPLICIT Version DEFAULT v1,
///       serialNumber CertificateSerialNumber,             -- INTEGER
///       signature AlgorithmIdentifier,
///       issuer Name,                                      -- SEQUENCE
///       ... }
enum CertificateIdentity {
    /// The issuer Name DER and serial INTEGER content of a certificate, borrowed from `der`.
    static func issuerAndSerial(of der: UnsafeRawBufferPointer) throws(ReceiptParseError) -> (issuer: UnsafeRawBufferPointer, serial: UnsafeRawBufferPointer) {
        let r = BERReader(der)
        let certificate = try r.element(at: 0, limit: der.count)
        guard certificate.isSequence else { throw ReceiptParseError("certificate is not a SEQUENCE") }
        let tbs = try r.element(at: certificate.contentStart, limit: certificate.contentEnd)
        guard tbs.isSequence else { throw ReceiptParseError("TBSCertificate is not a SEQUENCE") }
        var e = try r.element(at: tbs.contentStart, limit: tbs.contentEnd)
        if e.isContext(0) {  // [0] version
            e = try r.element(at: e.end, limit: tbs.contentEnd)
        }
        guard e.isInteger else { throw ReceiptParseError("serialNumber expected") }
        let algorithm = try r.element(at: e.end, limit: tbs.contentEnd)
        let issuer = try r.element(at: algorithm.end, limit: tbs.contentEnd)
        guard issuer.isSequence else { throw ReceiptParseError("issuer Name expected") }
        return (UnsafeRawBufferPointer(rebasing: der[issuer.start..<issuer.end]), r.content(e))
    }
}
