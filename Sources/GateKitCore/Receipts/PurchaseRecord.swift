import Glibc

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
