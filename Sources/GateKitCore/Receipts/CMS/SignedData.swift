/// RFC 5652 §5.1:
///
///     SignedData ::= SEQUENCE {
///       version CMSVersion,
///       digestAlgorithms DigestAlgorithmIdentifiers,      -- SET OF AlgorithmIdentifier
///       encapContentInfo EncapsulatedContentInfo,
///       certificates [0] IMPLICIT CertificateSet OPTIONAL,
///       crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///       signerInfos SignerInfos }                         -- SET OF SignerInfo
///
/// A receipt has exactly one SignerInfo and at most `maximumCertificates` certificates, each
/// a DER SEQUENCE kept as its exact bytes (trust decodes them only when needed).
struct SignedData {
    /// Apple embeds 3 (App Store) or 1 (Xcode); anything far beyond is an attempt to make us
    /// decode certificates for nothing.
    static let maximumCertificates = 8

    var payload: [UInt8]
    var certificates: [[UInt8]]
    var signer: SignerInfo

    static func parse(_ p: inout CMSParse, _ element: BERElement) throws(ReceiptParseError) -> SignedData {
        try p.expect(element, element.isSequence, "SignedData SEQUENCE")
        let fields = try p.children(element)
        guard fields.count >= 4 else { throw ReceiptParseError("SignedData has \(fields.count) fields, expected at least 4") }
        try p.expect(fields[0], fields[0].isInteger, "SignedData version")
        try p.expect(fields[1], fields[1].isSet, "digestAlgorithms SET")
        let payload = try EncapsulatedContentInfo.payload(&p, fields[2])

        var index = 3
        var certificates: [[UInt8]] = []
        if index < fields.count, fields[index].isContext(0) {
            for certificate in try p.children(fields[index]) {
                guard certificate.isSequence, !certificate.indefinite else {
                    throw ReceiptParseError("certificate at offset \(certificate.start) is not a DER SEQUENCE")
                }
                certificates.append(p.reader.raw(certificate))
                guard certificates.count <= maximumCertificates else {
                    throw ReceiptParseError("more than \(maximumCertificates) certificates embedded")
                }
            }
            index += 1
        }
        if index < fields.count, fields[index].isContext(1) { index += 1 }  // crls: unused
        guard index == fields.count - 1 else { throw ReceiptParseError("unexpected fields in SignedData") }
        try p.expect(fields[index], fields[index].isSet, "signerInfos SET")
        let signers = try p.children(fields[index])
        guard signers.count == 1 else { throw ReceiptParseError("\(signers.count) SignerInfos; exactly one is required") }
        return SignedData(payload: payload, certificates: certificates, signer: try SignerInfo.parse(&p, signers[0]))
    }
}
