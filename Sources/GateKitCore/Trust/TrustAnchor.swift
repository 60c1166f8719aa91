import COpenSSL
import GateKitCrypto
import GateKitSupport

/// A root certificate a chain may end at: either one of Apple's roots pinned in code
/// (embedded DER, checked against its SHA-256 fingerprint before first use), or a
/// caller-supplied test anchor (StoreKit testing in Xcode, a test PKI) that is marked as such.
public struct TrustAnchor: Sendable, Hashable {
    public let name: String
    public let der: [UInt8]
    /// SHA-256 of `der`: the anchor's identity (cache keys, store lookup).
    public let sha256: [UInt8]
    /// True for caller-supplied anchors. Chains ending here are never App Store chains.
    public let isTestAnchor: Bool

    public static func == (a: TrustAnchor, b: TrustAnchor) -> Bool {
        a.sha256 == b.sha256 && a.isTestAnchor == b.isTestAnchor
    }

    public func hash(into h: inout Hasher) {
        h.combine(sha256)
        h.combine(isTestAnchor)
    }

    /// SHA-256 B0B1730E CBC7FF45 05142C49 F1295E6E DA6BCAED 7E2C68C5 BE91B5A1 1001F024.
    public static let appleIncRootFingerprint = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"
    /// SHA-256 63343ABF B89A6A03 EBB57E9B 3F5FA7BE 7C4F5C75 6F3017B3 A8C488C3 653E9179.
    public static let appleRootCAG3Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Apple Inc. Root CA (RSA): anchors App Store receipts. Fails if the embedded bytes
    /// do not match the pinned fingerprint.
    public static func appleIncRoot() throws(TrustFailure) -> TrustAnchor {
        try pinnedAppleIncRoot.get()
    }

    /// Apple Root CA - G3 (ECC P-384): anchors StoreKit 2 / App Store Server signed data.
    public static func appleRootCAG3() throws(TrustFailure) -> TrustAnchor {
        try pinnedAppleRootCAG3.get()
    }

    private static let pinnedAppleIncRoot = pinned(
        "Apple Inc. Root CA", AppleRootCertificateBytes.appleIncRootCA, appleIncRootFingerprint)
    private static let pinnedAppleRootCAG3 = pinned(
        "Apple Root CA - G3", AppleRootCertificateBytes.appleRootCAG3, appleRootCAG3Fingerprint)

    private static func pinned(_ name: String, _ der: [UInt8], _ fingerprint: String) -> Result<TrustAnchor, TrustFailure> {
        guard let digest = try? Digest.hash(.sha256, der), Hex.encode(digest) == fingerprint else {
            return .failure(.pinnedRootMismatch("embedded \(name) does not hash to its pinned SHA-256 \(fingerprint)"))
        }
        return .success(TrustAnchor(name: name, der: der, sha256: digest, isTestAnchor: false))
    }

    /// The largest test anchor accepted (a certificate is a few KB).
    public static let maximumTestAnchorLength = 65536

    /// A caller-supplied anchor for explicit test mode. The DER must decode as one certificate
    /// with nothing after it.
    public static func test(der: [UInt8]) throws(TrustFailure) -> TrustAnchor {
        guard der.count <= maximumTestAnchorLength else {
            throw .malformedCertificate("the test anchor is \(der.count) bytes; at most \(maximumTestAnchorLength)")
        }
        let cert = try Certificate(der: der, role: "test anchor")
        guard let digest = try? Digest.hash(.sha256, der) else { throw .resources("SHA-256 of the test anchor failed") }
        return TrustAnchor(name: "test anchor \(cert.subject)", der: der, sha256: digest, isTestAnchor: true)
    }

    private init(name: String, der: [UInt8], sha256: [UInt8], isTestAnchor: Bool) {
        self.name = name
        self.der = der
        self.sha256 = sha256
        self.isTestAnchor = isTestAnchor
    }
}
