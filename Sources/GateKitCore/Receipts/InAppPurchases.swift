import Glibc

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
