/// A failure with a stable numeric code and a human reason.
///
/// The codes map one-to-one onto the `GATEKIT_E*` constants of `include/gatekit.h`:
/// numbers never change meaning, new ones are only ever added.
public struct GateKitError: Error, Equatable, CustomStringConvertible {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.summary): \(message)" }

    public enum Code: Int32, CaseIterable, Sendable {
        // General (-1 … -99).
        case invalidArgument = -1
        case notFound = -2
        case io = -3
        case busy = -4
        case corrupt = -5
        case newerStore = -6
        case outOfMemory = -7
        case `internal` = -8
        case notAStore = -9
        case readOnly = -10
        case unsupportedVersion = -11
        case tooLarge = -12
        case unsafeStore = -13
        case connection = -14
        case commitUncertain = -15
        case forked = -16

        // Receipts (-100 … -199).
        case receiptMalformed = -100
        case receiptPayloadMalformed = -101
        case receiptUnsupportedAlgorithm = -102
        case receiptSignedAttributes = -103
        case receiptSignerNotFound = -104
        case receiptSignatureInvalid = -105
        case receiptUntrustedRoot = -106
        case receiptChainLength = -107
        case receiptLeafOID = -108
        case receiptIntermediateOID = -109
        case receiptCertificateTime = -110
        case receiptWeakDigest = -111
        case receiptCertificateSignature = -112
        case receiptChainInvalid = -113
        case receiptBadCertificate = -114
        case receiptBundleID = -115
        case receiptAppVersion = -116
        case receiptDeviceHash = -117
        case receiptXcodeNotTrusted = -118
        case receiptSandboxEnvironment = -119
        case receiptProductionEnvironment = -120
        case receiptNoCreationDate = -121
        case receiptUnknownEnvironment = -122
        case receiptTestAnchorInvalid = -123

        // Permissions (-200 … -299).
        case permissionCategory = -200
        case permissionRetired = -201
        case permissionDecision = -202
        case permissionNotPromptable = -203
        case permissionBlocked = -204
        case permissionNoUsageDescription = -205
        case permissionConflict = -206
        case permissionProvider = -207
        case permissionReentrant = -208
        case permissionToken = -209
        case permissionWatching = -210
        case permissionPortal = -211

        // Signed data, JWS (-300 … -399).
        case jwsMalformed = -300
        case jwsUnsupportedAlgorithm = -301
        case jwsChainLength = -302
        case jwsUntrustedChain = -303
        case jwsLeafOID = -304
        case jwsIntermediateOID = -305
        case jwsCertificateTime = -306
        case jwsSignature = -307
        case jwsBundleID = -308
        case jwsAppAppleID = -309
        case jwsEnvironment = -310
        case jwsTestSigned = -311
        case jwsCertificate = -312
        case jwsPayloadField = -313

        // App Store signing and server API (-400 … -499).
        case appStoreKey = -400
        case appStoreKeyType = -401
        case appStoreAPIError = -402
        case appStoreTransport = -403
        case appStoreResponse = -404

        // EULA (-500 … -599).
        case eulaHashMismatch = -500
        case eulaExportAltered = -501
        case eulaVersionConflict = -502

        /// Static text for the code, as `gatekit_strerror` returns it.
        public var summary: StaticString {
            switch self {
            case .invalidArgument: "invalid argument"
            case .notFound: "not found"
            case .io: "I/O error"
            case .busy: "store busy after retries"
            case .corrupt: "store is corrupt"
            case .newerStore: "store was written by a newer GateKit"
            case .outOfMemory: "out of memory"
            case .internal: "internal error"
            case .notAStore: "file is not a GateKit store"
            case .readOnly: "store is read-only"
            case .unsupportedVersion: "unsupported options or structure version"
            case .tooLarge: "input too large"
            case .unsafeStore: "a file GateKit relies on (a store, a key, a CA file) or its folder is a symbolic link or open to another user"
            case .connection: "cannot reach the store's server"
            case .commitUncertain: "the connection was lost while committing"
            case .forked: "the store handle belongs to the parent process (open the store after fork)"

            // Receipts.
            case .receiptMalformed: "receipt is not a PKCS#7 SignedData receipt (malformed)"
            case .receiptPayloadMalformed: "receipt payload is malformed"
            case .receiptUnsupportedAlgorithm: "receipt uses an unsupported algorithm"
            case .receiptSignedAttributes: "receipt signer has signed attributes (not an Apple receipt)"
            case .receiptSignerNotFound: "receipt signer certificate is not in the receipt"
            case .receiptSignatureInvalid: "receipt signature does not verify"
            case .receiptUntrustedRoot: "receipt does not chain to the trusted root"
            case .receiptChainLength: "receipt certificate chain has the wrong length"
            case .receiptLeafOID: "receipt signer certificate lacks Apple's receipt-signing OID"
            case .receiptIntermediateOID: "receipt intermediate certificate lacks Apple's WWDR OID"
            case .receiptCertificateTime: "receipt certificate not valid at the verification time"
            case .receiptWeakDigest: "receipt uses SHA-1 where SHA-256 is required"
            case .receiptCertificateSignature: "receipt certificate signature does not verify"
            case .receiptChainInvalid: "receipt certificate chain is invalid"
            case .receiptBadCertificate: "receipt contains an undecodable certificate"
            case .receiptBundleID: "receipt is for another bundle id"
            case .receiptAppVersion: "receipt is for another app version"
            case .receiptDeviceHash: "receipt device hash does not match the device id"
            case .receiptXcodeNotTrusted: "Xcode (StoreKit testing) receipt refused"
            case .receiptSandboxEnvironment: "sandbox receipt where production is required"
            case .receiptProductionEnvironment: "production receipt where sandbox is required"
            case .receiptNoCreationDate: "receipt has no creation date"
            case .receiptUnknownEnvironment: "receipt has an unknown environment"
            case .receiptTestAnchorInvalid: "test anchor is not a DER certificate"

            // Permissions.
            case .permissionCategory: "invalid or unregistered permission category"
            case .permissionRetired: "retired permission category"
            case .permissionDecision: "invalid permission decision"
            case .permissionNotPromptable: "permission state is final: no prompt allowed"
            case .permissionBlocked: "permission prompt blocked by another category's answer"
            case .permissionNoUsageDescription: "permission category has no usage description"
            case .permissionConflict: "permission category number or name already means something else"
            case .permissionProvider: "system state provider gave an invalid answer"
            case .permissionReentrant: "called from inside a system state provider"
            case .permissionToken: "unknown permission subscription token"
            case .permissionWatching: "permission watcher already running"
            case .permissionPortal: "the desktop permission store cannot be reached"

            // Signed data.
            case .jwsMalformed: "signed data is not a well-formed compact JWS"
            case .jwsUnsupportedAlgorithm: "signed data algorithm is not ES256"
            case .jwsChainLength: "signed data certificate chain does not have exactly 3 certificates"
            case .jwsUntrustedChain: "signed data certificate chain does not lead to a trusted root"
            case .jwsLeafOID: "signing certificate lacks Apple's leaf OID 1.2.840.113635.100.6.11.1"
            case .jwsIntermediateOID: "intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
            case .jwsCertificateTime: "a certificate is not valid at the verification time"
            case .jwsSignature: "signed data signature does not verify"
            case .jwsBundleID: "signed data is for another bundle id"
            case .jwsAppAppleID: "signed data is for another app Apple id"
            case .jwsEnvironment: "signed data is for another environment"
            case .jwsTestSigned: "signed data is test-signed where genuine App Store data is required"
            case .jwsCertificate: "a certificate in the signed data cannot be parsed"
            case .jwsPayloadField: "a signed data payload field has the wrong type or repeats"

            // App Store signing.
            case .appStoreKey: "the signing key is not a PKCS#8 PEM private key (an App Store Connect .p8 file)"
            case .appStoreKeyType: "the signing key is not an EC P-256 key"
            case .appStoreAPIError: "the App Store Server API answered with an error"
            case .appStoreTransport: "the App Store Server API cannot be reached (network, TLS or timeout)"
            case .appStoreResponse: "the App Store Server API's answer is not what Apple documents"

            // EULA.
            case .eulaHashMismatch: "the acceptance names another text of the document (its hash differs): nothing was accepted"
            case .eulaExportAltered: "the consent export does not match the store's history (edited, truncated or not from this store)"
            case .eulaVersionConflict: "the version or text is already published differently (a published version is never edited)"
            }
        }
    }
}

extension GateKitError {
    public static func invalid(_ message: String) -> GateKitError { GateKitError(.invalidArgument, message) }
    public static func io(_ message: String) -> GateKitError { GateKitError(.io, message) }
    public static func internalError(_ message: String) -> GateKitError { GateKitError(.internal, message) }
}
