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
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(path) has \(member), which a renewal info never has: it is another kind of signed data")
        }
        for member in ["originalTransactionId", "autoRenewStatus", "signedDate"] where json[member] == nil || json[member] == .null {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(path) lacks \(member), which every renewal info has: it is not a renewal info")
        }
    }

    /// The kind a payload positively is, by members that kind always has and the others never
    /// do together; nil when it shows no kind clearly (then the typed decoding says what is
    /// wrong). Checked before anything else is read, so data of the wrong kind is named as such
    /// ("this is a notification, not a transaction"), not as another app's or environment's.
    package static func recognised(_ json: JSONValue) -> JWSVerifier.Kind? {
        func has(_ members: String...) -> Bool { members.allSatisfy { json[$0] != nil } }
        if has("notificationType", "notificationUUID") { return .notification }
        if has("requestIdentifier", "userLocale"), json["transactionId"] == nil { return .realtimeRequest }
        if has("autoRenewStatus"), json["transactionId"] == nil { return .renewalInfo }
        if has("receiptType", "originalApplicationVersion") { return .appTransaction }
        if has("transactionId", "purchaseDate") { return .transaction }
        return nil
    }

    /// Refuses a payload that is recognisably another kind than the one asked for.
    package static func require(_ kind: JWSVerifier.Kind, _ json: JSONValue) throws(GateKitError) {
        guard let other = recognised(json), other != kind else { return }
        throw GateKitError(.EJWS_PAYLOAD_FIELD, "this is \(other.described), not \(kind.described): verify or ingest it as \(other.described)")
    }
}

extension JWSVerifier.Kind {
    /// The kind in a sentence, with the name every command and binding uses for it.
    package var described: String {
        switch self {
        case .transaction: "a transaction (transaction)"
        case .renewalInfo: "a renewal info (renewal-info)"
        case .notification: "a notification (notification)"
        case .appTransaction: "an app transaction (app-transaction)"
        case .realtimeRequest: "a realtime request (realtime-request)"
        }
    }
}
