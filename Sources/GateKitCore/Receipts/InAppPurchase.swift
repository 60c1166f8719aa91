import Glibc

/// Where a string field's bytes lie in the receipt's signed payload (checked UTF-8); a count of
/// 0 is absent, as empty strings mean absent.
struct PayloadText: Sendable, Equatable {
    var start: UInt32 = 0
    var count: UInt32 = 0

    var isPresent: Bool { count != 0 }
}

/// A purchase's date field: its value, and where its text lies when it is not the canonical
/// `YYYY-MM-DDTHH:MM:SSZ` that `ReceiptDate` rebuilds from the value.
struct PayloadDate: Sendable, Equatable {
    var milliseconds: Int64
    var written: PayloadText
}

/// What validation keeps of one in-app purchase (attribute 17): values, and spans of the payload
/// for strings. Plain data (no references), so a 187-purchase receipt's records are one array
/// filled by copying bytes; strings are made only when a host asks for them.
struct PurchaseRecord: Sendable {
    var quantity: Int64?                     // 1701
    var productID = PayloadText()            // 1702
    var transactionID = PayloadText()        // 1703
    var purchaseDate: PayloadDate?           // 1704
    var originalTransactionID = PayloadText()  // 1705
    var originalPurchaseDate: PayloadDate?   // 1706
    var productType: Int64?                  // 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable
    var expiresDate: PayloadDate?            // 1708
    var webOrderLineItemID: Int64?           // 1711
    var cancellationDate: PayloadDate?       // 1712
    var isTrialPeriod: Bool?                 // 1713
    var isInIntroOfferPeriod: Bool?          // 1719
    var promotionalOfferID = PayloadText()   // 1721
}

/// A receipt's in-app purchases, in receipt order: the payload they point into and their records.
public struct InAppPurchases: RandomAccessCollection, Sendable {
    let payload: [UInt8]
    private(set) var records: [PurchaseRecord]

    init(payload: [UInt8] = [], records: [PurchaseRecord] = []) {
        self.payload = payload
        self.records = records
    }


    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }
    public subscript(index: Int) -> InAppPurchase { InAppPurchase(payload: payload, record: records[index]) }

    mutating func append(_ record: PurchaseRecord) { records.append(record) }
}

/// One in-app purchase record (attribute 17), fields by Apple's type numbers 1701+.
/// Absent and empty-string fields are nil. Strings are made on request.
public struct InAppPurchase: Sendable {
    private let payload: [UInt8]
    let record: PurchaseRecord

    init(payload: [UInt8], record: PurchaseRecord) {
        self.payload = payload
        self.record = record
    }

    public var quantity: Int64? { record.quantity }
    public var productID: String? { text(record.productID) }
    public var transactionID: String? { text(record.transactionID) }
    public var purchaseDate: ReceiptDate? { date(record.purchaseDate) }
    public var originalTransactionID: String? { text(record.originalTransactionID) }
    public var originalPurchaseDate: ReceiptDate? { date(record.originalPurchaseDate) }
    public var productType: Int64? { record.productType }
    public var expiresDate: ReceiptDate? { date(record.expiresDate) }
    public var webOrderLineItemID: Int64? { record.webOrderLineItemID }
    public var cancellationDate: ReceiptDate? { date(record.cancellationDate) }
    public var isTrialPeriod: Bool? { record.isTrialPeriod }
    public var isInIntroOfferPeriod: Bool? { record.isInIntroOfferPeriod }
    public var promotionalOfferID: String? { text(record.promotionalOfferID) }

    private func text(_ span: PayloadText) -> String? {
        guard span.isPresent else { return nil }
        return withBytes(span) { String(decoding: $0, as: UTF8.self) }
    }

    private func date(_ field: PayloadDate?) -> ReceiptDate? {
        guard let field else { return nil }
        guard let written = text(field.written) else { return ReceiptDate(canonicalMilliseconds: field.milliseconds) }
        return ReceiptDate(text: written, milliseconds: field.milliseconds)
    }

    /// The span's bytes, borrowed for `body` (they must not escape it).
    func withBytes<R>(_ span: PayloadText, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        payload.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[Int(span.start)..<Int(span.start) + Int(span.count)]))
        }
    }

    /// Whether the product id is exactly `id`, without making a String of it.
    public func hasProductID(_ id: String) -> Bool {
        guard record.productID.isPresent else { return false }
        var id = id
        return id.withUTF8 { wanted in
            withBytes(record.productID) { have in
                guard have.count == wanted.count else { return false }
                guard let a = have.baseAddress, let b = wanted.baseAddress else { return true }  // both empty
                return memcmp(a, b, wanted.count) == 0
            }
        }
    }

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
