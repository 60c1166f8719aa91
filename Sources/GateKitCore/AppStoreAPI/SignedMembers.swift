import GateKitJWS
import GateKitSupport

/// The signed members of App Store Server API answers, and what each holds: every
/// `signedTransactionInfo`, `signedTransactions[]`, `signedRenewalInfo`,
/// `signedAppTransactionInfo` and `signedPayload`, at any depth (StatusResponse nests them
/// in `data[].lastTransactions[]`, NotificationHistoryResponse in `notificationHistory[]`).
enum SignedMembers {
    static let kinds: [String: JWSVerifier.Kind] = [
        "signedTransactionInfo": .transaction, "signedTransactions": .transaction, "signedRenewalInfo": .renewalInfo,
        "signedAppTransactionInfo": .appTransaction, "signedPayload": .notification,
    ]

    /// The answer with each signed member's text replaced by its verified, decoded payload;
    /// the first that fails verification fails the whole answer, named by its path.
    static func verified(_ value: JSONValue, options: JWSOptions, path: String = "") throws(GateKitError) -> JSONValue {
        switch value {
        case let .object(members):
            var out: [(String, JSONValue)] = []
            out.reserveCapacity(members.count)
            for (name, member) in members {
                let here = path.isEmpty ? name : "\(path).\(name)"
                if let kind = kinds[name] {
                    out.append((name, try decoded(member, kind: kind, options: options, path: here)))
                } else {
                    out.append((name, try verified(member, options: options, path: here)))
                }
            }
            return .object(out)
        case let .array(items):
            var out: [JSONValue] = []
            for (i, item) in items.enumerated() { out.append(try verified(item, options: options, path: "\(path)[\(i)]")) }
            return .array(out)
        default:
            return value
        }
    }

    private static func decoded(_ member: JSONValue, kind: JWSVerifier.Kind, options: JWSOptions, path: String) throws(GateKitError) -> JSONValue {
        switch member {
        case .null: return .null
        case let .string(text):
            do {
                let value = try JWSVerifier.verify(text.utf8, kind: kind, options: options).value
                // A renewal info decides a subscription's state: another kind of Apple-signed
                // data in its place is refused (SignedKind).
                if kind == .renewalInfo { try SignedKind.requireRenewalInfo(value, path: "renewalInfo") }
                return value
            } catch {
                throw GateKitError(error.code, "\(path): \(error.message)")
            }
        case let .array(items):
            var out: [JSONValue] = []
            for (i, item) in items.enumerated() { out.append(try decoded(item, kind: kind, options: options, path: "\(path)[\(i)]")) }
            return .array(out)
        default:
            throw GateKitError(.EAPPSTORE_RESPONSE, "\(path) is not signed data (a JWS string)")
        }
    }
}
