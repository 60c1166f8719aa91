import GateKitSupport

/// Which kind of signed payload a JSON object is. JWS carries no type marker and Apple signs
/// every kind with the same chain, so a payload of one kind could be presented as another (a
/// Retention Messaging request as a renewal info ended a grace period). Where the kind decides
/// what is stored or believed, it is recognised by the members it must have, and refused when
/// it has members only another kind has.
package enum SignedKind {
    /// Members only other kinds have: a transaction's, a notification's, a realtime request's.
    private static let notRenewalInfo = ["transactionId", "bundleId", "purchaseDate", "notificationType", "notificationUUID",
                                         "requestIdentifier", "userLocale", "appAppleId"]

    /// A renewal info has `originalTransactionId`, `autoRenewStatus` and `signedDate`
    /// (Apple's JWSRenewalInfoDecodedPayload always carries them), and none of `notRenewalInfo`.
    package static func requireRenewalInfo(_ json: JSONValue, path: String) throws(GateKitError) {
        for member in notRenewalInfo where json[member] != nil {
            throw GateKitError(.jwsPayloadField, "\(path) has \(member), which a renewal info never has: it is another kind of signed data")
        }
        for member in ["originalTransactionId", "autoRenewStatus", "signedDate"] where json[member] == nil || json[member] == .null {
            throw GateKitError(.jwsPayloadField, "\(path) lacks \(member), which every renewal info has: it is not a renewal info")
        }
    }
}
