import GateKitSupport

/// A category's state. The numbers are ISHPermissionKit's (HTTP-like) and are persisted.
public enum PermissionState: Int32, CaseIterable, Sendable {
    /// Never decided.
    case unknown = 0
    /// The user chose "ask me later" on the app's own pre-prompt.
    case askAgain = 100
    /// Granted through the system's dialog.
    case authorized = 200
    /// Denied through the system's dialog.
    case denied = 403
    /// The user chose "don't ask" on the app's own pre-prompt.
    case doNotAsk = 406
    /// The category does not exist on this device or platform.
    case unsupported = 501

    /// Only unknown and ask-again allow a prompt; every other state is final for the library
    /// (only `reset` or the system leaves it).
    public var allowsPrompt: Bool { self == .unknown || self == .askAgain }

    public var name: StaticString {
        switch self {
        case .unknown: "unknown"
        case .askAgain: "ask-again"
        case .authorized: "authorized"
        case .denied: "denied"
        case .doNotAsk: "do-not-ask"
        case .unsupported: "unsupported"
        }
    }

    public static func named(_ name: String) -> PermissionState? {
        allCases.first { $0.name.description == name }
    }
}

/// What a system-state provider says about a category.
public enum ProviderAnswer: Int32, Sendable {
    case notDetermined = 0
    case authorized = 200
    case denied = 403
    case unsupported = 501

    /// Reads a provider's raw answer. A negative number means "could not tell" and counts as
    /// not determined; any other number is an error naming the category.
    init(raw: Int32, category: Int32) throws(GateKitError) {
        if raw < 0 {
            self = .notDetermined
            return
        }
        guard let answer = ProviderAnswer(rawValue: raw) else {
            throw GateKitError(.EPERM_PROVIDER, "the system state provider answered \(raw) for category \(PermissionCategory.label(category)); expected 0 (not determined), 200, 403 or 501")
        }
        self = answer
    }

    /// The state this answer imposes, or nil when the stored state decides.
    public var state: PermissionState? {
        switch self {
        case .notDetermined: nil
        case .authorized: .authorized
        case .denied: .denied
        case .unsupported: .unsupported
        }
    }
}
