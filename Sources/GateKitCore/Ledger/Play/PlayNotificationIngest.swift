import GateKitCrypto
import GateKitPlayAPI
import GateKitStore
import GateKitSupport

/// A real-time developer notification into the ledger: verified in the same call (the push's
/// OIDC token and envelope, `PushVerifier`), then the purchase it names asked of the Play
/// Developer API through the host's client, and the answer recorded (google-play.md §1.8: the
/// notification says something changed, the API says what). Idempotent by messageId: a
/// message recorded before is a duplicate without asking Google again.
extension Ledger {
    public func ingestPlayPush(authorization: String, body: [UInt8], verifier: PushVerifier,
                               client: PlayDeveloperClient) throws(GateKitError) -> IngestReport {
        let verified = try verifier.verify(authorization: authorization, body: body)
        let n = verified.notification
        guard n.packageName == client.options.packageName else {
            throw .invalid("the notification is for \(Quoted.text(n.packageName)); the client asks about \(Quoted.text(client.options.packageName))")
        }
        // Pushed under a test issuer (not Google's): test data, whoever answers about the purchase.
        let testData = verified.testSigned
        // A voided purchase is named as the sync names its voids (its typeName is the product type).
        let name = n.kind == .voidedPurchase ? "VOIDED_PURCHASE" : n.typeName ?? n.kind.rawValue
        if let scope = try recordedMessage(n.messageID) {
            return IngestReport(outcome: .duplicate, kind: .playNotification, scope: scope, identity: "", notificationType: name,
                                subtype: nil, notificationUUID: n.messageID, originalTransactionIDs: [], appAccountToken: nil, statusChanges: [])
        }
        let token = n.payload["purchaseToken"]?.stringValue
        var item: PendingItem
        switch (n.kind, token) {
        case let (.subscription, token?):
            item = try pendingPlaySubscription(try ask(client, .subscriptionGet(token: token), token), kind: .playNotification,
                                               message: n.messageID, testData: testData)
            // A revoked subscription ends at once (§5.3 REVOKED): the answer reads EXPIRED.
            if n.payload["notificationType"]?.int64Value == 12 { revoke(&item, order: nil, at: n.eventTimeMillis) }
        case let (.oneTimeProduct, token?):
            item = try pendingPlayProduct(try ask(client, .productGetV2(token: token), token), kind: .playNotification,
                                          message: n.messageID, testData: testData)
        case let (.voidedPurchase, token?):
            let isSubscription = n.payload["productType"]?.int64Value == 1
            let answer = try ask(client, isSubscription ? .subscriptionGet(token: token) : .productGetV2(token: token), token)
            item = isSubscription ? try pendingPlaySubscription(answer, kind: .playNotification, message: n.messageID, testData: testData)
                                  : try pendingPlayProduct(answer, kind: .playNotification, message: n.messageID, testData: testData)
            // A full refund revokes the voided order; a partial one (quantity) leaves the rest owned.
            if n.payload["refundType"]?.int64Value == 1 { revoke(&item, order: n.payload["orderId"]?.stringValue, at: n.eventTimeMillis) }
        default:
            // A test, a refund review, or a kind GateKit does not know: kept, changes nothing.
            item = PendingItem(kind: .playNotification, scope: LedgerScope(environment: .production, testSigned: testData),
                               bundleID: client.options.packageName,
                               identity: Hex.encode(try Digest.hash(.sha256, Array("gatekit-play-message\u{0}\(n.messageID)\u{0}".utf8) + n.document)),
                               signedMs: Clock.nowMilliseconds(), header: nil, body: String(decoding: n.document, as: UTF8.self))
        }
        item.notificationUUID = n.messageID
        item.notificationType = name
        return try commit(item)
    }

    /// The scope a message was recorded in, if it was (test data or not).
    func recordedMessage(_ messageID: String) throws(GateKitError) -> LedgerScope? {
        try store.read { (db) throws(GateKitError) -> LedgerScope? in
            for test in [false, true] {
                let scope = LedgerScope(environment: .production, testSigned: test)
                let s = try db.statement("""
                    SELECT 1 FROM ledger_items WHERE environment = ?1 AND test_signed = ?2 AND notification_uuid = ?3
                    AND notification_uuid IS NOT NULL AND store_kind = 'play-notification'
                    """)
                defer { s.reset() }
                s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: messageID)
                if try s.step() { return scope }
            }
            return nil
        }
    }

    /// Google's answer for the purchase, or the API's error (GATEKIT_EPLAY_API).
    func ask(_ client: PlayDeveloperClient, _ endpoint: PlayEndpoint, _ token: String, withinMilliseconds: Int? = nil) throws(GateKitError) -> PlayAnswer {
        switch try client.send(endpoint, withinMilliseconds: withinMilliseconds) {
        case let .success(answer):
            guard let body = answer.body else { throw GateKitError(.EPLAY_RESPONSE, "Google answered without the purchase") }
            return PlayAnswer(packageName: client.options.packageName, purchaseToken: token, bytes: Array(body.utf8),
                              answeredMs: Clock.nowMilliseconds())
        case let .failure(failure):
            throw GateKitError(.EPLAY_API, "asking Google about the purchase: \(failure.description)")
        }
    }

    /// Marks the item's transactions (`order`: only that order's; nil: all) revoked at `at`.
    func revoke(_ item: inout PendingItem, order: String?, at: Int64) {
        item.transactions = item.transactions.map { (v, text) in
            var v = v
            let id = v.transactionID
            if order == nil || id == order || id.hasPrefix((order ?? "") + "/") {
                v.revocationMs = min(at, v.signedMs)
                v.revocationReason = .other
                v.sale.refund = .full
            }
            return (v, text)
        }
    }
}
