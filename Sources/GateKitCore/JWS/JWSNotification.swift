/// A decoded, verified `ResponseBodyV2DecodedPayload` (App Store Server Notifications V2).
/// Exactly one of `data`, `summary`, `externalPurchaseToken`, `appData` is normally present.
public struct JWSNotification: Sendable {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?

    public let notificationType: String?
    public let subtype: String?
    public let notificationUUID: String?
    public let data: NotificationData?
    public let summary: NotificationSummary?
    public let externalPurchaseToken: ExternalPurchaseToken?
    public let appData: NotificationAppData?
    public let version: String?
    public let signedDate: Int64?

    public init(json: JSONValue) throws(GateKitError) {
        let f = try PayloadFields(json, path: "notification")
        self.json = json
        notificationType = try f.string("notificationType")
        subtype = try f.string("subtype")
        notificationUUID = try f.string("notificationUUID")
        data = try f.fields("data").map { (g: PayloadFields) throws(GateKitError) in try NotificationData(g) }
        summary = try f.fields("summary").map { (g: PayloadFields) throws(GateKitError) in try NotificationSummary(g) }
        externalPurchaseToken = try f.fields("externalPurchaseToken").map { (g: PayloadFields) throws(GateKitError) in try ExternalPurchaseToken(g) }
        appData = try f.fields("appData").map { (g: PayloadFields) throws(GateKitError) in try NotificationAppData(g) }
        version = try f.string("version")
        signedDate = try f.int("signedDate")
    }

    /// The app and environment the notification is about, taken from `data`, else `summary`,
    /// else `externalPurchaseToken` (Sandbox iff its externalPurchaseId starts with
    /// "SANDBOX", else Production), else `appData` — the order Apple's verifier uses.
    public var subject: (bundleId: String?, appAppleId: Int64?, environment: String?) {
        if let data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let token = externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (token.bundleId, token.appAppleId, sandbox ? JWSEnvironment.sandbox.rawValue : JWSEnvironment.production.rawValue)
        }
        if let appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }
}

/// `data` of a notification about one app's transaction.
public struct NotificationData: Sendable {
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

    init(_ f: PayloadFields) throws(GateKitError) {
        environment = try f.string("environment")
        appAppleId = try f.int("appAppleId")
        bundleId = try f.string("bundleId")
        bundleVersion = try f.string("bundleVersion")
        signedTransactionInfo = try f.string("signedTransactionInfo")
        signedRenewalInfo = try f.string("signedRenewalInfo")
        status = try f.int("status")
        consumptionRequestReason = try f.string("consumptionRequestReason")
    }
}

/// `summary` of a notification about a bulk request (e.g. RENEWAL_EXTENSION / SUMMARY).
public struct NotificationSummary: Sendable {
    public let environment: String?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let productId: String?
    public let requestIdentifier: String?
    public let storefrontCountryCodes: [String]?
    public let succeededCount: Int64?
    public let failedCount: Int64?

    init(_ f: PayloadFields) throws(GateKitError) {
        environment = try f.string("environment")
        appAppleId = try f.int("appAppleId")
        bundleId = try f.string("bundleId")
        productId = try f.string("productId")
        requestIdentifier = try f.string("requestIdentifier")
        storefrontCountryCodes = try f.strings("storefrontCountryCodes")
        succeededCount = try f.int("succeededCount")
        failedCount = try f.int("failedCount")
    }
}

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
public struct ExternalPurchaseToken: Sendable {
    public let externalPurchaseId: String?
    public let tokenCreationDate: Int64?
    public let appAppleId: Int64?
    public let bundleId: String?

    init(_ f: PayloadFields) throws(GateKitError) {
        externalPurchaseId = try f.string("externalPurchaseId")
        tokenCreationDate = try f.int("tokenCreationDate")
        appAppleId = try f.int("appAppleId")
        bundleId = try f.string("bundleId")
    }
}

/// `appData` of an app-level notification (e.g. RESCIND_CONSENT).
public struct NotificationAppData: Sendable {
    public let appAppleId: Int64?
    public let bundleId: String?
    public let environment: String?
    /// Nested JWS AppTransaction, verified separately (decoded into `appTransactionInfo`).
    public let signedAppTransactionInfo: String?

    init(_ f: PayloadFields) throws(GateKitError) {
        appAppleId = try f.int("appAppleId")
        bundleId = try f.string("bundleId")
        environment = try f.string("environment")
        signedAppTransactionInfo = try f.string("signedAppTransactionInfo")
    }
}
