/// Why a certificate chain was not trusted. Callers (receipts, JWS) map each reason onto
/// their own stable error codes; `message` is the precise human detail.
public enum TrustFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A certificate (or the test anchor) is not decodable DER, or has trailing bytes.
    case malformedCertificate(String)
    /// The chain does not end at the policy's anchor (unknown issuer, self-signed stranger,
    /// a look-alike root that copies Apple's names).
    case untrustedRoot(String)
    /// The built chain is not the required length (e.g. leaf → root directly).
    case chainLength(String)
    /// The leaf lacks the required marker extension (1.2.840.113635.100.6.11.1 for Apple).
    case leafOID(String)
    /// The intermediate lacks the required marker extension (1.2.840.113635.100.6.2.1).
    case intermediateOID(String)
    /// A certificate of the chain is expired or not yet valid at the verification time.
    case notValidAtTime(String)
    /// A signature in the chain uses SHA-1 (or weaker) while the policy requires SHA-256+.
    case weakDigest(String)
    /// A certificate's signature does not verify under its issuer's key.
    case certificateSignature(String)
    /// Any other chain-building or RFC 5280 failure, with OpenSSL's reason.
    case chainInvalid(String)
    /// The pinned root's embedded bytes do not hash to the pinned fingerprint (build defect).
    case pinnedRootMismatch(String)
    /// OpenSSL could not allocate.
    case resources(String)

    public var message: String {
        switch self {
        case let .malformedCertificate(m), let .untrustedRoot(m), let .chainLength(m),
             let .leafOID(m), let .intermediateOID(m), let .notValidAtTime(m), let .weakDigest(m),
             let .certificateSignature(m), let .chainInvalid(m), let .pinnedRootMismatch(m),
             let .resources(m):
            m
        }
    }

    public var description: String { message }
}
