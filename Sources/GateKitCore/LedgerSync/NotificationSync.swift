import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitStore
import GateKitSupport

/// Heals the ledger from Apple's Get Notification History: every notification the App Store
/// attempted to send since the last sync, delivered or lost, verified and ingested as if it
/// had arrived (idempotent: what did arrive is a duplicate). docs/ledger.md, "Syncing from
/// Apple", states the guarantees:
/// - each page is ingested in one durable transaction with the checkpoint that follows it, so a
///   sync killed at any point resumes from the last page recorded, losing and repeating nothing
///   but that page's fetch;
/// - one host syncs an environment at a time (a lease in the store, renewed with every page);
///   another finds it busy and returns at once;
/// - each window starts `overlapMs` before the checkpoint: Apple's history is indexed late.
public enum NotificationSync {
    public struct Options: Sendable {
        /// How each notification is verified (as `ledger_ingest_notification`); its environment
        /// is the client's.
        public var verification: JWSOptions
        /// The first sync only (no checkpoint yet): where history starts; nil: as far back as
        /// Apple keeps it.
        public var sinceMs: Int64?
        /// Where the sync stops; nil: now (the server's now, when its clock and the host's differ).
        public var untilMs: Int64?
        public var overlapMs = Options.defaultOverlapMs
        /// Stop after this long (the next call resumes); it bounds each request too, so a
        /// server that trickles its answer cannot hold the sync past it.
        public var budgetMs = Options.defaultBudgetMs
        /// Stop after this many pages; nil: until caught up or out of budget.
        public var maximumPages: Int?
        /// How long the lease lasts without a page recorded: another host takes over a sync
        /// that stopped (killed, partitioned) after this long.
        public var leaseMs = Options.defaultLeaseMs

        public static let defaultOverlapMs: Int64 = 3_600_000
        public static let defaultLeaseMs: Int64 = 120_000
        public static let defaultBudgetMs: Int64 = 600_000

        public init(verification: JWSOptions) { self.verification = verification }
    }

    public enum Outcome: Int32, Sendable {
        case done = 1     // caught up: everything Apple attempted before the end is ingested
        case partial = 2  // stopped by the budget or the page limit: call again to go on
        case busy = 3     // another host is syncing this environment: nothing was done

        var name: String {
            switch self {
            case .done: "done"
            case .partial: "partial"
            case .busy: "busy"
            }
        }
    }

    /// Why a sync stopped (the report's "stoppedBy").
    public enum Stop: String, Sendable {
        case caughtUp = "caught-up", budget, maximumPages = "max-pages", busy
    }

    public struct Report: Sendable {
        public var outcome: Outcome
        package var stoppedBy = Stop.caughtUp
        public let environment: String
        package var pages = 0
        var tally = IngestTally()
        var state = SyncState()
        /// Windows begun again because the server's page token could not be used: Apple refused
        /// it (expired or unknown), it could not be sent back (`unsendableTokens`), or it
        /// repeated one of the window's earlier tokens (`repeatedTokens`).
        package var restartedWindows = 0
        package var unsendableTokens = 0
        package var repeatedTokens = 0
        /// History Apple no longer keeps between the checkpoint and its horizon: lost for good.
        package var gap: (fromMs: Int64, toMs: Int64)?
        /// The host's clock minus the server's (its `Date`), as last seen; nil: no Date seen.
        package var clockSkewMs: Int64?
        /// A checkpoint later than the server's clock (written by a host whose clock ran
        /// fast) was found and history read again from `toMs`.
        package var healed: (fromMs: Int64, toMs: Int64)?

        public var json: String {
            var members: [(String, JSONValue)] = [("version", .number(1)), ("outcome", .string(outcome.name)),
                                                  ("stoppedBy", .string(stoppedBy.rawValue)),
                                                  ("environment", .string(environment)), ("pages", .number(pages))]
            members += tally.members
            members.append(("syncedUntil", state.syncedUntilMs.map { .number($0) } ?? .null))
            if let window = state.window {
                members.append(("window", .object([("start", .number(window.startMs)), ("end", .number(window.endMs)), ("pages", .number(window.pages))])))
            }
            if outcome == .busy, let until = state.leaseUntilMs { members.append(("leaseUntil", .number(until))) }
            members.append(("restartedWindows", .number(restartedWindows)))
            if unsendableTokens > 0 { members.append(("unsendableTokens", .number(unsendableTokens))) }
            if repeatedTokens > 0 { members.append(("repeatedTokens", .number(repeatedTokens))) }
            if let gap { members.append(("gap", .object([("from", .number(gap.fromMs)), ("to", .number(gap.toMs))]))) }
            if let clockSkewMs { members.append(("clockSkewMs", .number(clockSkewMs))) }
            if let healed { members.append(("healed", .object([("checkpoint", .number(healed.fromMs)), ("from", .number(healed.toMs))]))) }
            return JSONWriter.serialize(.object(members))
        }
    }

    /// Apple keeps 180 days of Production history and 30 of Sandbox; an hour is left for the
    /// clocks of two machines to differ.
    static func horizonMs(_ environment: AppStoreEnvironment, until: Int64) -> Int64 {
        let days: Int64 = environment == .production ? 180 : 30
        return until - days * 86_400_000 + 3_600_000
    }

    /// How far the host's clock may be from the server's before the server's is believed.
    static let clockToleranceMs: Int64 = 60_000

    /// Where a window after `checkpoint` starts: `overlapMs` before it, since Apple indexes
    /// its history late (a notification first attempted just before the checkpoint may be
    /// listed only after it). Saturating: a checkpoint is the store's data, not trusted to be in
    /// range. Nil without a checkpoint.
    static func windowStart(checkpoint: Int64?, overlapMs: Int64) -> Int64? {
        checkpoint.map { $0.subtractingReportingOverflow(overlapMs).overflow ? Int64.min : $0 - overlapMs }
    }

    /// The checkpoint a finished window leaves: its end, but never past what the server has
    /// shown it knows (its `Date`), so a host whose clock runs fast cannot move every host's
    /// checkpoint into the future. The Date counts whole seconds: within the tolerance, the end.
    static func checkpoint(windowEnd: Int64, serverDate: Int64) -> Int64 {
        windowEnd > serverDate &+ clockToleranceMs ? serverDate : windowEnd
    }

    /// Apple's errors for a page token it no longer knows: the window is read again from its start.
    static let refusedPageToken: Set<Int64> = [4_000_014, 4_000_017]

    /// Whether Apple's answer refuses the page token sent (expired or unknown): the window is
    /// then read again from its first page. A first page (no token) refused is Apple's error.
    static func refusesToken(_ failure: APIFailure, sent token: String?) -> Bool {
        token != nil && failure.errorCode.map(refusedPageToken.contains) == true
    }
    /// Windows begun again in one sync before the server is taken to be broken.
    static let maximumRestarts = 3

    public static func run(ledger: Ledger, client: AppStoreServerClient, options: Options) throws(GateKitError) -> Report {
        let environment = options.verification.environment
        try check(options, client: client)
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(options.budgetMs) &* 1_000_000
        let now = Clock.nowMilliseconds()
        var until = min(options.untilMs ?? now, now)
        let lease = options.leaseMs
        let owner = LeaseOwner.make()
        let subject = SyncState.subject(environment.rawValue)
        var report = Report(outcome: .done, environment: environment.rawValue)

        let taken = try ledger.store.write(.subjects([subject])) { (db) throws(GateKitError) -> (SyncState, Bool) in
            var state = try SyncState.read(db, environment: environment.rawValue)
            if let holder = state.leaseOwner, holder != owner, (state.leaseUntilMs ?? 0) > now { return (state, false) }
            state.leaseOwner = owner
            state.leaseUntilMs = now + lease
            try state.write(db, environment: environment.rawValue, now: now)
            return (state, true)
        }
        var state = taken.0
        report.state = state
        guard taken.1 else {
            report.outcome = .busy
            report.stoppedBy = .busy
            return report
        }
        /// What is left of the budget for one request; nil: spent.
        func remainingMilliseconds() -> Int? {
            let clock = Clock.monotonicNanoseconds()
            guard clock < deadline else { return nil }
            return Int(min((deadline - clock) / 1_000_000, UInt64(Int32.max)))
        }
        do throws(GateKitError) {
            if options.untilMs == nil, let synced = state.syncedUntilMs, synced > now + clockToleranceMs, state.window == nil {
                // A checkpoint in this host's future: this host's clock is slow, or a host
                // whose clock ran fast wrote it. Only the server can tell which.
                guard let left = remainingMilliseconds() else { throw GateKitError(.appStoreTransport, "the sync's budget ran out") }
                if let server = try serverClock(client, environment: environment, now: now, overlapMs: options.overlapMs, timeout: left) {
                    report.clockSkewMs = now - server
                    if synced > server + clockToleranceMs {
                        state.syncedUntilMs = nil
                        report.healed = (synced, horizonMs(environment, until: server))
                    }
                    until = server
                }
            }
            var seenTokens = Set<String>()
            var windowServerDate: Int64?
            while true {
                if state.window == nil {
                    if let synced = state.syncedUntilMs, synced >= until { break }
                    let horizon = horizonMs(environment, until: until)
                    let from = report.healed.map { $0.toMs }
                        ?? windowStart(checkpoint: state.syncedUntilMs, overlapMs: options.overlapMs) ?? options.sinceMs ?? horizon
                    if from < horizon, state.syncedUntilMs != nil || options.sinceMs != nil { report.gap = (from, horizon) }
                    let start = max(from, horizon)
                    guard start < until else { break }
                    state.window = SyncState.Window(startMs: start, endMs: until, pageToken: nil, pages: 0)
                    seenTokens = []
                    windowServerDate = nil
                }
                guard let left = remainingMilliseconds() else {
                    report.outcome = .partial
                    report.stoppedBy = .budget
                    break
                }
                if let maximum = options.maximumPages, report.pages >= maximum {
                    report.outcome = .partial
                    report.stoppedBy = .maximumPages
                    break
                }
                guard let window = state.window else { break }
                if let token = window.pageToken { seenTokens.insert(token) }
                /// Reads the window again from its first page (bounded: a server that never gives
                /// a usable token fails the sync; nothing unusable was kept).
                func restart(_ why: String) throws(GateKitError) {
                    guard report.restartedWindows < maximumRestarts else {
                        throw GateKitError(.appStoreResponse, "Get Notification History: \(why), and the window was already begun again \(maximumRestarts) times")
                    }
                    report.restartedWindows += 1
                    state.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: nil, pages: 0)
                    seenTokens = []
                }
                let request = JSONWriter.serialize(.object([("startDate", .number(window.startMs)), ("endDate", .number(window.endMs))]))
                let page: HistoryPage
                let outcome: AppStoreServerClient.Outcome
                let asked = Clock.monotonicNanoseconds()
                do throws(GateKitError) {
                    outcome = try client.send(.getNotificationHistory(paginationToken: window.pageToken, request: Array(request.utf8)),
                                              verifying: false, timeoutMilliseconds: left)
                } catch where error.code == .appStoreTransport && left < client.options.timeoutMilliseconds
                                && Clock.monotonicNanoseconds() &- asked >= UInt64(max(left - 50, 0)) * 1_000_000 {
                    report.outcome = .partial  // the budget, not the client's timeout, ended the request
                    report.stoppedBy = .budget
                    break
                }
                switch outcome {
                case let .success(answer): page = try HistoryPage.notifications(answer)
                case let .failure(failure):
                    if refusesToken(failure, sent: window.pageToken), report.restartedWindows < maximumRestarts {
                        try restart("Apple refused the page token")
                        continue
                    }
                    throw GateKitError(.appStoreAPIError, "Get Notification History: \(failure.description)")
                }
                let local = Clock.nowMilliseconds()
                if let date = page.serverDate {
                    report.clockSkewMs = local - date
                    windowServerDate = min(windowServerDate ?? date, date)
                }
                var next = state
                var restartAfter: String?
                if page.hasMore, page.unsendableNext {
                    report.unsendableTokens += 1
                    restartAfter = "the page token could not be sent back (empty, over \(APIEndpoint.maximumArgumentLength) bytes or with a NUL)"
                } else if page.hasMore, let token = page.next, seenTokens.contains(token) {
                    report.repeatedTokens += 1
                    restartAfter = "the server repeated an earlier page token of this window (a cycle)"
                }
                if restartAfter != nil {
                    next.window = window  // this page's items are recorded; the window is read again
                } else if page.hasMore {
                    next.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: page.next,
                                                   pages: window.pages == .max ? .max : window.pages + 1)
                } else {
                    let known = checkpoint(windowEnd: window.endMs, serverDate: windowServerDate ?? local)
                    next.syncedUntilMs = max(state.syncedUntilMs ?? .min, known)
                    next.window = nil
                    until = min(until, known)  // caught up with what the server knows
                }
                let committed = Clock.nowMilliseconds()
                next.leaseUntilMs = committed + lease
                let recorded = try ledger.ingestTogether(page.signed.map { (text: Array($0.utf8), kind: JWSVerifier.Kind.notification) },
                                                        options: options.verification, alongside: .subjects([subject])) { (db) throws(GateKitError) in
                    guard try SyncState.read(db, environment: environment.rawValue).leaseOwner == owner else {
                        throw GateKitError(.busy, "another host took over this environment's sync (the lease of \(lease) ms lapsed): this page was not recorded")
                    }
                    try next.write(db, environment: environment.rawValue, now: committed)
                }
                report.tally.add(recorded.reports)
                report.pages += 1
                state = next
                if let why = restartAfter { try restart(why) }
            }
        } catch {
            try? release(ledger.store, environment: environment.rawValue, owner: owner, subject: subject)
            throw error
        }
        state.leaseOwner = nil
        state.leaseUntilMs = nil
        report.state = state
        try release(ledger.store, environment: environment.rawValue, owner: owner, subject: subject)
        // The change feed's time-made changes are due now too: a timer's sync appends them.
        _ = try ledger.emitDueChanges()
        return report
    }

    /// The server's clock, from the `Date` of one history request over the last `overlapMs`
    /// by this host's clock (its items are read again by the window that follows); nil when
    /// the server sends no Date.
    private static func serverClock(_ client: AppStoreServerClient, environment: AppStoreEnvironment, now: Int64, overlapMs: Int64,
                                    timeout: Int) throws(GateKitError) -> Int64? {
        let request = JSONWriter.serialize(.object([("startDate", .number(now - max(overlapMs, 1))), ("endDate", .number(now))]))
        switch try client.send(.getNotificationHistory(paginationToken: nil, request: Array(request.utf8)), verifying: false,
                               timeoutMilliseconds: timeout) {
        case let .success(answer): return answer.serverDate
        case let .failure(failure): throw GateKitError(.appStoreAPIError, "Get Notification History: \(failure.description)")
        }
    }

    /// Where the environment's sync stands (`ledger_sync_state`).
    public static func state(_ store: Store, environment: AppStoreEnvironment) throws(GateKitError) -> String {
        JSONWriter.serialize(try store.read { (db) throws(GateKitError) -> SyncState in
            try SyncState.read(db, environment: environment.rawValue)
        }.json(environment: environment.rawValue, now: Clock.nowMilliseconds(), toleranceMs: clockToleranceMs))
    }

    private static func check(_ options: Options, client: AppStoreServerClient) throws(GateKitError) {
        guard client.options.environment == options.verification.environment else {
            throw .invalid("the verification environment (\(options.verification.environment.rawValue)) is not the client's (\(client.options.environment.rawValue))")
        }
        if let since = options.sinceMs, since < 0 { throw .invalid("since_ms is negative") }
        if let until = options.untilMs, until < 0 { throw .invalid("until_ms is negative") }
        guard (0...30 * 86_400_000).contains(options.overlapMs) else { throw .invalid("overlap_ms must be 0 to 30 days") }
        guard (100...86_400_000).contains(options.leaseMs) else { throw .invalid("lease_ms must be 100 ms to a day") }
        guard (1...86_400_000).contains(options.budgetMs) else { throw .invalid("budget_ms must be 1 ms to a day") }
        if let pages = options.maximumPages, pages < 1 { throw .invalid("max_pages must be positive") }
    }

    /// Gives the lease back (only if still this sync's).
    private static func release(_ store: Store, environment: String, owner: String, subject: String) throws(GateKitError) {
        try store.write(.subjects([subject])) { (db) throws(GateKitError) in
            var state = try SyncState.read(db, environment: environment)
            guard state.leaseOwner == owner else { return }
            state.leaseOwner = nil
            state.leaseUntilMs = nil
            try state.write(db, environment: environment, now: Clock.nowMilliseconds())
        }
    }
}

/// A sync's name in the lease: random, so two syncs of one host are told apart too.
enum LeaseOwner {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next(), radix: 16) + String(generator.next(), radix: 16)
    }
}
