import GateKitSupport

/// The transitions, as ISHPermissionKit defines them:
///
/// | from                 | decision                          | to (stored)       |
/// |----------------------|-----------------------------------|-------------------|
/// | unknown / ask again  | ask later (or cancel), pre-prompt | ask again         |
/// | unknown / ask again  | don't ask, pre-prompt             | do not ask again  |
/// | unknown / ask again  | system dialog: allow / deny       | authorized/denied |
///
/// Do-not-ask, denied, authorized and unsupported are final: recording on them is refused;
/// only `reset` (or the system, through a provider) leaves them.
public enum PermissionStateMachine {
    /// The state that counts: the system's answer when it has one, else the stored state.
    @inline(__always)
    public static func effective(stored: PermissionState, system: ProviderAnswer) -> PermissionState {
        system.state ?? stored
    }

    /// The stored state after `decision`, or the reason it is refused.
    ///
    /// The state before the prompt must allow one. One exception: a dialog result the
    /// provider already reports (the system now says "denied" and the host records the
    /// denial it just saw) is accepted while the stored state still allows a prompt, so the
    /// history gets the user's answer.
    public static func apply(_ decision: PermissionDecision, category: String, stored: PermissionState, system: ProviderAnswer) throws(GateKitError) -> PermissionState {
        let before = effective(stored: stored, system: system)
        let reportedBySystem = system.state == decision.resultingState && decision.source == .system
        guard before.allowsPrompt || (reportedBySystem && stored.allowsPrompt) else {
            let why = system.state != nil ? "the system reports \(before.name)" : "it is \(before.name)"
            throw GateKitError(.EPERM_NOT_PROMPTABLE, "cannot record '\(decision.name)' for category \(category): \(why), a final state (only a reset leaves it)")
        }
        return decision.resultingState
    }
}

/// Which categories a prompt sequence keeps.
///
/// A category is promptable when its state allows a prompt and no answer on another
/// category rules it out. The one such rule: "location always" is not promptable once
/// "location when in use" is denied or do-not-ask (the system cannot grant "always" to an
/// app the user refused location).
public enum PermissionSequencing {
    /// The category whose answer can rule `category` out.
    public static func prerequisite(of category: Int32) -> Int32? {
        category == PermissionCategory.locationAlways ? PermissionCategory.locationWhenInUse : nil
    }

    /// True when the prerequisite's state rules the dependent category out.
    public static func blocks(_ prerequisiteState: PermissionState) -> Bool {
        prerequisiteState == .denied || prerequisiteState == .doNotAsk
    }
}
