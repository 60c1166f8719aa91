import GateKitSupport

/// Which part of the ledger a question is about: Apple's environments are kept apart, and so
/// is data accepted under a test anchor (never mixed with App Store data).
public struct LedgerScope: Hashable, Sendable {
    /// "Production", "Sandbox", "Xcode" or "LocalTesting".
    public let environment: String
    public let testData: Bool

    public init(environment: LedgerEnvironment, testData: Bool) {
        self.environment = environment.rawValue
        self.testData = testData
    }

    var testFlag: Int64 { testData ? 1 : 0 }

    /// The same environment's test-signed part.
    var testSignedPart: LedgerScope { LedgerScope(environmentName: environment, testData: true) }

    private init(environmentName: String, testData: Bool) {
        environment = environmentName
        self.testData = testData
    }
}

/// The instant a question is asked about.
public enum LedgerInstant: Sendable, Equatable {
    /// Now, from everything the ledger holds.
    case now
    /// As of a past instant, Unix ms: only what Apple had signed by then counts, so the answer
    /// is the one the ledger would have given at that instant (audits, disputes). Now or a
    /// future instant: from everything the ledger holds, as `.now`.
    case asOf(Int64)

    var at: Int64 {
        switch self {
        case .now: Clock.nowMilliseconds()
        case let .asOf(ms): ms
        }
    }

    var knownBy: Int64? {
        switch self {
        case .now: nil
        case let .asOf(ms): ms
        }
    }
}
