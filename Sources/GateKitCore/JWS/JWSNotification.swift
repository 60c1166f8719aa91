import GateKitSupport
import GateKitTrust

/// A decoded, verified `ResponseBodyV2DecodedPayload` (App Store Server Notifications V2).
/// Exactly one of `data`, `summary`, `externalPurchaseToken`, `appData` is normally present.
public struct JWSNotification: SignedPayload {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?
    /// The members GateKit reads, declared once (unknown members stay in `json`).
    public let fields: Fields

    public struct Fields: Decodable, Sendable {
        package let notificationType: String?
        package let subtype: String?
        package let notificationUUID: String?
        public let data: NotificationData?
        public let summary: NotificationSummary?
        package let externalPurchaseToken: ExternalPurchaseToken?
        package let appData: NotificationAppData?
        public let version: String?
        package let signedDate: Int64?
    }

    public init(json: JSONValue) throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: "notification")
    }

    /// The app and environment the notification is about, taken from `data`, else `summary`,
    /// else `externalPurchaseToken` (Sandbox iff its externalPurchaseId starts with
    /// "SANDBOX", else Production), else `appData` — the order Apple's verifier uses.
    package var subject: (bundleId: String?, appAppleId: Int64?, environment: String?) {
        if let data = fields.data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary = fields.summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let token = fields.externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token.bundleId, token.appAppleId, sandbox ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue)
        }
        if let appData = fields.appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }

    /// `subject` as JSON: {"bundleId":…,"appAppleId":…,"environment":…}, null where absent.
    public var subjectJSON: String {
        let (bundle, app, environment) = subject
        return JSONWriter.serialize(.object([("bundleId", bundle.map { .string($0) } ?? .null),
                                             ("appAppleId", app.map { .number($0) } ?? .null),
                                             ("environment", environment.map { .string($0) } ?? .null)]))
    }
}

/// `data` of a notification about one app's transaction.
public struct NotificationData: Decodable, Sendable {
    public let environment: String?
    package let appAppleId: Int64?
    package let bundleId: String?
    package let bundleVersion: String?
    /// Nested JWS, verified separately (decoded into `transactionInfo` in the JSON output).
    package let signedTransactionInfo: String?
    /// Nested JWS, verified separately (decoded into `renewalInfo` in the JSON output).
    package let signedRenewalInfo: String?
    /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public let status: Int64?
    package let consumptionRequestReason: String?

}

/// `summary` of a notification about a bulk request (e.g. RENEWAL_EXTENSION / SUMMARY).
public struct NotificationSummary: Decodable, Sendable {
    public let environment: String?
    package let appAppleId: Int64?
    package let bundleId: String?
    package let productId: String?
    public let requestIdentifier: String?
    package let storefrontCountryCodes: [String]?
    package let succeededCount: Int64?
    package let failedCount: Int64?

}

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
public struct ExternalPurchaseToken: Decodable, Sendable {
    package let externalPurchaseId: String?
    package let tokenCreationDate: Int64?
    package let appAppleId: Int64?
    package let bundleId: String?

}

/// `appData` of an app-level notification (e.g. RESCIND_CONSENT).
public struct NotificationAppData: Decodable, Sendable {
    package let appAppleId: Int64?
    package let bundleId: String?
    public let environment: String?
    /// Nested JWS AppTransaction, verified separately (decoded into `appTransactionInfo`).
    package let signedAppTransactionInfo: String?

}
