/// What the caller requires of a receipt.
public struct ReceiptValidationOptions: Sendable {
    public var bundleID: String
    public var appVersion: String?
    /// 16 UUID bytes (iOS identifierForVendor) or a 6-byte MAC address (macOS); nil: not checked.
    public var deviceID: [UInt8]?
    /// The lengths a device id has (`deviceIDLengths.contains(n)`).
    public static let deviceIDLengths: Set<Int> = [16, 6]
    /// Unix seconds at which certificates must be valid; nil: the receipt's creation date (attribute 12).
    public var verifyTime: Int64?
    public var requireSHA256 = false
    public var productionOnly = false
    public var sandboxOnly = false
    /// DER of a certificate trusted for Xcode (StoreKit testing) receipts only.
    public var testAnchorDER: [UInt8]?

    public init(bundleID: String) { self.bundleID = bundleID }
}
