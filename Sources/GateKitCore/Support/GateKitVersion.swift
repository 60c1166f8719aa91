/// The library's version. Keep in step with GATEKIT_VERSION_* in include/gatekit.h
/// (a test compares them).
public enum GateKitVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    public static let string: StaticString = "0.1.0"
    public static var text: String { "\(string)" }
    public static var number: Int { major * 10000 + minor * 100 + patch }
}
