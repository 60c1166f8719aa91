import GateKitLedger
import GateKitPlayAPI
import GateKitPlayData
import GateKitStore
import GateKitSupport

/// Asking Google again about a Play purchase the ledger holds (a sync's refresh, a voided
/// order, refresh-before-deny, an acknowledgement): the answer is recorded in the part of the
/// ledger that holds the token (test data stays test data), as a subscription or a one-time
/// product as held.
extension Ledger {
    /// Asks Google about `token` (held as `holding`) and records the answer.
    public func refreshPlay(token: String, holding: PlayHolding, client: PlayDeveloperClient,
                            withinMilliseconds: Int? = nil) throws(GateKitError) -> IngestReport {
        try commit(try askedItem(token: token, holding: holding, client: client, message: nil, withinMilliseconds: withinMilliseconds))
    }

    /// A void from Google's voided purchases list: the purchase asked about again and the
    /// answer recorded with the order revoked at Google's voided instant (all of a one-time
    /// purchase's items; a quantity-based partial refund revokes nothing). Recorded once per
    /// void: a void recorded before is a duplicate without asking Google.
    package func recordPlayVoid(_ void: VoidedPurchasesPage.Entry, holding: PlayHolding,
                               client: PlayDeveloperClient) throws(GateKitError) -> IngestReport {
        let token = void.purchaseToken
        let message = "\(Ledger.playVoidPrefix)\(void.orderID ?? token):\(void.voidedMs)"
        if let scope = try recordedVoid(message) {
            return .duplicatePlayMessage(scope: scope, type: "VOIDED_PURCHASE", key: message, token: token)
        }
        var item = try askedItem(token: token, holding: holding, client: client, message: message, withinMilliseconds: nil)
        if void.voidedQuantity == nil { revoke(&item, order: holding.isSubscription ? void.orderID : nil, at: void.voidedMs) }
        item.notificationUUID = message
        item.notificationType = "VOIDED_PURCHASE"
        return try commit(item)
    }

    private func askedItem(token: String, holding: PlayHolding, client: PlayDeveloperClient, message: String?,
                           withinMilliseconds: Int?) throws(GateKitError) -> PendingItem {
        let kind: IngestReport.Kind = message == nil ? (holding.isSubscription ? .playSubscription : .playProduct) : .playNotification
        if holding.isSubscription {
            let answer = try ask(client, .subscriptionGet(token: token), token, withinMilliseconds: withinMilliseconds)
            return try pendingPlaySubscription(answer, kind: kind, message: message, testData: holding.scope.testData)
        }
        let answer = try ask(client, .productGetV2(token: token), token, withinMilliseconds: withinMilliseconds)
        return try pendingPlayProduct(answer, kind: kind, message: message, testData: holding.scope.testData)
    }
}

extension Ledger {
    /// Up to `limit` Play purchase tokens after `cursor` (in token order) whose answer may have
    /// changed by `now` without the ledger hearing of it: a period ended with auto-renew on, an
    /// ended period whose answer was not yet EXPIRED, a grace period, an account hold, a pause,
    /// a pending purchase, and a token another replaced
    /// whose own answer still gives access (Google's answer after the replacement ends it: the
    /// metrics then count no overlap). The last token looked at is returned as the next cursor
    /// (nil: the end).
    public func playTokensToRefresh(after cursor: String?, limit: Int, now: Int64) throws(GateKitError) -> (tokens: [(String, PlayHolding)], next: String?) {
        let page = try playTokens(after: cursor, limit: limit)
        var due: [(String, PlayHolding)] = []
        for (token, test) in page {
            let scope = LedgerScope(environment: .production, testData: test)
            let record = try wholeRecord(of: token, scope: scope)
            let view = record.view(of: token, at: now, knownBy: nil)
            let subscriptions = view.subscriptions
            let own = record.transactions.filter { $0.purchaseID == token }.max { $1.isNewer(than: $0) }
            let replacedUnsaid = subscriptions.contains { $0.latest.isUpgraded } && own.map { !$0.isUpgraded && ($0.expiresMs ?? .min) > now } ?? false
            let waiting = subscriptions.contains { s in
                switch s.status {
                case .billingGracePeriod, .billingRetry, .paused, .pending: true
                case .expired: (LedgerView.awaitsRenewal(s.renewal) && !s.latest.isUpgraded) || Ledger.awaitsGooglesLastWord(s.latest, now: now)
                case .active, .revoked: false
                }
            } || replacedUnsaid || (subscriptions.isEmpty && view.current.transactions.contains { $0.isPending })
            if waiting { due.append((token, PlayHolding(scope: scope, isSubscription: !subscriptions.isEmpty))) }
        }
        return (due, page.count < limit ? nil : page.last?.0)
    }
}

extension Ledger {
    /// Google keeps answering about a subscription this long after it expired (later: 410 Gone).
    static let playAnswersAfterExpiry: Int64 = 60 * 86_400_000

    /// An ended subscription whose last answer was not EXPIRED (a lost SUBSCRIPTION_EXPIRED
    /// push leaves CANCELED or ACTIVE): asked once more while Google still answers, so the
    /// ledger holds Google's final state, not only the right entitlement.
    static func awaitsGooglesLastWord(_ t: TransactionVersion, now: Int64) -> Bool {
        guard t.store == .play, let state = t.storeState, state != "SUBSCRIPTION_STATE_EXPIRED", let expires = t.expiresMs else { return false }
        return expires <= now && now &- expires < playAnswersAfterExpiry
    }
}

extension Ledger {
    /// Acknowledges a held Play purchase to Google (§5.5: one not acknowledged within three days
    /// is refunded and revoked) and records Google's answer after it, which says so. The
    /// subscription's (or product's) id is the one the ledger holds for the token.
    public func acknowledgePlay(token: String, client: PlayDeveloperClient) throws(GateKitError) -> IngestReport {
        guard let holding = try playHolding(token: token) else {
            throw GateKitError(.ENOTFOUND, "the ledger holds no Google Play purchase with this token: ingest Google's answer first")
        }
        let record = try wholeRecord(of: token, scope: holding.scope)
        // The product of the token's own newest version: a subscription's id is its group (Play's productId).
        guard let newest = record.transactions.filter({ $0.purchaseID == token }).max(by: { $1.isNewer(than: $0) }) else {
            throw GateKitError(.ENOTFOUND, "the ledger holds no Google Play purchase with this token: ingest Google's answer first")
        }
        let endpoint: PlayEndpoint = holding.isSubscription
            ? try .subscriptionAcknowledge(subscriptionID: newest.groupID ?? newest.productID, token: token, request: nil)
            : try .productAcknowledge(productID: newest.productID, token: token, request: nil)
        if case let .failure(failure) = try client.send(endpoint) {
            throw failure.error("acknowledging the purchase")
        }
        return try refreshPlay(token: token, holding: holding, client: client)
    }
}
