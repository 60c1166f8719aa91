/// A failure with a stable numeric code and a human reason.
///
/// The codes are the `GATEKIT_E*` constants of the headers, generated from them
/// (`GateKitErrorCode.swift`): numbers never change meaning, new ones are only ever added.
public struct GateKitError: Error, Equatable, CustomStringConvertible {
    public let code: Code
    public let message: String
    /// What a server answered, as the JSON a caller receives with the code (a Play API error's
    /// status and reason): handed to the host's out_json where the export says so.
    public let detail: String?

    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(code.summary): \(message)" }
}

extension GateKitError.Code {
    /// Static text for the code, as `gatekit_strerror` returns it.
    public var summary: StaticString {
        switch self {
        case .EINVAL: "invalid argument"
        case .ENOTFOUND: "not found"
        case .EIO: "I/O error"
        case .EBUSY: "store busy after retries"
        case .ECORRUPT: "store is corrupt"
        case .ENEWER: "store was written by a newer GateKit"
        case .ENOMEM: "out of memory"
        case .EINTERNAL: "internal error"
        case .ENOTSTORE: "file is not a GateKit store"
        case .EREADONLY: "store is read-only"
        case .EVERSION: "unsupported options or structure version"
        case .ETOOLARGE: "input too large"
        case .EUNSAFE: "a file GateKit relies on (a store, a key, a CA file) or its folder is a symbolic link or open to another user"
        case .ECONNECTION: "cannot reach the store's server"
        case .EUNCERTAIN: "the connection was lost while committing"
        case .EFORKED: "the store handle belongs to the parent process (open the store after fork)"

        // Receipts.
        case .ERECEIPT_MALFORMED: "receipt is not a PKCS#7 SignedData receipt (malformed)"
        case .ERECEIPT_PAYLOAD: "receipt payload is malformed"
        case .ERECEIPT_ALGORITHM: "receipt uses an unsupported algorithm"
        case .ERECEIPT_SIGNED_ATTRS: "receipt signer has signed attributes (not an Apple receipt)"
        case .ERECEIPT_NO_SIGNER: "receipt signer certificate is not in the receipt"
        case .ERECEIPT_SIGNATURE: "receipt signature does not verify"
        case .ERECEIPT_UNTRUSTED: "receipt does not chain to the trusted root"
        case .ERECEIPT_CHAIN_LENGTH: "receipt certificate chain has the wrong length"
        case .ERECEIPT_LEAF_OID: "receipt signer certificate lacks Apple's receipt-signing OID"
        case .ERECEIPT_INTERMEDIATE_OID: "receipt intermediate certificate lacks Apple's WWDR OID"
        case .ERECEIPT_CERT_TIME: "receipt certificate not valid at the verification time"
        case .ERECEIPT_WEAK_DIGEST: "receipt uses SHA-1 where SHA-256 is required"
        case .ERECEIPT_CERT_SIGNATURE: "receipt certificate signature does not verify"
        case .ERECEIPT_CHAIN: "receipt certificate chain is invalid"
        case .ERECEIPT_BAD_CERT: "receipt contains an undecodable certificate"
        case .ERECEIPT_BUNDLE_ID: "receipt is for another bundle id"
        case .ERECEIPT_APP_VERSION: "receipt is for another app version"
        case .ERECEIPT_DEVICE_HASH: "receipt device hash does not match the device id"
        case .ERECEIPT_XCODE: "Xcode (StoreKit testing) receipt refused"
        case .ERECEIPT_SANDBOX: "sandbox receipt where production is required"
        case .ERECEIPT_PRODUCTION: "production receipt where sandbox is required"
        case .ERECEIPT_NO_CREATION_DATE: "receipt has no creation date"
        case .ERECEIPT_ENVIRONMENT: "receipt has an unknown environment"
        case .ERECEIPT_TEST_ANCHOR: "test anchor is not a DER certificate"

        // Permissions.
        case .EPERM_CATEGORY: "invalid or unregistered permission category"
        case .EPERM_RETIRED: "retired permission category"
        case .EPERM_DECISION: "invalid permission decision"
        case .EPERM_NOT_PROMPTABLE: "permission state is final: no prompt allowed"
        case .EPERM_BLOCKED: "permission prompt blocked by another category's answer"
        case .EPERM_NO_USAGE: "permission category has no usage description"
        case .EPERM_CONFLICT: "permission category number or name already means something else"
        case .EPERM_PROVIDER: "system state provider gave an invalid answer"
        case .EPERM_REENTRANT: "called from inside a system state provider"
        case .EPERM_TOKEN: "unknown permission subscription token"
        case .EPERM_WATCHING: "permission watcher already running"
        case .EPERM_PORTAL: "the desktop permission store cannot be reached"

        // Signed data.
        case .EJWS_MALFORMED: "signed data is not a well-formed compact JWS"
        case .EJWS_ALGORITHM: "signed data algorithm is not ES256"
        case .EJWS_CHAIN_LENGTH: "signed data certificate chain does not have exactly 3 certificates"
        case .EJWS_UNTRUSTED: "signed data certificate chain does not lead to a trusted root"
        case .EJWS_LEAF_OID: "signing certificate lacks Apple's leaf OID 1.2.840.113635.100.6.11.1"
        case .EJWS_INTERMEDIATE_OID: "intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
        case .EJWS_CERT_TIME: "a certificate is not valid at the verification time"
        case .EJWS_SIGNATURE: "signed data signature does not verify"
        case .EJWS_BUNDLE_ID: "signed data is for another bundle id"
        case .EJWS_APP_APPLE_ID: "signed data is for another app Apple id"
        case .EJWS_ENVIRONMENT: "signed data is for another environment"
        case .EJWS_TEST_SIGNED: "signed data is test-signed where genuine App Store data is required"
        case .EJWS_CERTIFICATE: "a certificate in the signed data cannot be parsed"
        case .EJWS_PAYLOAD_FIELD: "a signed data payload field has the wrong type or repeats"

        // App Store signing.
        case .EAPPSTORE_KEY: "the signing key is not a PKCS#8 PEM private key (an App Store Connect .p8 file)"
        case .EAPPSTORE_KEY_TYPE: "the signing key is not an EC P-256 key"
        case .EAPPSTORE_API: "the App Store Server API answered with an error"
        case .EAPPSTORE_TRANSPORT: "the App Store Server API cannot be reached (network, TLS or timeout)"
        case .EAPPSTORE_RESPONSE: "the App Store Server API's answer is not what Apple documents"

        // Google Play.
        case .EPLAY_API: "the Play Developer API answered with an error"
        case .EPLAY_TRANSPORT: "the Play Developer API cannot be reached (network, TLS or timeout)"
        case .EPLAY_RESPONSE: "the Play Developer API's answer is not what Google documents"
        case .EPLAY_AUTH: "Google's token endpoint refused the service account"
        case .EPLAY_KEY: "the file is not a Google service account key with an RSA private key"
        case .EPUSH_TOKEN: "the push carries no bearer JWT"
        case .EPUSH_ALGORITHM: "the push token's algorithm is not RS256"
        case .EPUSH_KEY: "the push token names a key the issuer does not publish"
        case .EPUSH_SIGNATURE: "the push token's signature does not verify"
        case .EPUSH_CLAIMS: "the push token's issuer, audience or email is not the configured one"
        case .EPUSH_EXPIRED: "the push token is expired, not yet valid or too long-lived"
        case .EPUSH_KEYSET: "the issuer's key set cannot be fetched or read"
        case .EPUSH_MESSAGE: "the push body is not a Pub/Sub envelope with a developer notification"
        case .EPUSH_PACKAGE: "the notification is for another package"
        case .ESTRIPE_SIGNATURE_HEADER: "the Stripe-Signature header is missing, malformed or has no v1"
        case .ESTRIPE_SIGNATURE: "no Stripe webhook signature matches the body under the signing secrets"
        case .ESTRIPE_TIMESTAMP: "the Stripe webhook was signed outside the tolerance of this host's clock"
        case .ESTRIPE_EVENT: "the verified Stripe webhook body is not a snapshot event"
        case .ESTRIPE_OBJECT: "not a Stripe object the ledger reads"
        case .ESTRIPE_API: "Stripe answered with an error"
        case .ESTRIPE_TRANSPORT: "no answer from Stripe (connection, TLS or timeout)"
        case .ESTRIPE_RESPONSE: "Stripe's answer is not what Stripe sends (or of the other mode than the key's)"
        case .EWEBHOOK_HEADER: "a webhook header (webhook-id, webhook-timestamp, webhook-signature) is missing or malformed"
        case .EWEBHOOK_SIGNATURE: "no webhook signature matches the body under the endpoint's secrets"
        case .EWEBHOOK_TIMESTAMP: "the webhook was signed outside the tolerance of this host's clock"
        case .EWEBHOOK_DELIVERY: "a webhook delivery got no answer"

        // EULA.
        case .EEULA_HASH_MISMATCH: "the acceptance names another text of the document (its hash differs): nothing was accepted"
        case .EEULA_EXPORT_ALTERED: "the consent export does not match the store's history (edited, truncated or not from this store)"
        case .EEULA_VERSION_CONFLICT: "the version or text is already published differently (a published version is never edited)"
        }
    }
}

extension GateKitError {
    public static func invalid(_ message: String) -> GateKitError { GateKitError(.EINVAL, message) }
    public static func io(_ message: String) -> GateKitError { GateKitError(.EIO, message) }
    public static func internalError(_ message: String) -> GateKitError { GateKitError(.EINTERNAL, message) }
}
