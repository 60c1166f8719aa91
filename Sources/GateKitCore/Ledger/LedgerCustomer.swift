import GateKitSupport

/// Who a ledger question is about. The two kinds never mix: a UUID is an app account token
/// (compared case-insensitively: Swift's `uuidString` is uppercase, Apple's JSON lowercase),
/// anything else an original transaction id (compared byte for byte). So a token can never
/// equal another customer's original transaction id and inherit its answers.
public enum LedgerCustomer: Hashable, Sendable {
    /// An app account token, lowercased.
    case token(String)
    case purchaseID(String)

    /// Byte for byte, as the store compares: Swift's String equality is canonical equivalence
    /// ("K-7007" with a Kelvin sign would equal it with a K).
    public static func == (a: LedgerCustomer, b: LedgerCustomer) -> Bool {
        switch (a, b) {
        case let (.token(x), .token(y)), let (.purchaseID(x), .purchaseID(y)): x.utf8.elementsEqual(y.utf8)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case let .token(t):
            hasher.combine(true)
            for b in t.utf8 { hasher.combine(b) }
        case let .purchaseID(o):
            hasher.combine(false)
            for b in o.utf8 { hasher.combine(b) }
        }
    }

    public init(_ text: String) {
        self = UUIDText.isValid(text) ? .token(text.lowercased()) : .purchaseID(text)
    }

    /// A signed `appAccountToken` as the ledger keeps it: lowercased, or nil when it is not a
    /// UUID (Apple's tokens always are; anything else could never be asked about as a token).
    static func normalizedToken(_ signed: String?) -> String? {
        guard let signed, UUIDText.isValid(signed) else { return nil }
        return signed.lowercased()
    }
}
