import Testing
@testable import GateKitAppStoreAPI
import GateKitHTTPS
@testable import GateKitLedger
@testable import GateKitLedgerSync
@testable import GateKitStore
@testable import GateKitSupport

/// The sync's parts that need no server: which answers wait on Apple (`awaitsRenewal`), Apple's
/// history pages as the sync reads them, the checkpoint row on both backends, and how far back
/// Apple's history reaches. The sync against a server: python/tests/test_ledger_sync.py.
@Suite struct LedgerSyncTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_735_689_600_000

    @Test func onlyAPeriodEndedWithAutoRenewOnAndNothingSinceAwaitsApple() {
        let d = Self.day, t = Self.t0
        let month = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d)
        func answer(_ renewal: RenewalVersion?, at: Int64 = t + 31 * d, _ txs: [TransactionVersion]? = nil) -> Entitlement {
            CustomerRecord(transactions: txs ?? [month], renewals: renewal.map { [$0] } ?? []).view(at: at, knownBy: nil).entitlement(to: "pro")
        }
        let renewing = LedgerModelTests.renewal(signed: t)
        #expect(answer(renewing).reason == .expired && answer(renewing).awaitsRenewal)
        #expect(!answer(renewing, at: t + d).awaitsRenewal)  // still in its period: entitled, certain
        #expect(!answer(nil).awaitsRenewal)                  // no renewal info: nothing says it renews
        var off = renewing
        off.willAutoRenew = false
        #expect(!answer(off).awaitsRenewal)
        var expired = renewing
        expired.expirationCause = .customerCancelled
        #expect(!answer(expired).awaitsRenewal)
        var retrying = renewing
        retrying.isInBillingRetryPeriod = true
        #expect(answer(retrying).reason == .billingRetry && !answer(retrying).awaitsRenewal)
        let upgraded = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d, signed: t + 2 * d, upgraded: true, identity: "u")
        #expect(!answer(renewing, [month, upgraded]).awaitsRenewal)
        let refunded = LedgerModelTests.tx("1", purchase: t, expires: t + 30 * d, signed: t + 2 * d, revoked: t + 2 * d, identity: "v")
        #expect(answer(renewing, [month, refunded]).reason == .revoked && !answer(renewing, [month, refunded]).awaitsRenewal)
        #expect(answer(renewing).json == answer(renewing).json && !JSONWriter.serialize(answer(renewing).json).contains("stale"))
        var stale = answer(renewing)
        stale.stale = true
        #expect(JSONWriter.serialize(stale.json).hasSuffix(#""stale":true}"#))
    }

    static func answer(_ body: String) -> AppStoreServerClient.Answer { .init(httpStatus: 200, body: body, decoded: nil) }

    @Test func historyPagesAreReadAsAppleWritesThem() throws {
        let page = try HistoryPage.notifications(Self.answer(#"{"notificationHistory":[{"sendAttempts":[],"signedPayload":"a.b.c"},{"signedPayload":"d.e.f"}],"hasMore":true,"paginationToken":"t1"}"#))
        #expect(page.signed == ["a.b.c", "d.e.f"] && page.hasMore && page.next == "t1")
        let last = try HistoryPage.notifications(Self.answer(#"{"hasMore":false}"#))  // Apple leaves empty lists out
        #expect(last.signed.isEmpty && !last.hasMore)
        let transactions = try HistoryPage.transactions(Self.answer(#"{"revision":"r2","hasMore":false,"signedTransactions":["x.y.z"]}"#))
        #expect(transactions.signed == ["x.y.z"] && transactions.next == "r2")
        let statuses = try HistoryPage.statuses(Self.answer(#"{"data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"status":1,"signedTransactionInfo":"t","signedRenewalInfo":"r"},{"status":2,"signedTransactionInfo":"u"}]}]}"#))
        #expect(statuses.map(\.transaction) == ["t", "u"] && statuses.map(\.renewal) == ["r", nil])
        for broken in [#"{"notificationHistory":[{"signedPayload":7}]}"#, #"{"notificationHistory":{}}"#,
                       #"{"notificationHistory":[],"hasMore":true}"#, #"{"notificationHistory":[],"hasMore":true,"paginationToken":""}"#, "[]"] {
            #expect(throws: GateKitError.self, "\(broken)") { try HistoryPage.notifications(Self.answer(broken)) }
        }
        #expect(throws: GateKitError.self) { try HistoryPage.transactions(Self.answer(#"{"signedTransactions":[1]}"#)) }
        #expect(throws: GateKitError.self) { try HistoryPage.notifications(.init(httpStatus: 200, body: nil, decoded: nil)) }
    }

    @Test func theCheckpointIsKeptAsWrittenOnEitherBackend() throws {
        let folder = TemporaryFolder()
        let store = try TestStores.open(folder.file("sync.sqlite"))
        let empty = try store.read { (db) throws(GateKitError) in try SyncState.read(db, environment: "Sandbox") }
        #expect(empty == SyncState())
        let state = SyncState(syncedUntilMs: 1_000, window: .init(startMs: 500, endMs: 2_000, pageToken: "tok", pages: 3),
                              leaseOwner: "me", leaseUntilMs: 9_000)
        try store.write(.subjects([SyncState.subject("Sandbox")])) { (db) throws(GateKitError) in
            try state.write(db, environment: "Sandbox", now: 1)
            try SyncState(syncedUntilMs: 7).write(db, environment: "Production", now: 1)
        }
        #expect(try store.read { (db) throws(GateKitError) in try SyncState.read(db, environment: "Sandbox") } == state)
        #expect(try store.read { (db) throws(GateKitError) in try SyncState.read(db, environment: "Production") } == SyncState(syncedUntilMs: 7))
        #expect(JSONWriter.serialize(state.json(environment: "Sandbox"))
                == #"{"version":1,"environment":"Sandbox","syncedUntil":1000,"window":{"start":500,"end":2000,"pages":3},"leaseUntil":9000}"#)
        #expect(try NotificationSync.state(store, environment: .xcode) == #"{"version":1,"environment":"Xcode","syncedUntil":null}"#)
    }

    /// Hardening IV, 1 and 5: a page of more items than Apple sends is refused before any is
    /// verified; a token or revision that could not be sent back is never kept.
    @Test func nothingTheServerSendsIsKeptUnlessItCanBeSentBack() throws {
        func page(_ records: Int, token: String) -> String {
            let items = Array(repeating: #"{"signedPayload":"a.b.c"}"#, count: records).joined(separator: ",")
            return #"{"notificationHistory":["# + items + #"],"hasMore":true,"paginationToken":""# + token + #""}"#
        }
        #expect(try HistoryPage.notifications(Self.answer(page(100, token: "t"))).signed.count == 100)
        #expect(throws: GateKitError.self) { try HistoryPage.notifications(Self.answer(page(101, token: "t"))) }
        let long = String(repeating: "x", count: APIEndpoint.maximumArgumentLength + 1)
        let refused = try HistoryPage.notifications(Self.answer(page(1, token: long)))
        #expect(refused.unsendableNext && refused.next == nil && refused.hasMore)
        let fits = try HistoryPage.notifications(Self.answer(page(1, token: String(long.dropFirst()))))
        #expect(!fits.unsendableNext && fits.next?.utf8.count == APIEndpoint.maximumArgumentLength)
        let revision = try HistoryPage.transactions(Self.answer(#"{"signedTransactions":[],"hasMore":false,"revision":""# + long + #""}"#))
        #expect(revision.unsendableNext && revision.next == nil)
        let many = Array(repeating: #""x.y.z""#, count: 101).joined(separator: ",")
        #expect(throws: GateKitError.self) { try HistoryPage.transactions(Self.answer(#"{"signedTransactions":["# + many + "]}")) }
        #expect(!APIEndpoint.isSendable("") && !APIEndpoint.isSendable("a\u{0}b") && APIEndpoint.isSendable("tok"))
    }

    /// Hardening IV, 3 and 22: a window starts an overlap before the checkpoint (Apple indexes
    /// late), and ends no later than the server's clock says it knows.
    @Test func windowsOverlapTheCheckpointAndNeverPassTheServersClock() {
        #expect(NotificationSync.windowStart(checkpoint: 10_000_000, overlapMs: 3_600_000) == 6_400_000)
        #expect(NotificationSync.windowStart(checkpoint: .min + 5, overlapMs: 3_600_000) == .min)
        #expect(NotificationSync.windowStart(checkpoint: nil, overlapMs: 3_600_000) == nil)
        let server: Int64 = 1_800_000_000_000, six: Int64 = 6 * 3_600_000
        #expect(NotificationSync.checkpoint(windowEnd: server + six, serverDate: server) == server)        // a clock six hours fast
        #expect(NotificationSync.checkpoint(windowEnd: server + 999, serverDate: server) == server + 999)  // within the Date's second
        #expect(NotificationSync.checkpoint(windowEnd: server - six, serverDate: server) == server - six)  // until_ms in the past
        #expect(NotificationSync.checkpoint(windowEnd: server + NotificationSync.clockToleranceMs + 1, serverDate: server) == server)
    }

    /// Hardening IV, 26: Apple's expired or unknown page token starts the window again — in
    /// this domain's suite too, not only pytest's.
    @Test func applesRefusalOfAPageTokenStartsTheWindowAgain() {
        func failure(_ code: Int64?) -> APIFailure {
            APIFailure(HTTPResponse(status: 400, contentType: "application/json", retryAfter: nil,
                                    body: Array((code.map { #"{"errorCode":\#($0)}"# } ?? "{}").utf8)))
        }
        #expect(NotificationSync.refusesToken(failure(4_000_014), sent: "t") && NotificationSync.refusesToken(failure(4_000_017), sent: "t"))
        #expect(!NotificationSync.refusesToken(failure(4_000_014), sent: nil))   // a first page refused is Apple's error
        #expect(!NotificationSync.refusesToken(failure(4_000_012), sent: "t") && !NotificationSync.refusesToken(failure(nil), sent: "t"))
    }

    @Test func historyReachesAsFarBackAsAppleKeepsIt() {
        let until: Int64 = 1_800_000_000_000
        #expect(until - NotificationSync.horizonMs(.production, until: until) == 180 * Self.day - 3_600_000)
        #expect(until - NotificationSync.horizonMs(.sandbox, until: until) == 30 * Self.day - 3_600_000)
    }
}
