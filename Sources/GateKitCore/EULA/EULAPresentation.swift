/// What a launch gate should do about a published document for one user at one instant
/// (`EULAGate.presentation`).
public struct EULAPresentation: Equatable, Sendable {
    public enum Status: Int32, Sendable {
        /// The version in effect is accepted (one of its texts, or a text it revises).
        case accepted = 0
        /// Not accepted, but within the version's grace period the previous version's
        /// acceptance still counts: the host may show the new text, need not require it.
        case inGrace = 1
        /// The text must be presented and accepted before going on.
        case required = 2

        public var name: String {
            switch self {
            case .accepted: "accepted"
            case .inGrace: "in-grace"
            case .required: "required"
            }
        }
    }

    public var status: Status
    public var label: String
    /// The text to show: the translation the fallback chain chose, and its SHA-256.
    public var language: String
    public var hash: String
    public var effectiveMilliseconds: Int64
    /// When acceptance of this version becomes required (its effect plus its grace period).
    public var requiredAtMilliseconds: Int64
    /// The next published version's instant of effect, if one is scheduled after `at`.
    public var nextEffectiveMilliseconds: Int64?
}
