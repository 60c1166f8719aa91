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
        public var stoppedBy = Stop.caughtUp
        public let environment: String
        public var pages = 0
        var tally = IngestTally()
        var state = SyncState()
        /// Windows begun again because the server's page token could not be used: Apple refused
        /// it (expired or unknown), it could not be sent back (`unsendableTokens`), or it
        /// repeated one of the window's earlier tokens (`repeatedTokens`).
        public var restartedWindows = 0
        public var unsendableTokens = 0
        public var repeatedTokens = 0
        /// History Apple no longer keeps between the checkpoint and its horizon: lost for good.
        public var gap: (fromMs: Int64, toMs: Int64)?
        /// The host's clock minus the server's (its `Date`), as last seen; nil: no Date seen.
        public var clockSkewMs: Int64?
        /// A checkpoint later than the server's clock (written by a host whose clock ran
        /// fast) was found and history read again from `toMs`.
        public var healed: (fromMs: Int64, toMs: Int64)?

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
        try check(options, client: client)
        var sync = SyncRun(ledger: ledger, client: client, options: options)
        guard try sync.takeLease() else { return sync.report }
        do throws(GateKitError) {
            try sync.healFutureCheckpoint()
            while try sync.nextPage() {}
        } catch {
            try? sync.paging.releaseLease()
            throw error
        }
        sync.paging.state.leaseOwner = nil
        sync.paging.state.leaseUntilMs = nil
        sync.report.state = sync.paging.state
        try sync.paging.releaseLease()
        // The change feed's time-made changes are due now too: a timer's sync appends them.
        _ = try ledger.emitDueChanges()
        return sync.report
    }

    /// The server's clock, from the `Date` of one history request over the last `overlapMs`
    /// by this host's clock (its items are read again by the window that follows); nil when
    /// the server sends no Date.
    static func serverClock(_ client: AppStoreServerClient, environment: AppStoreEnvironment, now: Int64, overlapMs: Int64,
                                    timeout: Int) throws(GateKitError) -> Int64? {
        let request = JSONWriter.serialize(.object([("startDate", .number(now - max(overlapMs, 1))), ("endDate", .number(now))]))
        switch try client.send(.getNotificationHistory(paginationToken: nil, request: Array(request.utf8)), verifying: false,
                               timeoutMilliseconds: timeout) {
        case let .success(answer): return answer.serverDate
        case let .failure(failure): throw GateKitError(.EAPPSTORE_API, "Get Notification History: \(failure.description)")
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
}

/// A sync's name in the lease: random, so two syncs of one host are told apart too.
enum LeaseOwner {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next(), radix: 16) + String(generator.next(), radix: 16)
    }
}
