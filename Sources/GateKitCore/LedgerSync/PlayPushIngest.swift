import GateKitCrypto
import GateKitLedger
import GateKitPlayAPI
import GateKitPlayData
import GateKitStore
import GateKitSupport

/// A real-time developer notification into the ledger: verified in the same call (the push's
/// OIDC token and envelope, `PushVerifier`), then the purchase it names asked of the Play
/// Developer API through the host's client, and the answer recorded (google-play.md §1.8: the
/// notification says something changed, the API says what). A push is a hint, never a verdict:
/// Pub/Sub reuses its token for an hour and the token does not cover the body, so the body's
/// type, time and refund fields decide nothing. A push saying "revoked" or "voided" has Google's
/// voided purchases list read for the token, and only a void that list holds is recorded, at
/// the instant Google gives. Idempotent by messageId and the purchase it names: a redelivery is
/// a duplicate without asking Google again, and a push recorded under a message id Google has
/// not used yet cannot make Google's later push with that id one.
extension Ledger {
    public func ingestPlayPush(authorization: [UInt8], body: [UInt8], verifier: PushVerifier,
                               client: PlayDeveloperClient) throws(GateKitError) -> IngestReport {
        let verified = try verifier.verify(authorization: authorization, body: body)
        let n = verified.notification
        guard n.packageName == client.options.packageName else {
            throw .invalid("the notification is for \(Quoted.text(n.packageName)); the client asks about \(Quoted.text(client.options.packageName))")
        }
        guard !n.messageID.hasPrefix(Ledger.playVoidPrefix) else {
            throw GateKitError(.EPUSH_MESSAGE, "the messageId begins with \(Quoted.text(Ledger.playVoidPrefix)), which names the voids Google's list gives the ledger; Pub/Sub's ids are numbers")
        }
        // Pushed under a test issuer (not Google's): test data, whoever answers about the purchase.
        let testData = verified.testSigned
        // A voided purchase is named as the sync names its voids (its typeName is the product type).
        let name = n.kind == .voidedPurchase ? "VOIDED_PURCHASE" : n.typeName ?? n.kind.rawValue
        let token = n.payload["purchaseToken"]?.stringValue
        let key: String
        switch try recordedPush(n.messageID, naming: token) {
        case let .duplicate(scope):
            return .duplicatePlayMessage(scope: scope, type: name, key: n.messageID, token: token)
        case let .new(free): key = free
        }
        var item: PendingItem
        var voids: [VoidedPurchasesPage.Entry] = []
        switch (n.kind, token) {
        case let (.subscription, token?):
            item = try pendingPlaySubscription(try ask(client, .subscriptionGet(token: token), token), kind: .playNotification,
                                               message: key, testData: testData)
            if n.payload["notificationType"]?.int64Value == PlayNames.subscriptionRevoked {
                voids = try playVoids(of: token, from: n.eventTimeMillis, client: client)
            }
        case let (.oneTimeProduct, token?):
            item = try pendingPlayProduct(try ask(client, .productGetV2(token: token), token), kind: .playNotification,
                                          message: key, testData: testData)
        case let (.voidedPurchase, token?):
            let isSubscription = n.payload["productType"]?.int64Value == PlayNames.voidedSubscription
            let answer = try ask(client, isSubscription ? .subscriptionGet(token: token) : .productGetV2(token: token), token)
            item = isSubscription ? try pendingPlaySubscription(answer, kind: .playNotification, message: key, testData: testData)
                                  : try pendingPlayProduct(answer, kind: .playNotification, message: key, testData: testData)
            voids = try playVoids(of: token, from: n.eventTimeMillis, client: client)
        default:
            // A test, a refund review, or a kind GateKit does not know: kept, changes nothing.
            item = try pendingPlayMessage(n.messageID, document: n.document, packageName: client.options.packageName, testData: testData)
        }
        item.notificationUUID = key
        item.notificationType = name
        var report = try commit(item)
        report.notificationUUID = n.messageID  // whatever key it was recorded under
        if let token, !voids.isEmpty, let holding = try playHolding(token: token) {
            for void in voids { report = try recordPlayVoid(void, holding: holding, client: client) }
        }
        return report
    }

    /// Pages of Google's voided purchases list read for one push (a forged event time can widen
    /// the window to Google's 30 days; more pages are the sync's).
    static let pushVoidPages = 5

    /// The voids Google lists for `token`, read from a little before `eventMs` (clamped into
    /// the 30 days Google keeps). The event time only chooses where to look: what is found is
    /// Google's, with Google's instants.
    func playVoids(of token: String, from eventMs: Int64, client: PlayDeveloperClient) throws(GateKitError) -> [VoidedPurchasesPage.Entry] {
        let now = Clock.nowMilliseconds()
        let start = max(min(eventMs, now) &- VoidedPurchasesPage.lateRecordingMs, now &- VoidedPurchasesPage.horizonMs)
        var found: [VoidedPurchasesPage.Entry] = []
        var pageToken: String?
        var sent = Set<String>()
        for _ in 0..<Ledger.pushVoidPages {
            let page = try VoidedPurchasesPage.read(client, startMs: start, pageToken: pageToken, withinMilliseconds: nil)
            found += page.entries.filter { $0.purchaseToken == token }
            guard let next = page.nextPageToken, sent.insert(next).inserted else { break }
            pageToken = next
        }
        return found
    }

    /// Google's answer for the purchase, or the API's error (GATEKIT_EPLAY_API).
    func ask(_ client: PlayDeveloperClient, _ endpoint: PlayEndpoint, _ token: String, withinMilliseconds: Int? = nil) throws(GateKitError) -> PlayAnswer {
        switch try client.send(endpoint, withinMilliseconds: withinMilliseconds) {
        case let .success(answer):
            guard let body = answer.body else { throw GateKitError(.EPLAY_RESPONSE, "Google answered without the purchase") }
            return PlayAnswer(packageName: client.options.packageName, purchaseToken: token, bytes: Array(body.utf8),
                              answeredMs: Clock.nowMilliseconds())
        case let .failure(failure):
            throw failure.error("asking Google about the purchase")
        }
    }
}
