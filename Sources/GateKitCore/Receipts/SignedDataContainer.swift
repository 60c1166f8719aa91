import Glibc

/// The parts of a PKCS#7 / CMS SignedData receipt that validation needs, parsed by our own
/// BER reader (so repeated receipts need no certificate decoding when the chain is cached).
///
/// Accepted shape (RFC 2315/5652, as Apple and Xcode produce it): ContentInfo{signedData,
/// [0] SignedData{version, digestAlgorithms, encapContentInfo{data, [0] OCTET STRING (primitive or
/// constructed)}, [0] certificates?, [1] crls?, signerInfos SET OF exactly one SignerInfo}}.
struct SignedDataContainer {
    enum Failure: Error {
        case malformed(String)
        case unsupportedAlgorithm(String)
        case signedAttributes(String)
    }

    var payload: [UInt8]
    /// DER of every embedded certificate, in order.
    var certificates: [[UInt8]]
    var digest: DigestAlgorithm
    var signatureAlgorithm: String
    var signature: [UInt8]
    /// Signer identifier: the issuer Name (full DER) and serial number (INTEGER content).
    var signerIssuer: [UInt8]
    var signerSerial: [UInt8]
    /// True when any element used BER's indefinite length (Xcode receipts).
    var usesIndefiniteLength: Bool
    /// The digest algorithm's OID as written (for inspection).
    var digestOID: String
    /// Why validation refuses this SignedData although it parses (signed attributes, an
    /// algorithm Apple does not use), in the order found. Only a lenient parse returns a
    /// container with refusals; a strict one throws the first.
    var refusals: [Failure] = []

    /// Apple embeds 3 (App Store) or 1 (Xcode); anything far beyond is an attempt to make us
    /// decode certificates for nothing.
    static let maximumCertificates = 8

    static let oidSignedData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let oidData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let oidSHA1: [UInt8] = [0x2B, 0x0E, 0x03, 0x02, 0x1A]
    static let oidSHA256: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    static let oidRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let oidSHA1WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05]
    static let oidSHA256WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]

    /// Parses `input`; `lenient` (inspection only) records refusals instead of throwing them.
    static func parse(_ input: UnsafeRawBufferPointer, lenient: Bool = false) throws(Failure) -> SignedDataContainer {
        do {
            return try parseOrThrow(input, lenient: lenient)
        } catch let e as BERError {
            throw .malformed(e.message)
        } catch let f as Failure {
            throw f
        } catch {
            throw .malformed("\(error)")
        }
    }

    private static func parseOrThrow(_ input: UnsafeRawBufferPointer, lenient: Bool) throws -> SignedDataContainer {
        let r = BERReader(input)
        var indefinite = false
        var refusals: [Failure] = []
        func refuse(_ f: Failure) throws {
            guard lenient else { throw f }
            refusals.append(f)
        }
        func expect(_ e: BERElement, universal number: UInt32, constructed: Bool, _ what: String) throws {
            guard e.isUniversal(number, constructed: constructed) else {
                throw Failure.malformed("\(what) expected at offset \(e.start)")
            }
            if e.indefinite { indefinite = true }
        }
        func children(_ e: BERElement, _ what: String) throws -> [BERElement] {
            if e.indefinite { indefinite = true }
            return try r.children(of: e)
        }

        guard input.count > 0 else { throw Failure.malformed("empty input") }
        let contentInfo = try r.element(at: 0, limit: input.count)
        try expect(contentInfo, universal: 16, constructed: true, "ContentInfo SEQUENCE")
        guard contentInfo.end == input.count else {
            throw Failure.malformed("\(input.count - contentInfo.end) bytes of trailing garbage after the SignedData")
        }
        let info = try children(contentInfo, "ContentInfo")
        guard info.count == 2 else { throw Failure.malformed("ContentInfo has \(info.count) fields, expected 2") }
        try expect(info[0], universal: 6, constructed: false, "contentType OID")
        guard r.contentEquals(info[0], oidSignedData) else {
            throw Failure.malformed("contentType is \(r.oidText(info[0])), not signedData (1.2.840.113549.1.7.2)")
        }
        guard info[1].isContext(0), info[1].constructed else { throw Failure.malformed("[0] content expected") }
        let wrapped = try children(info[1], "[0] content")
        guard wrapped.count == 1 else { throw Failure.malformed("[0] content must hold one SignedData") }
        let signedData = wrapped[0]
        try expect(signedData, universal: 16, constructed: true, "SignedData SEQUENCE")
        let fields = try children(signedData, "SignedData")
        guard fields.count >= 4 else { throw Failure.malformed("SignedData has \(fields.count) fields, expected at least 4") }
        try expect(fields[0], universal: 2, constructed: false, "SignedData version")
        try expect(fields[1], universal: 17, constructed: true, "digestAlgorithms SET")
        try expect(fields[2], universal: 16, constructed: true, "encapContentInfo SEQUENCE")

        // encapContentInfo: data + embedded payload.
        let encap = try children(fields[2], "encapContentInfo")
        guard encap.count == 2 else { throw Failure.malformed("the receipt has no embedded payload (detached signature)") }
        try expect(encap[0], universal: 6, constructed: false, "eContentType OID")
        guard r.contentEquals(encap[0], oidData) else {
            throw Failure.malformed("eContentType is \(r.oidText(encap[0])), not data (1.2.840.113549.1.7.1)")
        }
        guard encap[1].isContext(0), encap[1].constructed else { throw Failure.malformed("[0] eContent expected") }
        let eContent = try children(encap[1], "[0] eContent")
        guard eContent.count == 1, eContent[0].tagClass == BERElement.universal, eContent[0].tagNumber == 4 else {
            throw Failure.malformed("eContent must be one OCTET STRING")
        }
        if eContent[0].indefinite || eContent[0].constructed { indefinite = indefinite || eContent[0].indefinite }
        let payload = try r.octets(eContent[0])

        // Optional certificates [0] and crls [1], then signerInfos.
        var index = 3
        var certificates: [[UInt8]] = []
        if index < fields.count, fields[index].isContext(0) {
            for cert in try children(fields[index], "certificates") {
                guard cert.isUniversal(16, constructed: true), !cert.indefinite else {
                    throw Failure.malformed("certificate at offset \(cert.start) is not a DER SEQUENCE")
                }
                certificates.append(r.raw(cert))
                guard certificates.count <= maximumCertificates else {
                    throw Failure.malformed("more than \(maximumCertificates) certificates embedded")
                }
            }
            index += 1
        }
        if index < fields.count, fields[index].isContext(1) { index += 1 }
        guard index == fields.count - 1 else { throw Failure.malformed("unexpected fields in SignedData") }
        try expect(fields[index], universal: 17, constructed: true, "signerInfos SET")
        let signers = try children(fields[index], "signerInfos")
        guard signers.count == 1 else { throw Failure.malformed("\(signers.count) SignerInfos; exactly one is required") }
        try expect(signers[0], universal: 16, constructed: true, "SignerInfo SEQUENCE")
        let s = try children(signers[0], "SignerInfo")
        guard s.count >= 5 else { throw Failure.malformed("SignerInfo has \(s.count) fields") }
        try expect(s[0], universal: 2, constructed: false, "SignerInfo version")
        if r.int64(s[0]) != 1 {
            try refuse(.unsupportedAlgorithm("SignerInfo version \(r.int64(s[0]).map(String.init) ?? "?") (subjectKeyIdentifier signer ids are not supported)"))
        }
        var signerIssuer: [UInt8] = [], signerSerial: [UInt8] = []
        if lenient && s[1].isContext(0) {
            // A subjectKeyIdentifier signer id (already refused above): nothing to match.
        } else {
            try expect(s[1], universal: 16, constructed: true, "issuerAndSerialNumber")
            let sid = try children(s[1], "issuerAndSerialNumber")
            guard sid.count == 2, sid[0].isUniversal(16, constructed: true), sid[1].isUniversal(2, constructed: false) else {
                throw Failure.malformed("issuerAndSerialNumber is not {Name, INTEGER}")
            }
            signerIssuer = r.raw(sid[0])
            signerSerial = Array(r.content(sid[1]))
        }
        try expect(s[2], universal: 16, constructed: true, "digestAlgorithm")
        let digestOID = try children(s[2], "digestAlgorithm")
        guard let digestOIDElement = digestOID.first, digestOIDElement.isUniversal(6, constructed: false) else {
            throw Failure.malformed("digestAlgorithm has no OID")
        }
        var digest = DigestAlgorithm.sha256
        if r.contentEquals(digestOIDElement, oidSHA1) { digest = .sha1 }
        else if !r.contentEquals(digestOIDElement, oidSHA256) {
            try refuse(.unsupportedAlgorithm("digest algorithm \(r.oidText(digestOIDElement)) (only SHA-1 and SHA-256 are used by Apple)"))
        }

        var next = 3
        if s[next].isContext(0) {
            try refuse(.signedAttributes("the SignerInfo carries signed attributes; Apple receipts sign the payload directly"))
            next += 1
            guard next < s.count else { throw Failure.malformed("SignerInfo ends after its signed attributes") }
        }
        try expect(s[next], universal: 16, constructed: true, "signatureAlgorithm")
        let sigAlg = try children(s[next], "signatureAlgorithm")
        guard let sigOID = sigAlg.first, sigOID.isUniversal(6, constructed: false) else {
            throw Failure.malformed("signatureAlgorithm has no OID")
        }
        var signatureAlgorithm: String
        if r.contentEquals(sigOID, oidRSA) { signatureAlgorithm = "rsaEncryption" }
        else if r.contentEquals(sigOID, oidSHA1WithRSA), digest == .sha1 { signatureAlgorithm = "sha1WithRSAEncryption" }
        else if r.contentEquals(sigOID, oidSHA256WithRSA), digest == .sha256 { signatureAlgorithm = "sha256WithRSAEncryption" }
        else {
            signatureAlgorithm = r.oidText(sigOID)
            try refuse(.unsupportedAlgorithm("signature algorithm \(signatureAlgorithm) with digest \(r.oidText(digestOIDElement))"))
        }
        next += 1
        guard next < s.count, s[next].tagClass == BERElement.universal, s[next].tagNumber == 4 else {
            throw Failure.malformed("SignerInfo signature OCTET STRING expected")
        }
        let signature = try r.octets(s[next])
        next += 1
        if next < s.count {
            guard s[next].isContext(1), next == s.count - 1 else { throw Failure.malformed("unexpected fields after the signature") }
        }
        return SignedDataContainer(
            payload: payload, certificates: certificates, digest: digest, signatureAlgorithm: signatureAlgorithm,
            signature: signature, signerIssuer: signerIssuer, signerSerial: signerSerial,
            usesIndefiniteLength: indefinite, digestOID: r.oidText(digestOIDElement), refusals: refusals)
    }

    /// "sha1", "sha256", or the OID of a digest Apple does not use.
    var digestName: String {
        switch digestOID {
        case "1.3.14.3.2.26": "sha1"
        case "2.16.840.1.101.3.4.2.1": "sha256"
        default: digestOID
        }
    }

    /// Index of the certificate named by the SignerInfo (issuer Name and serial number), if any.
    func signerCertificateIndex() -> Int? {
        for (i, der) in certificates.enumerated() {
            let matches: Bool = der.withUnsafeBytes { raw in
                guard let id = try? SignedDataContainer.issuerAndSerial(of: raw) else { return false }
                return SignedDataContainer.equal(id.issuer, signerIssuer) && SignedDataContainer.equal(id.serial, signerSerial)
            }
            if matches { return i }
        }
        return nil
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return b.withUnsafeBytes { bb in
            guard let x = a.baseAddress, let y = bb.baseAddress else { return a.count == 0 }
            return memcmp(x, y, a.count) == 0
        }
    }

    /// Issuer Name DER and serial INTEGER content of a certificate (TBSCertificate fields),
    /// borrowed from `der`.
    static func issuerAndSerial(of der: UnsafeRawBufferPointer) throws(BERError) -> (issuer: UnsafeRawBufferPointer, serial: UnsafeRawBufferPointer) {
        let r = BERReader(der)
        let cert = try r.element(at: 0, limit: der.count)
        guard cert.isUniversal(16, constructed: true) else { throw BERError("certificate is not a SEQUENCE") }
        let tbs = try r.element(at: cert.contentStart, limit: cert.contentEnd)
        guard tbs.isUniversal(16, constructed: true) else { throw BERError("TBSCertificate is not a SEQUENCE") }
        var e = try r.element(at: tbs.contentStart, limit: tbs.contentEnd)
        if e.isContext(0) {  // [0] version
            e = try r.element(at: e.end, limit: tbs.contentEnd)
        }
        guard e.isUniversal(2, constructed: false) else { throw BERError("serialNumber expected") }
        let algorithm = try r.element(at: e.end, limit: tbs.contentEnd)
        let issuer = try r.element(at: algorithm.end, limit: tbs.contentEnd)
        guard issuer.isUniversal(16, constructed: true) else { throw BERError("issuer Name expected") }
        return (UnsafeRawBufferPointer(rebasing: der[issuer.start..<issuer.end]), r.content(e))
    }
}
