/// An App Store environment, spelled as Apple spells it (Apple's `Environment`): the one
/// environment type of signed data, the ledger and the App Store Server API client.
public enum AppStoreEnvironment: String, CaseIterable, Sendable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"

    public static func named(_ name: String) throws(GateKitError) -> AppStoreEnvironment {
        guard let e = AppStoreEnvironment(rawValue: name) else {
            throw .invalid("environment must be \"Production\", \"Sandbox\", \"Xcode\" or \"LocalTesting\", not \(Quoted.text(name))")
        }
        return e
    }
}
