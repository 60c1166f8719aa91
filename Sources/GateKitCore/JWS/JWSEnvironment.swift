/// The server environment a piece of signed data belongs to, spelled as Apple spells it.
public enum JWSEnvironment: String, CaseIterable, Sendable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"

    public static func named(_ name: String) throws(GateKitError) -> JWSEnvironment {
        guard let e = JWSEnvironment(rawValue: name) else {
            throw .invalid("environment must be \"Production\", \"Sandbox\", \"Xcode\" or \"LocalTesting\", not \(Quoted.text(name))")
        }
        return e
    }
}
