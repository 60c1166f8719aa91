/// A decoded, verified `AppTransaction`: the app's own purchase. Its environment is
/// `receiptType`; its signing date is `receiptCreationDate`. `json` keeps every member.
public struct AppTransaction: Sendable {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?

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

    public init(json: JSONValue, path: String = "appTransaction") throws(GateKitError) {
        let f = try PayloadFields(json, path: path)
        self.json = json
        receiptType = try f.string("receiptType")
        appAppleId = try f.int("appAppleId")
        bundleId = try f.string("bundleId")
        applicationVersion = try f.string("applicationVersion")
        versionExternalIdentifier = try f.int("versionExternalIdentifier")
        receiptCreationDate = try f.int("receiptCreationDate")
        originalPurchaseDate = try f.int("originalPurchaseDate")
        originalApplicationVersion = try f.string("originalApplicationVersion")
        deviceVerification = try f.string("deviceVerification")
        deviceVerificationNonce = try f.string("deviceVerificationNonce")
        preorderDate = try f.int("preorderDate")
        appTransactionId = try f.string("appTransactionId")
        originalPlatform = try f.string("originalPlatform")
    }
}
