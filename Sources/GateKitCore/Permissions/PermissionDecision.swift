import GateKitSupport

/// What the host records: the user's answer on its own pre-prompt, or the system dialog's result.
public enum PermissionDecision: Int32, CaseIterable, Sendable {
    /// "Ask me later" (or cancel) on the pre-prompt.
    case askLater = 1
    /// "Don't ask" on the pre-prompt.
    case dontAsk = 2
    /// The system dialog granted it.
    case authorized = 3
    /// The system dialog denied it.
    case denied = 4

    public var resultingState: PermissionState {
        switch self {
        case .askLater: .askAgain
        case .dontAsk: .doNotAsk
        case .authorized: .authorized
        case .denied: .denied
        }
    }

    /// Pre-prompt answers come from the user; dialog results from the system.
    public var source: PermissionChangeSource {
        switch self {
        case .askLater, .dontAsk: .user
        case .authorized, .denied: .system
        }
    }

    public var name: StaticString {
        switch self {
        case .askLater: "ask-later"
        case .dontAsk: "dont-ask"
        case .authorized: "authorized"
        case .denied: "denied"
        }
    }

    public static func named(_ name: String) -> PermissionDecision? {
        allCases.first { $0.name.description == name }
    }

    static func from(_ raw: Int32) throws(GateKitError) -> PermissionDecision {
        guard let d = PermissionDecision(rawValue: raw) else {
            throw GateKitError(.EPERM_DECISION, "decision \(raw) is not one of ASK_LATER (1), DONT_ASK (2), AUTHORIZED (3), DENIED (4)")
        }
        return d
    }
}

/// Why a state changed, as kept in the history (numbers are persisted).
public enum PermissionChangeSource: Int64, CaseIterable, Sendable {
    /// The user's answer on the host's pre-prompt (ask later / don't ask).
    case user = 1
    /// The system dialog's result as the host recorded it (authorized / denied).
    case system = 2
    /// `perm_reset`.
    case reset = 3
    /// The system-state provider's answer changed.
    case provider = 4

    public var name: StaticString {
        switch self {
        case .user: "user"
        case .system: "system"
        case .reset: "reset"
        case .provider: "provider"
        }
    }
}
