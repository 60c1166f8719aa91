/// A failure with a stable numeric code and a human reason.
///
/// The codes map one-to-one onto the `GATEKIT_E*` constants of `include/gatekit.h`:
/// numbers never change meaning, new ones are only ever added.
public struct GateKitError: Error, Equatable, CustomStringConvertible {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.summary): \(message)" }

    public enum Code: Int32, CaseIterable, Sendable {
        // General (-1 … -99).
        case invalidArgument = -1
        case notFound = -2
        case io = -3
        case busy = -4
        case corrupt = -5
        case newerStore = -6
        case outOfMemory = -7
        case `internal` = -8
        case notAStore = -9
        case readOnly = -10
        case unsupportedVersion = -11
        case tooLarge = -12

        // Receipts (-100 … -199): issue 3.

        // Permissions (-200 … -299): issue 4.
        case permissionCategory = -200
        case permissionRetired = -201
        case permissionDecision = -202
        case permissionNotPromptable = -203
        case permissionBlocked = -204
        case permissionNoUsageDescription = -205
        case permissionConflict = -206
        case permissionProvider = -207
        case permissionReentrant = -208
        case permissionToken = -209
        case permissionWatching = -210

        // Signed data, JWS (-300 … -399): issue 5.

        /// Static text for the code, as `gatekit_strerror` returns it.
        public var summary: StaticString {
            switch self {
            case .invalidArgument: "invalid argument"
            case .notFound: "not found"
            case .io: "I/O error"
            case .busy: "store busy after retries"
            case .corrupt: "store is corrupt"
            case .newerStore: "store was written by a newer GateKit"
            case .outOfMemory: "out of memory"
            case .internal: "internal error"
            case .notAStore: "file is not a GateKit store"
            case .readOnly: "store is read-only"
            case .unsupportedVersion: "unsupported options or structure version"
            case .tooLarge: "input too large"

            // Receipts: issue 3.

            // Permissions: issue 4.
            case .permissionCategory: "invalid or unregistered permission category"
            case .permissionRetired: "retired permission category"
            case .permissionDecision: "invalid permission decision"
            case .permissionNotPromptable: "permission state is final: no prompt allowed"
            case .permissionBlocked: "permission prompt blocked by another category's answer"
            case .permissionNoUsageDescription: "permission category has no usage description"
            case .permissionConflict: "permission category number or name already means something else"
            case .permissionProvider: "system state provider gave an invalid answer"
            case .permissionReentrant: "called from inside a system state provider"
            case .permissionToken: "unknown permission subscription token"
            case .permissionWatching: "permission watcher already running"

            // Signed data: issue 5.
            }
        }
    }
}

extension GateKitError {
    public static func invalid(_ message: String) -> GateKitError { GateKitError(.invalidArgument, message) }
    public static func io(_ message: String) -> GateKitError { GateKitError(.io, message) }
    public static func internalError(_ message: String) -> GateKitError { GateKitError(.internal, message) }
}
