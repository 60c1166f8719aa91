import GateKitSupport

/// A date attribute as written in the receipt and as epoch milliseconds.
public struct ReceiptDate: Sendable, Equatable {
    public let milliseconds: Int64
    /// The text when it is not the canonical `YYYY-MM-DDTHH:MM:SSZ` of `milliseconds` (offsets,
    /// fractions, a leap second). Nil for the canonical form every App Store receipt writes: a
    /// 187-purchase receipt then makes no string per date (the text is rebuilt on request).
    private let written: String?

    public init(text: String, milliseconds: Int64) {
        self.milliseconds = milliseconds
        written = text
    }

    /// A date written canonically: its text is a function of its value.
    init(canonicalMilliseconds milliseconds: Int64) {
        self.milliseconds = milliseconds
        written = nil
    }

    /// As written in the receipt.
    public var text: String {
        if let written { return written }
        let c = Timestamp.civil(milliseconds: milliseconds)
        return "\(Timestamp.pad(c.year, 4))-\(Timestamp.pad(c.month, 2))-\(Timestamp.pad(c.day, 2))T"
            + "\(Timestamp.pad(c.hour, 2)):\(Timestamp.pad(c.minute, 2)):\(Timestamp.pad(c.second, 2))Z"
    }

    public static func == (a: ReceiptDate, b: ReceiptDate) -> Bool { a.milliseconds == b.milliseconds && a.text == b.text }
}

/// The decoded payload of an app receipt. Fields by Apple's attribute type numbers.
public struct Receipt: Sendable {
    public var environment: String?                 // 0 (receipt_type)
    public var appItemID: Int64?                    // 1 (adam_id)
    public var bundleID: String?                    // 2
    /// The raw value bytes of attribute 2 (DER UTF8String): input of the device hash.
    public var bundleIDData: [UInt8] = []
    public var appVersion: String?                  // 3
    public var opaqueValue: [UInt8]?                // 4
    public var sha1Hash: [UInt8]?                   // 5
    public var ageRating: String?                   // 10
    public var creationDate: ReceiptDate?           // 12
    public var downloadID: Int64?                   // 15
    public var versionExternalIdentifier: Int64?    // 16
    public var originalPurchaseDate: ReceiptDate?   // 18
    public var originalAppVersion: String?          // 19
    public var expirationDate: ReceiptDate?         // 21
    public var purchases = InAppPurchases()         // 17, in receipt order
    /// Number of payload attributes (all types, known or not).
    public var attributeCount = 0

    public init() {}

    /// The text of a string attribute, or of a date attribute as written; nil for others.
    public func string(_ attribute: ReceiptAttribute) -> String? {
        switch attribute {
        case .environment: environment
        case .bundleID: bundleID
        case .appVersion: appVersion
        case .ageRating: ageRating
        case .originalAppVersion: originalAppVersion
        case .creationDate: creationDate?.text
        case .originalPurchaseDate: originalPurchaseDate?.text
        case .expirationDate: expirationDate?.text
        default: nil
        }
    }

    /// An integer attribute's value (nil inside: absent); nil outside: not an integer attribute.
    public func integer(_ attribute: ReceiptAttribute) -> Int64?? {
        switch attribute {
        case .appItemID: .some(appItemID)
        case .downloadID: .some(downloadID)
        case .versionExternalIdentifier: .some(versionExternalIdentifier)
        default: nil
        }
    }

    public func date(_ attribute: ReceiptAttribute) -> ReceiptDate?? {
        switch attribute {
        case .creationDate: .some(creationDate)
        case .originalPurchaseDate: .some(originalPurchaseDate)
        case .expirationDate: .some(expirationDate)
        default: nil
        }
    }

    public func bytes(_ attribute: ReceiptAttribute) -> [UInt8]?? {
        switch attribute {
        case .bundleID: .some(bundleIDData.isEmpty ? nil : bundleIDData)
        case .opaqueValue: .some(opaqueValue)
        case .sha1Hash: .some(sha1Hash)
        default: nil
        }
    }

    /// The receipt's environment class: Xcode receipts are never App Store receipts.
    public enum EnvironmentClass: Sendable { case production, sandbox, xcode, unknown }

    public var environmentClass: EnvironmentClass {
        switch environment {
        case "Production", "ProductionVPP": .production
        case "ProductionSandbox", "ProductionVPPSandbox", "Sandbox": .sandbox
        case "Xcode": .xcode
        default: .unknown
        }
    }
}
