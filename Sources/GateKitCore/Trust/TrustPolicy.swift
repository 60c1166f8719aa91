/// What a chain must look like to be trusted: its anchor, its exact length, the marker
/// extensions on leaf and intermediate, and whether SHA-1 signatures are acceptable.
public struct TrustPolicy: Sendable, Hashable {
    public enum Length: Sendable, Hashable {
        /// leaf → … → anchor has exactly this many certificates (anchor included).
        case exactly(Int)
        /// Either the anchor itself is the signer (a self-signed test certificate such as
        /// Xcode's `CN=StoreKit`), or the chain has exactly this many certificates and then all
        /// other rules (OIDs) apply.
        case anchorItselfOr(Int)
    }

    public static let appleLeafOID = "1.2.840.113635.100.6.11.1"
    public static let appleIntermediateOID = "1.2.840.113635.100.6.2.1"

    public var anchor: TrustAnchor
    public var length: Length
    /// Dotted OID the leaf must carry as an extension; nil: not checked.
    public var leafOID: String?
    /// Dotted OID the certificate directly above the leaf must carry; nil: not checked.
    public var intermediateOID: String?
    /// Reject SHA-1 (and weaker) signatures on every non-anchor certificate of the chain.
    public var requireSHA256: Bool

    public init(anchor: TrustAnchor, length: Length, leafOID: String?, intermediateOID: String?, requireSHA256: Bool) {
        self.anchor = anchor
        self.length = length
        self.leafOID = leafOID
        self.intermediateOID = intermediateOID
        self.requireSHA256 = requireSHA256
    }

    /// App Store receipts: leaf (6.11.1) → WWDR intermediate (6.2.1) → Apple Inc. Root CA.
    public static func appStoreReceipts(requireSHA256: Bool = false) throws(TrustFailure) -> TrustPolicy {
        TrustPolicy(anchor: try .appleIncRoot(), length: .exactly(3),
                    leafOID: appleLeafOID, intermediateOID: appleIntermediateOID, requireSHA256: requireSHA256)
    }

    /// StoreKit 2 signed data (JWS x5c): leaf (6.11.1) → WWDR G6 (6.2.1) → Apple Root CA - G3.
    public static func appStoreSignedData(requireSHA256: Bool = false) throws(TrustFailure) -> TrustPolicy {
        TrustPolicy(anchor: try .appleRootCAG3(), length: .exactly(3),
                    leafOID: appleLeafOID, intermediateOID: appleIntermediateOID, requireSHA256: requireSHA256)
    }

    /// Explicit test mode: chains ending at a caller-supplied anchor. The anchor may sign
    /// directly (Xcode's self-signed StoreKit certificate), or the chain must mirror Apple's
    /// shape (`length` certificates, Apple's marker OIDs). The result is flagged as test-anchored.
    public static func testing(anchorDER: [UInt8], length: Length = .anchorItselfOr(3),
                               leafOID: String? = appleLeafOID, intermediateOID: String? = appleIntermediateOID,
                               requireSHA256: Bool = false) throws(TrustFailure) -> TrustPolicy {
        TrustPolicy(anchor: try .test(der: anchorDER), length: length,
                    leafOID: leafOID, intermediateOID: intermediateOID, requireSHA256: requireSHA256)
    }
}
