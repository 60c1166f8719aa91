import GateKitSupport

/// One recorded answer to a EULA: who, which exact text (its SHA-256), what, when, and how.
public struct EULADecision: Equatable, Sendable {
    public enum Kind: Int64, Sendable {
        case accepted = 1
        case declined = 2
        /// Consent given before is taken back: the document is presented again, whatever its
        /// text. Its hash is the text whose acceptance was withdrawn.
        case withdrawn = 3

        public var name: String {
            switch self {
            case .accepted: "accepted"
            case .declined: "declined"
            case .withdrawn: "withdrawn"
            }
        }

        /// The stored row: `decision` keeps the released meaning (1 accepted, 2 not), and a
        /// withdrawal is a "not" marked in `withdrawal` (migration 9).
        var storedDecision: Int64 { self == .accepted ? 1 : 2 }

        init(storedDecision: Int64, withdrawal: Bool) {
            self = withdrawal ? .withdrawn : storedDecision == 1 ? .accepted : .declined
        }
    }

    public var documentID: String
    public var hash: String
    /// Raw bytes of the user name (host user names need not be UTF-8); nil is the app's default user.
    public var user: [UInt8]?
    public var kind: Kind
    public var atMilliseconds: Int64
    public var consent: EULAConsent = .none
    /// The language of the text decided on, when that text is a published translation
    /// (`EULAVersion`): the store records it from the text's hash.
    public var language: String? = nil

    /// `{"document_id","hash","user","decision","at"}`, then the consent's parts that were
    /// given (`method`, `client_address`, `user_agent`, `locale`, `metadata`), and the text's
    /// `language` when it is a published translation; a user name
    /// that is not valid UTF-8 is shown with replacement characters and given exactly in
    /// `user_hex`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("document_id", .string(documentID)),
            ("hash", .string(hash)),
        ]
        if let user {
            if let text = String(validating: user, as: UTF8.self) {
                members.append(("user", .string(text)))
            } else {
                members.append(("user", .string(String(decoding: user, as: UTF8.self))))
                members.append(("user_hex", .string(Hex.encode(user))))
            }
        } else {
            members.append(("user", .null))
        }
        members.append(("decision", .string(kind.name)))
        members.append(("at", .string(Timestamp.rfc3339Milliseconds(atMilliseconds))))
        members += consent.jsonMembers
        if let language { members.append(("language", .string(language))) }
        return .object(members)
    }
}
