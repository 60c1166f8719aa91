import GateKitLedger
import GateKitPlayAPI
import GateKitPlayData
import GateKitStore
import GateKitSupport

/// Heals the ledger's Google Play purchases (docs/ledger.md, "Google Play"): what an RTDN lost
/// to an outage would have told it. Two passes, within one budget, under one lease per package
/// (another host finds it busy and returns at once):
/// 1. the voided-purchases list (refunds, chargebacks, revocations; subscriptions included)
///    from the checkpoint, page by page; each void is recorded once (the purchase asked about
///    again, the order revoked at its voided instant), the next page token kept with the
///    lease, so a sync killed at any point resumes from its page;
/// 2. a refresh of every held token whose answer may have changed since (`playTokensToRefresh`).
public enum PlaySync {
    public struct Options: Sendable {
        /// Each window starts this long before the checkpoint (Google records voids late).
        public var overlapMs: Int64 = 600_000
        public var budgetMs: Int64 = 600_000
        /// Pages of the voided list per call; nil: until caught up or out of budget.
        public var maximumPages: Int?
        public var leaseMs: Int64 = 120_000
        /// Tokens refreshed per call; 0: no refresh pass.
        public var maximumRefreshes = 1000

        public init() {}
    }

    public struct Report: Sendable {
        public var outcome = NotificationSync.Outcome.done
        public var stoppedBy = NotificationSync.Stop.caughtUp
        public let packageName: String
        public var pages = 0
        /// Voids recorded, already recorded (duplicates), and of tokens the ledger does not hold
        /// (nothing to revoke: a purchase never ingested).
        public var voids = PlayVoidedIngest.Report()
        public var refreshed = 0
        /// Windows begun again because Google repeated an earlier page token of the window.
        public var restartedWindows = 0
        /// This host's clock minus Google's (its `Date`), as last seen; nil: no Date seen.
        public var clockSkewMs: Int64?
        /// Tokens Google would not answer about (an error each; the rest go on).
        public var refreshFailures: [(token: String, error: String)] = []
        var state = SyncState()

        public var json: String {
            JSONWriter.serialize(.object([
                ("version", .number(1)), ("outcome", .string(outcome.name)), ("stoppedBy", .string(stoppedBy.rawValue)),
                ("packageName", .string(packageName)), ("pages", .number(Int64(pages))), ("voided", .number(Int64(voids.voided))),
                ("voidedBefore", .number(Int64(voids.voidedBefore))), ("voidedUnknown", .number(Int64(voids.voidedUnknown))),
                ("refreshed", .number(Int64(refreshed))), ("restartedWindows", .number(Int64(restartedWindows))),
                ("clockSkewMs", clockSkewMs.map { .number($0) } ?? .null),
                ("refreshFailures", .array(refreshFailures.map { .object([("purchaseToken", .string($0.token)), ("error", .string($0.error))]) })),
                ("state", state.json(environment: PlaySync.key(packageName))),
            ]))
        }
    }

    /// Windows begun again (a page token repeated) before the sync fails.
    static let maximumRestarts = 3

    /// A package's sync state is named "play:<package>" beside Apple's environments.
    static let statePrefix = "play:"

    static func key(_ packageName: String) -> String { statePrefix + packageName }

    /// The package a sync state's name ("play:<package>", what the report prints) is of; nil
    /// for any other name.
    public static func packageName(ofState name: String) -> String? {
        guard name.hasPrefix(statePrefix) else { return nil }
        let package = String(name.dropFirst(statePrefix.count))
        return PlayNames.isPackageName(package) ? package : nil
    }

    /// Where a package's Play sync stands, as `ledger_sync_state` gives an environment's.
    public static func state(_ store: Store, packageName: String) throws(GateKitError) -> String {
        JSONWriter.serialize(try store.read { (db) throws(GateKitError) -> SyncState in
            try SyncState.read(db, environment: key(packageName))
        }.json(environment: key(packageName), now: Clock.nowMilliseconds(), toleranceMs: NotificationSync.clockToleranceMs))
    }

    public static func run(ledger: Ledger, client: PlayDeveloperClient, options: Options) throws(GateKitError) -> Report {
        guard options.budgetMs > 0, options.leaseMs > 0, options.overlapMs >= 0, options.maximumRefreshes >= 0,
              (options.maximumPages ?? 1) > 0 else {
            throw .invalid("budget_ms and lease_ms must be positive, overlap_ms and max_refreshes 0 or more, max_pages positive")
        }
        let package = client.options.packageName
        let now = Clock.nowMilliseconds()
        var paging = PagedSync(store: ledger.store, name: PlaySync.key(package), leaseMs: options.leaseMs, budgetMs: options.budgetMs,
                               maximumPages: options.maximumPages, maximumRestarts: Int64(PlaySync.maximumRestarts), malformed: .EPLAY_RESPONSE)
        var report = Report(packageName: package)
        // The lease: one sync per package at a time.
        guard try paging.takeLease(now: now) else {
            report.state = paging.state
            report.outcome = .busy
            report.stoppedBy = .busy
            return report
        }
        var refreshCursor = paging.state.refreshCursor
        defer {
            // The lease goes back whatever happened (a failure leaves it to lapse otherwise),
            // with where the refresh pass stopped.
            _ = try? paging.releaseLease { $0.refreshCursor = refreshCursor }
        }
        // 1. The voided list, page by page (`PagedSync`: the window remembers its pages' tokens
        // across calls, a repeat is a cycle; the checkpoint never passes Google's clock, so a host
        // whose clock runs fast cannot make the next sync skip voids Google records meanwhile).
        while true {
            if paging.state.window == nil {
                let from = max((paging.state.syncedUntilMs ?? 0) &- options.overlapMs, now - VoidedPurchasesPage.horizonMs)  // a stored checkpoint may be anything
                guard from < now else { break }
                paging.open(startMs: from, endMs: now)
            }
            guard let window = paging.state.window else { break }
            guard let budget = paging.nextRequestTimeout() else {
                report.outcome = .partial
                report.stoppedBy = paging.stoppedBy == .maximumPages ? .maximumPages : .budget
                break
            }
            let page: VoidedPurchasesPage
            do throws(GateKitError) {
                page = try VoidedPurchasesPage.read(client, startMs: window.startMs, pageToken: window.pageToken, withinMilliseconds: budget)
            } catch where error.code == .EPLAY_TRANSPORT && paging.isSpent() {
                report.outcome = .partial  // the budget ran out inside the request: the page is asked again next time
                report.stoppedBy = .budget
                break
            }
            paging.heard(serverDate: page.serverDate)
            try PlayVoidedIngest.record(page.entries, ledger, client: client, into: &report.voids)
            let token = page.nextPageToken
            let (next, unusable) = paging.after(window, next: token, sendable: (token?.utf8.count ?? 0) <= VoidedPurchasesPage.maximumPageTokenLength) {
                (end, serverDate) in min(end, serverDate ?? end)
            }
            try ledger.store.write(.subjects([paging.subject]), paging.commit(next))
            paging.recorded(next)
            report.pages = paging.pages
            report.restartedWindows = paging.restartedWindows
            report.clockSkewMs = paging.clockSkewMs
            try paging.failIfExhausted(unusable, window, what: "voidedpurchases.list")
            if paging.state.window == nil { break }
        }
        report.state = paging.state
        guard report.stoppedBy != .budget, options.maximumRefreshes > 0 else { return report }
        // 2. The refresh of every token whose answer may have changed, in token order from where
        // the last call stopped, round to it again: a small max_refreshes or budget reaches every
        // due token in turn instead of the first ones again and again.
        let start = refreshCursor
        var cursor = start
        var wrapped = start == nil
        while true {
            let (due, next) = try ledger.playTokensToRefresh(after: cursor, limit: 500, now: now)
            for (token, holding) in due {
                if wrapped, let start, token >= start {
                    refreshCursor = nil  // round to where this call began: every due token asked
                    return report
                }
                guard report.refreshed + report.refreshFailures.count < options.maximumRefreshes, let budget = paging.remainingMilliseconds() else {
                    report.outcome = .partial
                    report.stoppedBy = .budget
                    return report
                }
                do throws(GateKitError) {
                    _ = try ledger.refreshPlay(token: token, holding: holding, client: client, withinMilliseconds: budget)
                    report.refreshed += 1
                } catch where error.code == .EPLAY_API {
                    report.refreshFailures.append((token, error.message))
                } catch where error.code == .EPLAY_TRANSPORT && paging.isSpent() {
                    report.outcome = .partial
                    report.stoppedBy = .budget
                    return report
                }
                refreshCursor = token
            }
            cursor = next
            if cursor == nil {
                if wrapped { refreshCursor = nil; break }
                wrapped = true
            }
        }
        return report
    }
}
