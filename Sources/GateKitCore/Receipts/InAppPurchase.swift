import Glibc

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
