/// Apple's receipt attribute type numbers: the one definition the payload parser, the model,
/// the C accessors and the tests use. include/gatekit.h repeats them as GATEKIT_RECEIPT_* and
/// GATEKIT_IAP_* for C hosts; a test fails when the two disagree.
public enum ReceiptAttribute: Int64, CaseIterable, Sendable {
    case environment = 0            // receipt_type
    case appItemID = 1              // adam_id
    case bundleID = 2
    case appVersion = 3
    case opaqueValue = 4
    case sha1Hash = 5
    case ageRating = 10
    case creationDate = 12
    case downloadID = 15
    case versionExternalIdentifier = 16
    case inAppPurchase = 17
    case originalPurchaseDate = 18
    case originalAppVersion = 19
    case expirationDate = 21

    /// Appears at most once in a receipt (in-app purchases repeat).
    var isSingleton: Bool { self != .inAppPurchase }
}

/// The fields of an in-app purchase record (inside attribute 17).
public enum PurchaseField: Int64, CaseIterable, Sendable {
    case quantity = 1701
    case productID = 1702
    case transactionID = 1703
    case purchaseDate = 1704
    case originalTransactionID = 1705
    case originalPurchaseDate = 1706
    case productType = 1707          // 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable
    case expiresDate = 1708
    case webOrderLineItemID = 1711
    case cancellationDate = 1712
    case isTrialPeriod = 1713
    case isInIntroOfferPeriod = 1719
    case promotionalOfferID = 1721

    /// The field's bit in `gatekit_purchase.present`.
    public var presenceBit: UInt32 { UInt32(1) << UInt32(rawValue - PurchaseField.quantity.rawValue) }
}
