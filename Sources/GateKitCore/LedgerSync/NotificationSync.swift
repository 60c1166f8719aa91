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
        /// Where the sync stops; nil: now.
        public var untilMs: Int64?
        public var overlapMs = Options.defaultOverlapMs
        /// Stop after this long (the next call resumes); nil: until caught up.
        public var budgetMs: Int64?
        /// Stop after this many pages; nil: until caught up.
        public var maximumPages: Int?
        /// How long the lease lasts without a page recorded: another host takes over a sync
        /// that stopped (killed, partitioned) after this long.
        public var leaseMs = Options.defaultLeaseMs

        public static let defaultOverlapMs: Int64 = 3_600_000
        public static let defaultLeaseMs: Int64 = 120_000

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

    public struct Report: Sendable {
        public var outcome: Outcome
        public let environment: String
        public var pages = 0
        var tally = IngestTally()
        var state = SyncState()
        /// Windows begun again because Apple refused their page token (expired or unknown).
        public var restartedWindows = 0
        /// History Apple no longer keeps between the checkpoint and its horizon: lost for good.
        public var gap: (fromMs: Int64, toMs: Int64)?

        public var json: String {
            var members: [(String, JSONValue)] = [("version", .number(1)), ("outcome", .string(outcome.name)),
                                                  ("environment", .string(environment)), ("pages", .number(pages))]
            members += tally.members
            members.append(("syncedUntil", state.syncedUntilMs.map { .number($0) } ?? .null))
            if let window = state.window {
                members.append(("window", .object([("start", .number(window.startMs)), ("end", .number(window.endMs)), ("pages", .number(window.pages))])))
            }
            if outcome == .busy, let until = state.leaseUntilMs { members.append(("leaseUntil", .number(until))) }
            members.append(("restartedWindows", .number(restartedWindows)))
            if let gap { members.append(("gap", .object([("from", .number(gap.fromMs)), ("to", .number(gap.toMs))]))) }
            return JSONWriter.serialize(.object(members))
        }
    }

    /// Apple keeps 180 days of Production history and 30 of Sandbox; an hour is left for the
    /// clocks of two machines to differ.
    static func horizonMs(_ environment: AppStoreEnvironment, until: Int64) -> Int64 {
        let days: Int64 = environment == .production ? 180 : 30
        return until - days * 86_400_000 + 3_600_000
    }

    /// Apple's errors for a page token it no longer knows: the window is read again from its start.
    static let refusedPageToken: Set<Int64> = [4_000_014, 4_000_017]

    public static func run(ledger: Ledger, client: AppStoreServerClient, options: Options) throws(GateKitError) -> Report {
        let environment = options.verification.environment
        try check(options, client: client)
        let started = Clock.monotonicNanoseconds()
        let now = Clock.nowMilliseconds()
        let until = min(options.untilMs ?? now, now)
        let horizon = horizonMs(environment, until: until)
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
            return report
        }
        do throws(GateKitError) {
            while true {
                if state.window == nil {
                    if let synced = state.syncedUntilMs, synced >= until { break }
                    // Saturating: a checkpoint is the store's data, not trusted to be in range.
                    let from = state.syncedUntilMs.map { $0.subtractingReportingOverflow(options.overlapMs).overflow ? Int64.min : $0 - options.overlapMs }
                        ?? options.sinceMs ?? horizon
                    if from < horizon, state.syncedUntilMs != nil || options.sinceMs != nil { report.gap = (from, horizon) }
                    let start = max(from, horizon)
                    guard start < until else { break }
                    state.window = SyncState.Window(startMs: start, endMs: until, pageToken: nil, pages: 0)
                }
                if let budget = options.budgetMs, Clock.monotonicNanoseconds() &- started >= UInt64(budget) * 1_000_000 {
                    report.outcome = .partial
                    break
                }
                if let maximum = options.maximumPages, report.pages >= maximum {
                    report.outcome = .partial
                    break
                }
                guard let window = state.window else { break }
                let request = JSONWriter.serialize(.object([("startDate", .number(window.startMs)), ("endDate", .number(window.endMs))]))
                let page: HistoryPage
                switch try client.send(.getNotificationHistory(paginationToken: window.pageToken, request: Array(request.utf8)), verifying: false) {
                case let .success(answer): page = try HistoryPage.notifications(answer)
                case let .failure(failure):
                    if window.pageToken != nil, let code = failure.errorCode, refusedPageToken.contains(code), report.restartedWindows < 3 {
                        report.restartedWindows += 1
                        state.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: nil, pages: 0)
                        continue
                    }
                    throw GateKitError(.appStoreAPIError, "Get Notification History: \(failure.description)")
                }
                var next = state
                if page.hasMore {
                    guard page.next != window.pageToken else { throw GateKitError(.appStoreResponse, "Get Notification History gave the same page token twice") }
                    next.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: page.next,
                                                   pages: window.pages == .max ? .max : window.pages + 1)
                } else {
                    next.syncedUntilMs = max(state.syncedUntilMs ?? .min, window.endMs)
                    next.window = nil
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

    /// Where the environment's sync stands (`ledger_sync_state`).
    public static func state(_ store: Store, environment: AppStoreEnvironment) throws(GateKitError) -> String {
        JSONWriter.serialize(try store.read { (db) throws(GateKitError) -> SyncState in
            try SyncState.read(db, environment: environment.rawValue)
        }.json(environment: environment.rawValue))
    }

    private static func check(_ options: Options, client: AppStoreServerClient) throws(GateKitError) {
        guard client.options.environment == options.verification.environment else {
            throw .invalid("the verification environment (\(options.verification.environment.rawValue)) is not the client's (\(client.options.environment.rawValue))")
        }
        if let since = options.sinceMs, since < 0 { throw .invalid("since_ms is negative") }
        if let until = options.untilMs, until < 0 { throw .invalid("until_ms is negative") }
        guard (0...30 * 86_400_000).contains(options.overlapMs) else { throw .invalid("overlap_ms must be 0 to 30 days") }
        guard (100...86_400_000).contains(options.leaseMs) else { throw .invalid("lease_ms must be 100 ms to a day") }
        if let budget = options.budgetMs, !(1...86_400_000).contains(budget) { throw .invalid("budget_ms must be 1 ms to a day") }
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
