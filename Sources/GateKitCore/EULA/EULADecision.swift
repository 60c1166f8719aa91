import GateKitSupport

/// One recorded answer to a EULA: who, which exact text (its SHA-256), what, and when.
public struct EULADecision: Equatable, Sendable {
    public enum Kind: Int64, Sendable {
        case accepted = 1
        case declined = 2

        public var name: String { self == .accepted ? "accepted" : "declined" }
    }

    public var documentID: String
    public var hash: String
    /// Raw bytes of the user name (host user names need not be UTF-8); nil is the app's default user.
    public var user: [UInt8]?
    public var kind: Kind
    public var atMilliseconds: Int64

    /// `{"document_id","hash","user","decision","at"}`; a user name that is not valid UTF-8
    /// is shown with replacement characters and given exactly in `user_hex`.
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
        return .object(members)
    }
}
