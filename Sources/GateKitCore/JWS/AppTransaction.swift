import GateKitSupport
import GateKitTrust

/// A decoded, verified `AppTransaction`: the app's own purchase. Its environment is
/// `receiptType`; its signing date is `receiptCreationDate`. `json` keeps every member.
public struct AppTransaction: SignedPayload {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?
    /// The members GateKit reads, declared once (unknown members stay in `json`).
    public let fields: Fields

    public struct Fields: Decodable, Sendable {
        public let receiptType: String?
        public let appAppleId: Int64?
        public let bundleId: String?
        public let applicationVersion: String?
        public let versionExternalIdentifier: Int64?
        public let receiptCreationDate: Int64?
        /// Xcode writes -62135769600000 (0001-01-01).
        public let originalPurchaseDate: Int64?
        public let originalApplicationVersion: String?
        /// Base64 SHA-384 of lowercase(nonce) + lowercase(device verification id); see docs/jws.md.
        public let deviceVerification: String?
        public let deviceVerificationNonce: String?
        public let preorderDate: Int64?
        public let appTransactionId: String?
        /// "iOS", "macOS", "tvOS", "visionOS".
        public let originalPlatform: String?
    }

    public init(json: JSONValue, path: String = "appTransaction") throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: path)
    }
}
