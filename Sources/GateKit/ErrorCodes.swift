import GateKitSupport


/// Every code the C API can return, by number.
enum ErrorCodes {
    static func summary(_ code: Int32) -> StaticString? {
        GateKitError.Code(rawValue: code)?.summary
    }
}
