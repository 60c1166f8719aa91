/// A date attribute as written in the receipt and as epoch milliseconds.
public struct ReceiptDate: Sendable, Equatable {
    public let text: String
    public let milliseconds: Int64
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

    /// Apple attribute numbers of the string fields, for generic accessors.
    public func string(_ type: Int) -> String? {
        switch type {
        case 1702: productID
        case 1703: transactionID
        case 1705: originalTransactionID
        case 1721: promotionalOfferID
        case 1704: purchaseDate?.text
        case 1706: originalPurchaseDate?.text
        case 1708: expiresDate?.text
        case 1712: cancellationDate?.text
        default: nil
        }
    }

    public func integer(_ type: Int) -> Int64?? {
        switch type {
        case 1701: .some(quantity)
        case 1707: .some(productType)
        case 1711: .some(webOrderLineItemID)
        case 1713: .some(isTrialPeriod.map { $0 ? 1 : 0 })
        case 1719: .some(isInIntroOfferPeriod.map { $0 ? 1 : 0 })
        default: nil
        }
    }

    public func date(_ type: Int) -> ReceiptDate?? {
        switch type {
        case 1704: .some(purchaseDate)
        case 1706: .some(originalPurchaseDate)
        case 1708: .some(expiresDate)
        case 1712: .some(cancellationDate)
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

    public func string(_ type: Int) -> String? {
        switch type {
        case 0: environment
        case 2: bundleID
        case 3: appVersion
        case 10: ageRating
        case 19: originalAppVersion
        case 12: creationDate?.text
        case 18: originalPurchaseDate?.text
        case 21: expirationDate?.text
        default: nil
        }
    }

    public func integer(_ type: Int) -> Int64?? {
        switch type {
        case 1: .some(appItemID)
        case 15: .some(downloadID)
        case 16: .some(versionExternalIdentifier)
        default: nil
        }
    }

    public func date(_ type: Int) -> ReceiptDate?? {
        switch type {
        case 12: .some(creationDate)
        case 18: .some(originalPurchaseDate)
        case 21: .some(expirationDate)
        default: nil
        }
    }

    public func bytes(_ type: Int) -> [UInt8]?? {
        switch type {
        case 2: .some(bundleIDData.isEmpty ? nil : bundleIDData)
        case 4: .some(opaqueValue)
        case 5: .some(sha1Hash)
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
