import Glibc
import GateKitCrypto

/// What validation needs of a receipt's PKCS#7 / CMS SignedData, parsed by our own BER reader
/// (so repeated receipts need no certificate decoding when the chain is cached). Each ASN.1
/// type has its own parser with its grammar (CMS/): ContentInfo → SignedData →
/// EncapsulatedContentInfo + SignerInfo.
///
/// Accepted shape (RFC 2315/5652, as Apple and Xcode produce it): ContentInfo{signedData,
/// [0] SignedData{version, digestAlgorithms, encapContentInfo{data, [0] OCTET STRING (primitive or
/// constructed)}, [0] certificates?, [1] crls?, signerInfos SET OF exactly one SignerInfo}}.
struct SignedDataContainer {
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
    /// "sha1", "sha256", or the OID of a digest Apple does not use (for inspection).
    var digestName: String
    /// Why validation refuses this SignedData although it parses (signed attributes, an
    /// algorithm Apple does not use), in the order found. Only a lenient parse returns a
    /// container with refusals; a strict one throws the first.
    var refusals: [ReceiptParseError] = []

    /// Parses `input`; `lenient` (inspection only) records refusals instead of throwing them.
    static func parse(_ input: UnsafeRawBufferPointer, lenient: Bool = false) throws(ReceiptParseError) -> SignedDataContainer {
        var p = CMSParse(input, lenient: lenient)
        let element = try ContentInfo.signedData(&p, inputCount: input.count)
        let signedData = try SignedData.parse(&p, element)
        let signer = signedData.signer
        return SignedDataContainer(
            payload: signedData.payload, certificates: signedData.certificates, digest: signer.digest,
            signatureAlgorithm: signer.signatureAlgorithm, signature: signer.signature,
            signerIssuer: signer.issuer, signerSerial: signer.serial,
            usesIndefiniteLength: p.usesIndefiniteLength, digestName: signer.digestName, refusals: p.refusals)
    }

    /// Index of the certificate named by the SignerInfo (issuer Name and serial number), if any.
    func signerCertificateIndex() -> Int? {
        for (i, der) in certificates.enumerated() {
            let matches: Bool = der.withUnsafeBytes { raw in
                guard let id = try? CertificateIdentity.issuerAndSerial(of: raw) else { return false }
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
}
