import GateKitCrypto

/// RFC 5652 §5.3:
///
///     SignerInfo ::= SEQUENCE {
///       version CMSVersion,                               -- 1: sid is issuerAndSerialNumber
///       sid SignerIdentifier,
///       digestAlgorithm DigestAlgorithmIdentifier,
///       signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL,   -- never in Apple receipts
///       signatureAlgorithm SignatureAlgorithmIdentifier,
///       signature SignatureValue,                         -- OCTET STRING
///       unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
///
///     SignerIdentifier ::= CHOICE {
///       issuerAndSerialNumber IssuerAndSerialNumber,
///       subjectKeyIdentifier [0] SubjectKeyIdentifier }
///
///     IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber CertificateSerialNumber }
///
/// Apple signs with RSA over SHA-1 or SHA-256 and version 1 signer ids; anything else parses
/// (for inspection) but is a refusal.
struct SignerInfo {
    /// The signer's issuer Name (full DER) and serial number (INTEGER content); empty for a
    /// subjectKeyIdentifier signer id (refused).
    var issuer: [UInt8] = []
    var serial: [UInt8] = []
    var digest = DigestAlgorithm.sha256
    /// The digest algorithm's name: "sha1", "sha256", or the OID of one Apple does not use
    /// (made only then: text costs more than the rest of the SignerInfo).
    var digestName = "sha256"
    var signatureAlgorithm = ""
    var signature: [UInt8] = []

    static func parse(_ p: inout CMSParse, _ element: BERElement) throws(ReceiptParseError) -> SignerInfo {
        try p.expect(element, element.isSequence, "SignerInfo SEQUENCE")
        let s = try p.children(element)
        guard s.count >= 5 else { throw ReceiptParseError("SignerInfo has \(s.count) fields") }
        var info = SignerInfo()
        let r = p.reader

        try p.expect(s[0], s[0].isInteger, "SignerInfo version")
        if r.int64(s[0]) != 1 {
            try p.refuse(ReceiptParseError("SignerInfo version \(r.int64(s[0]).map(String.init) ?? "?") (subjectKeyIdentifier signer ids are not supported)",
                                           kind: .unsupportedAlgorithm))
        }
        if !(p.lenient && s[1].isContext(0)) {  // a subjectKeyIdentifier (refused above) has nothing to match
            try p.expect(s[1], s[1].isSequence, "issuerAndSerialNumber")
            let sid = try p.children(s[1])
            guard sid.count == 2, sid[0].isSequence, sid[1].isInteger else {
                throw ReceiptParseError("issuerAndSerialNumber is not {Name, INTEGER}")
            }
            info.issuer = r.raw(sid[0])
            info.serial = Array(r.content(sid[1]))
        }

        try p.expect(s[2], s[2].isSequence, "digestAlgorithm")
        let digestFields = try p.children(s[2])
        guard let digestOID = digestFields.first, digestOID.isObjectIdentifier else {
            throw ReceiptParseError("digestAlgorithm has no OID")
        }
        if r.contentEquals(digestOID, CMSObjectIdentifier.sha1) {
            info.digest = .sha1
            info.digestName = "sha1"
        } else if !r.contentEquals(digestOID, CMSObjectIdentifier.sha256) {
            info.digestName = r.oidText(digestOID)
            try p.refuse(ReceiptParseError("digest algorithm \(info.digestName) (only SHA-1 and SHA-256 are used by Apple)",
                                           kind: .unsupportedAlgorithm))
        }

        var next = 3
        if s[next].isContext(0) {
            try p.refuse(ReceiptParseError("the SignerInfo carries signed attributes; Apple receipts sign the payload directly",
                                           kind: .signedAttributes))
            next += 1
            guard next < s.count else { throw ReceiptParseError("SignerInfo ends after its signed attributes") }
        }

        try p.expect(s[next], s[next].isSequence, "signatureAlgorithm")
        let algorithm = try p.children(s[next])
        guard let signatureOID = algorithm.first, signatureOID.isObjectIdentifier else {
            throw ReceiptParseError("signatureAlgorithm has no OID")
        }
        if r.contentEquals(signatureOID, CMSObjectIdentifier.rsaEncryption) {
            info.signatureAlgorithm = "rsaEncryption"
        } else if r.contentEquals(signatureOID, CMSObjectIdentifier.sha1WithRSA), info.digest == .sha1 {
            info.signatureAlgorithm = "sha1WithRSAEncryption"
        } else if r.contentEquals(signatureOID, CMSObjectIdentifier.sha256WithRSA), info.digest == .sha256 {
            info.signatureAlgorithm = "sha256WithRSAEncryption"
        } else {
            info.signatureAlgorithm = r.oidText(signatureOID)
            try p.refuse(ReceiptParseError("signature algorithm \(info.signatureAlgorithm) with digest \(info.digestName)",
                                           kind: .unsupportedAlgorithm))
        }

        next += 1
        guard next < s.count, s[next].isOctetString else {
            throw ReceiptParseError("SignerInfo signature OCTET STRING expected")
        }
        info.signature = try r.octets(s[next])
        next += 1
        if next < s.count {
            guard s[next].isContext(1), next == s.count - 1 else { throw ReceiptParseError("unexpected fields after the signature") }
        }
        return info
    }
}
