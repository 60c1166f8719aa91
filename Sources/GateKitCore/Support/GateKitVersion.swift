/// The library's version: include/gatekit.h defines it (GATEKIT_VERSION_*); this copy, pyproject.toml and
/// pkgconfig/gatekit.pc repeat it, and HeaderAgreementTests / test_package.py fail when one drifts.
public enum GateKitVersion {
    public static let major = 0
    public static let minor = 2
    public static let patch = 0
    public static let string: StaticString = "0.2.0"
    public static var text: String { "\(string)" }
    public static var number: Int { major * 10000 + minor * 100 + patch }
}
