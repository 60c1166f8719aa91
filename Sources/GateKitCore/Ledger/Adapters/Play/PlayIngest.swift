import GateKitCrypto
import GateKitPlayData
import GateKitSupport

/// Ingestion of Google Play's answers (docs/ledger.md, "Google Play"). Play signs nothing a
/// server receives: what the Play Developer API answers over TLS to the app's own service
/// account is the truth, and the ledger records exactly those bytes with the package, the
/// purchase token and the instant Google answered. The answer must be the API's resource
/// (its `kind`), never a device's purchase JSON. Idempotent and order-independent as Apple's
/// data: the same answer is recorded once, the newest answered wins, an answer never changes
/// what was known before its instant.
extension Ledger {
    /// What the Play Developer API answered, and where and when it was asked.
    public struct PlayAnswer: Sendable {
        public let packageName: String
        public let purchaseToken: String
        public let bytes: [UInt8]
        /// When Google answered (Unix ms); nil: now.
        public let answeredMs: Int64?

        public init(packageName: String, purchaseToken: String, bytes: [UInt8], answeredMs: Int64?) {
            self.packageName = packageName
            self.purchaseToken = purchaseToken
            self.bytes = bytes
            self.answeredMs = answeredMs
        }
    }

    /// A subscriptionsv2.get answer (a SubscriptionPurchaseV2).
    public func ingestPlaySubscription(_ answer: PlayAnswer) throws(GateKitError) -> IngestReport {
        try commit(try pendingPlaySubscription(answer, kind: .playSubscription))
    }

    /// A productsv2.getproductpurchasev2 answer (a ProductPurchaseV2).
    public func ingestPlayProduct(_ answer: PlayAnswer) throws(GateKitError) -> IngestReport {
        try commit(try pendingPlayProduct(answer, kind: .playProduct))
    }

    /// `message`: the RTDN that led the ledger to ask (its id joins the identity: each
    /// message is recorded once); `testData`: a test issuer pushed it or a stand-in answered.
    package func pendingPlaySubscription(_ answer: PlayAnswer, kind: IngestReport.Kind, message: String? = nil,
                                 testData: Bool = false) throws(GateKitError) -> PendingItem {
        let answeredMs = try checked(answer)
        let purchase = try SubscriptionPurchase(json: answer.bytes)
        var item = try playItem(kind, answer, answeredMs: answeredMs, test: purchase.isTest || testData, message: message)
        let (transactions, renewal) = purchase.ledgerVersions(token: answer.purchaseToken, answeredMs: answeredMs, identity: item.identity)
        item.transactions = transactions.map { ($0, nil) }  // the item's text is the answer
        item.renewals = [(renewal, nil)]
        return item
    }

    /// A purchases.products.get answer (the v1 ProductPurchase) for `productID`, the product
    /// its request named: recorded as its productsv2 equivalent would be.
    public func ingestPlayProductV1(_ answer: PlayAnswer, productID: String) throws(GateKitError) -> IngestReport {
        try commit(try pendingPlayProduct(answer, kind: .playProduct, v1ProductID: productID))
    }

    package func pendingPlayProduct(_ answer: PlayAnswer, kind: IngestReport.Kind, message: String? = nil,
                            testData: Bool = false, v1ProductID: String? = nil) throws(GateKitError) -> PendingItem {
        let answeredMs = try checked(answer)
        let purchase: ProductPurchase
        if let v1ProductID { purchase = try ProductPurchase(v1: answer.bytes, productID: v1ProductID) } else { purchase = try ProductPurchase(json: answer.bytes) }
        var item = try playItem(kind, answer, answeredMs: answeredMs, test: purchase.isTest || testData, message: message)
        item.transactions = purchase.ledgerVersions(token: answer.purchaseToken, answeredMs: answeredMs, identity: item.identity).map { ($0, nil) }
        return item
    }

    /// The answer's instant, after checking where it came from.
    func checked(_ answer: PlayAnswer) throws(GateKitError) -> Int64 {
        guard PlayNames.isPackageName(answer.packageName) else {
            throw .invalid("package_name must be an Android application id (letters, digits, _ and .), not \(Quoted.text(answer.packageName))")
        }
        let token = answer.purchaseToken.utf8
        guard !token.isEmpty, token.count <= 4096, token.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalid("purchase_token must be 1 to 4096 printable ASCII bytes (Google's tokens are)")
        }
        return try Ledger.answerInstant(answer.answeredMs)
    }

    /// The item for an answer: Play's purchases are production purchases (Play has no
    /// sandbox); a license tester's are kept in the test part, never a sale. Its identity is
    /// the SHA-256 of the package, the token and the answer's bytes (the same answer asked
    /// again is a duplicate; the one Google gave first keeps its instant).
    private func playItem(_ kind: IngestReport.Kind, _ answer: PlayAnswer, answeredMs: Int64, test: Bool,
                          message: String?) throws(GateKitError) -> PendingItem {
        var hashed = Array("gatekit-play-answer\u{0}".utf8)
        hashed += Array(kind.name.utf8) + [0] + Array((message ?? "").utf8) + [0] + Array(answer.packageName.utf8) + [0]
        hashed += Array(answer.purchaseToken.utf8) + [0] + answer.bytes
        let identity = Hex.encode(try Digest.hash(.sha256, hashed))
        return PendingItem(kind: kind, scope: LedgerScope(environment: .production, testData: test),
                           appID: answer.packageName, identity: identity, vouchedMs: answeredMs, header: nil,
                           body: String(decoding: answer.bytes, as: UTF8.self))
    }

    /// Marks the item's transactions (`order`: only that order's; nil: all) revoked at `at`.
    package func revoke(_ item: inout PendingItem, order: String?, at: Int64) {
        item.transactions = item.transactions.map { (v, text) in
            var v = v
            let id = v.transactionID
            if order == nil || id == order || id.hasPrefix((order ?? "") + "/") {
                v.revocationMs = min(at, v.vouchedMs)
                v.revocationReason = .other
                v.sale.refund = .full
            }
            return (v, text)
        }
    }

    /// A push that names no purchase (a test, a refund review, a kind GateKit does not know):
    /// kept as its document, changing nothing.
    package func pendingPlayMessage(_ messageID: String, document: [UInt8], packageName: String,
                                    testData: Bool) throws(GateKitError) -> PendingItem {
        PendingItem(kind: .playNotification, scope: LedgerScope(environment: .production, testData: testData), appID: packageName,
                    identity: Hex.encode(try Digest.hash(.sha256, Array("gatekit-play-message\u{0}\(messageID)\u{0}".utf8) + document)),
                    vouchedMs: Clock.nowMilliseconds(), header: nil, body: String(decoding: document, as: UTF8.self))
    }
}
