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
        public let notificationType: String?
        public let subtype: String?
        public let notificationUUID: String?
        public let data: NotificationData?
        public let summary: NotificationSummary?
        public let externalPurchaseToken: ExternalPurchaseToken?
        public let appData: NotificationAppData?
        public let version: String?
        public let signedDate: Int64?
    }

    public init(json: JSONValue) throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: "notification")
    }

    /// The app and environment the notification is about, taken from `data`, else `summary`,
    /// else `externalPurchaseToken` (Sandbox iff its externalPurchaseId starts with
    /// "SANDBOX", else Production), else `appData` — the order Apple's verifier uses.
    public var subject: (bundleId: String?, appAppleId: Int64?, environment: String?) {
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
    public let appAppleId: Int64?
    public let bundleId: String?
    public let bundleVersion: String?
    /// Nested JWS, verified separately (decoded into `transactionInfo` in the JSON output).
    public let signedTransactionInfo: String?
    /// Nested JWS, verified separately (decoded into `renewalInfo` in the JSON output).
    public let signedRenewalInfo: String?
    /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public let status: Int64?
    public let consumptionRequestReason: String?

}

/// `summary` of a notification about a bulk request (e.g. RENEWAL_EXTENSION / SUMMARY).
public struct NotificationSummary: Decodable, Sendable {
    public let environment: String?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let productId: String?
    public let requestIdentifier: String?
    public let storefrontCountryCodes: [String]?
    public let succeededCount: Int64?
    public let failedCount: Int64?

}

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
public struct ExternalPurchaseToken: Decodable, Sendable {
    public let externalPurchaseId: String?
    public let tokenCreationDate: Int64?
    public let appAppleId: Int64?
    public let bundleId: String?

}

/// `appData` of an app-level notification (e.g. RESCIND_CONSENT).
public struct NotificationAppData: Decodable, Sendable {
    public let appAppleId: Int64?
    public let bundleId: String?
    public let environment: String?
    /// Nested JWS AppTransaction, verified separately (decoded into `appTransactionInfo`).
    public let signedAppTransactionInfo: String?

}
