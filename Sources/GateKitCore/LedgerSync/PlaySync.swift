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
        let key = PlaySync.key(package)
        let subject = SyncState.subject(key)
        let owner = LeaseOwner.make()
        let now = Clock.nowMilliseconds()
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(options.budgetMs) &* 1_000_000
        func left() -> Int? {
            let clock = Clock.monotonicNanoseconds()
            return clock < deadline ? Int(min((deadline - clock) / 1_000_000, UInt64(Int32.max))) : nil
        }
        /// Whether the budget is (all but) spent: a request it cut short ends the call as partial.
        func spent() -> Bool { left().map { $0 < 20 } ?? true }
        var report = Report(packageName: package)
        // The lease: one sync per package at a time.
        let taken = try ledger.store.write(.subjects([subject])) { (db) throws(GateKitError) -> (SyncState, Bool) in
            var state = try SyncState.read(db, environment: key)
            if let holder = state.leaseOwner, holder != owner, (state.leaseUntilMs ?? 0) > now { return (state, false) }
            state.leaseOwner = owner
            state.leaseUntilMs = now + options.leaseMs
            try state.write(db, environment: key, now: now)
            return (state, true)
        }
        var state = taken.0
        report.state = state
        guard taken.1 else {
            report.outcome = .busy
            report.stoppedBy = .busy
            return report
        }
        defer {
            // The lease goes back whatever happened (a failure leaves it to lapse otherwise).
            var released = state
            released.leaseOwner = nil
            released.leaseUntilMs = nil
            _ = try? ledger.store.write(.subjects([subject])) { (db) throws(GateKitError) in
                if try SyncState.read(db, environment: key).leaseOwner == owner { try released.write(db, environment: key, now: Clock.nowMilliseconds()) }
            }
        }
        // 1. The voided list, page by page. The window remembers its pages' tokens across calls (a
        // repeat is a cycle); the earliest Date they carried: the checkpoint never passes Google's
        // clock, so a host whose clock runs fast cannot make the next sync skip voids Google
        // records meanwhile.
        var windowServerDate: Int64?
        while true {
            if state.window == nil {
                let from = max((state.syncedUntilMs ?? 0) &- options.overlapMs, now - VoidedPurchasesPage.horizonMs)  // a stored checkpoint may be anything
                guard from < now else { break }
                state.window = SyncState.Window(startMs: from, endMs: now, pageToken: nil, pages: 0)
            }
            guard let window = state.window else { break }
            guard let budget = left() else {
                report.outcome = .partial
                report.stoppedBy = .budget
                break
            }
            if let maximum = options.maximumPages, report.pages >= maximum {
                report.outcome = .partial
                report.stoppedBy = .maximumPages
                break
            }
            let page: VoidedPurchasesPage
            do throws(GateKitError) {
                page = try VoidedPurchasesPage.read(client, startMs: window.startMs, pageToken: window.pageToken, withinMilliseconds: budget)
            } catch where error.code == .EPLAY_TRANSPORT && spent() {
                report.outcome = .partial  // the budget ran out inside the request: the page is asked again next time
                report.stoppedBy = .budget
                break
            }
            if let date = page.serverDate {
                report.clockSkewMs = Clock.nowMilliseconds() &- date
                windowServerDate = min(windowServerDate ?? date, date)
            }
            try PlayVoidedIngest.record(page.entries, ledger, client: client, into: &report.voids)
            var next = state
            if let token = page.nextPageToken {
                var seen = window.tokensSeen
                if let sent = window.pageToken { seen.append(SyncState.Window.digest(sent)) }
                seen = Array(seen.suffix(SyncState.Window.maximumTokensSeen))
                if seen.contains(SyncState.Window.digest(token)) || token.utf8.count > VoidedPurchasesPage.maximumPageTokenLength {
                    // A cycle, or a token that cannot be sent back: this page's voids are
                    // recorded; the window is read again from its start (each void once).
                    guard window.restarts < PlaySync.maximumRestarts else {
                        throw GateKitError(.EPLAY_RESPONSE, "voidedpurchases.list: the page token repeated an earlier one of the window (or cannot be sent back), and the window was already begun again \(PlaySync.maximumRestarts) times")
                    }
                    report.restartedWindows += 1
                    next.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: nil, pages: 0,
                                                   restarts: window.restarts + 1)
                } else {
                    next.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: token, pages: window.pages &+ 1,
                                                   tokensSeen: seen, restarts: window.restarts)
                }
            } else {
                next.window = nil
                next.syncedUntilMs = min(window.endMs, windowServerDate ?? window.endMs)
                windowServerDate = nil
            }
            let committed = Clock.nowMilliseconds()
            next.leaseUntilMs = committed + options.leaseMs
            let checkpoint = next
            try ledger.store.write(.subjects([subject])) { (db) throws(GateKitError) in
                guard try SyncState.read(db, environment: key).leaseOwner == owner else {
                    throw GateKitError(.EBUSY, "another host took over this package's sync (the lease of \(options.leaseMs) ms lapsed)")
                }
                try checkpoint.write(db, environment: key, now: committed)
            }
            state = next
            report.pages += 1
            if state.window == nil { break }
        }
        report.state = state
        guard report.stoppedBy != .budget, options.maximumRefreshes > 0 else { return report }
        // 2. The refresh of every token whose answer may have changed, in token order from where
        // the last call stopped, round to it again: a small max_refreshes or budget reaches every
        // due token in turn instead of the first ones again and again.
        let start = state.refreshCursor
        var cursor = start
        var wrapped = start == nil
        while true {
            let (due, next) = try ledger.playTokensToRefresh(after: cursor, limit: 500, now: now)
            for (token, holding) in due {
                if wrapped, let start, token >= start {
                    state.refreshCursor = nil  // round to where this call began: every due token asked
                    return report
                }
                guard report.refreshed + report.refreshFailures.count < options.maximumRefreshes, let budget = left() else {
                    report.outcome = .partial
                    report.stoppedBy = .budget
                    return report
                }
                do throws(GateKitError) {
                    _ = try ledger.refreshPlay(token: token, holding: holding, client: client, withinMilliseconds: budget)
                    report.refreshed += 1
                } catch where error.code == .EPLAY_API {
                    report.refreshFailures.append((token, error.message))
                } catch where error.code == .EPLAY_TRANSPORT && spent() {
                    report.outcome = .partial
                    report.stoppedBy = .budget
                    return report
                }
                state.refreshCursor = token
            }
            cursor = next
            if cursor == nil {
                if wrapped { state.refreshCursor = nil; break }
                wrapped = true
            }
        }
        return report
    }
}
