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

/// One in-app purchase record (attribute 17), fields by Apple's type numbers 1701+.
/// Absent and empty-string fields are nil.
public struct InAppPurchase: Sendable {
    public var quantity: Int64?                     // 1701
    public var productID: String?                   // 1702
    public var transactionID: String?               // 1703
    public var purchaseDate: ReceiptDate?           // 1704
    public var originalTransactionID: String?       // 1705
    public var originalPurchaseDate: ReceiptDate?   // 1706
    public var productType: Int64?                  // 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable
    public var expiresDate: ReceiptDate?            // 1708
    public var webOrderLineItemID: Int64?           // 1711
    public var cancellationDate: ReceiptDate?       // 1712
    public var isTrialPeriod: Bool?                 // 1713
    public var isInIntroOfferPeriod: Bool?          // 1719
    public var promotionalOfferID: String?          // 1721

    public init() {}

    /// The text of a string field, or of a date field as written; nil for other fields.
    public func string(_ field: PurchaseField) -> String? {
        switch field {
        case .productID: productID
        case .transactionID: transactionID
        case .originalTransactionID: originalTransactionID
        case .promotionalOfferID: promotionalOfferID
        case .purchaseDate: purchaseDate?.text
        case .originalPurchaseDate: originalPurchaseDate?.text
        case .expiresDate: expiresDate?.text
        case .cancellationDate: cancellationDate?.text
        default: nil
        }
    }

    /// An integer field's value (nil inside: absent); nil outside: not an integer field.
    public func integer(_ field: PurchaseField) -> Int64?? {
        switch field {
        case .quantity: .some(quantity)
        case .productType: .some(productType)
        case .webOrderLineItemID: .some(webOrderLineItemID)
        case .isTrialPeriod: .some(isTrialPeriod.map { $0 ? 1 : 0 })
        case .isInIntroOfferPeriod: .some(isInIntroOfferPeriod.map { $0 ? 1 : 0 })
        default: nil
        }
    }

    public func date(_ field: PurchaseField) -> ReceiptDate?? {
        switch field {
        case .purchaseDate: .some(purchaseDate)
        case .originalPurchaseDate: .some(originalPurchaseDate)
        case .expiresDate: .some(expiresDate)
        case .cancellationDate: .some(cancellationDate)
        default: nil
        }
    }
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
    public var purchases: [InAppPurchase] = []      // 17, in receipt order
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
