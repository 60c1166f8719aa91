import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitStore
import GateKitSupport

/// One `NotificationSync.run`, in stages that each do one thing: take the environment's lease,
/// heal a checkpoint in this host's future, then page by page — open the window, ask for the
/// page within the budget, judge its token, record its items with the checkpoint — until caught
/// up or stopped; `run` releases the lease.
struct SyncRun {
    let ledger: Ledger
    let client: AppStoreServerClient
    let options: NotificationSync.Options
    let environment: AppStoreEnvironment
    let owner = LeaseOwner.make()
    let subject: String
    let now = Clock.nowMilliseconds()
    let deadline: UInt64
    var until: Int64
    var state = SyncState()
    var report: NotificationSync.Report
    /// The page tokens of the window being read (a repeat is a cycle), and the earliest `Date`
    /// its pages carried (the checkpoint never passes the server's clock).
    var seenTokens = Set<String>()
    var windowServerDate: Int64?

    init(ledger: Ledger, client: AppStoreServerClient, options: NotificationSync.Options) {
        self.ledger = ledger
        self.client = client
        self.options = options
        environment = options.verification.environment
        subject = SyncState.subject(environment.rawValue)
        deadline = Clock.monotonicNanoseconds() &+ UInt64(options.budgetMs) &* 1_000_000
        until = min(options.untilMs ?? now, now)
        report = NotificationSync.Report(outcome: .done, environment: environment.rawValue)
    }

    /// Takes the environment's lease; false (the report says busy) when another holds it.
    mutating func takeLease() throws(GateKitError) -> Bool {
        let (owner, now, lease, environment) = (self.owner, self.now, options.leaseMs, self.environment)
        let taken = try ledger.store.write(.subjects([subject])) { (db) throws(GateKitError) -> (SyncState, Bool) in
            var state = try SyncState.read(db, environment: environment.rawValue)
            if let holder = state.leaseOwner, holder != owner, (state.leaseUntilMs ?? 0) > now { return (state, false) }
            state.leaseOwner = owner
            state.leaseUntilMs = now + lease
            try state.write(db, environment: environment.rawValue, now: now)
            return (state, true)
        }
        state = taken.0
        report.state = state
        if !taken.1 {
            report.outcome = .busy
            report.stoppedBy = .busy
        }
        return taken.1
    }

    /// What is left of the budget for one request; nil: spent.
    func remainingMilliseconds() -> Int? {
        let clock = Clock.monotonicNanoseconds()
        guard clock < deadline else { return nil }
        return Int(min((deadline - clock) / 1_000_000, UInt64(Int32.max)))
    }

    /// A checkpoint in this host's future: this host's clock is slow, or a host whose clock ran
    /// fast wrote it. Only the server can tell which; one request asks it.
    mutating func healFutureCheckpoint() throws(GateKitError) {
        guard options.untilMs == nil, let synced = state.syncedUntilMs, synced > now + NotificationSync.clockToleranceMs,
              state.window == nil else { return }
        guard let left = remainingMilliseconds() else { throw GateKitError(.EAPPSTORE_TRANSPORT, "the sync's budget ran out") }
        guard let server = try NotificationSync.serverClock(client, environment: environment, now: now, overlapMs: options.overlapMs,
                                                             timeout: left) else { return }
        report.clockSkewMs = now - server
        if synced > server + NotificationSync.clockToleranceMs {
            state.syncedUntilMs = nil
            report.healed = (synced, NotificationSync.horizonMs(environment, until: server))
        }
        until = server
    }

    /// Opens the next window when none is open; false when caught up (nothing left to read).
    mutating func openWindow() -> Bool {
        guard state.window == nil else { return true }
        if let synced = state.syncedUntilMs, synced >= until { return false }
        let horizon = NotificationSync.horizonMs(environment, until: until)
        let from = report.healed.map { $0.toMs }
            ?? NotificationSync.windowStart(checkpoint: state.syncedUntilMs, overlapMs: options.overlapMs) ?? options.sinceMs ?? horizon
        if from < horizon, state.syncedUntilMs != nil || options.sinceMs != nil { report.gap = (from, horizon) }
        let start = max(from, horizon)
        guard start < until else { return false }
        state.window = SyncState.Window(startMs: start, endMs: until, pageToken: nil, pages: 0)
        seenTokens = []
        windowServerDate = nil
        return true
    }

    /// Reads the window again from its first page (bounded: a server that never gives a usable
    /// token fails the sync; nothing unusable was kept).
    mutating func restart(_ window: SyncState.Window, _ why: String) throws(GateKitError) {
        guard report.restartedWindows < NotificationSync.maximumRestarts else {
            throw GateKitError(.EAPPSTORE_RESPONSE, "Get Notification History: \(why), and the window was already begun again \(NotificationSync.maximumRestarts) times")
        }
        report.restartedWindows += 1
        state.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: nil, pages: 0)
        seenTokens = []
    }

    /// One page: asked within what is left of the budget, judged, recorded. False when the sync
    /// stops (caught up, out of budget, out of pages).
    mutating func nextPage() throws(GateKitError) -> Bool {
        guard openWindow() else { return false }
        guard let left = remainingMilliseconds() else {
            report.outcome = .partial
            report.stoppedBy = .budget
            return false
        }
        if let maximum = options.maximumPages, report.pages >= maximum {
            report.outcome = .partial
            report.stoppedBy = .maximumPages
            return false
        }
        guard let window = state.window else { return false }
        if let token = window.pageToken { seenTokens.insert(token) }
        guard let page = try ask(window, timeout: left) else { return report.stoppedBy != .budget }
        try record(page, of: window)
        return true
    }

    /// The window's next page from Apple; nil when the budget ended the request (the report
    /// says so) or Apple refused the token (the window begins again).
    mutating func ask(_ window: SyncState.Window, timeout left: Int) throws(GateKitError) -> HistoryPage? {
        let request = JSONWriter.serialize(.object([("startDate", .number(window.startMs)), ("endDate", .number(window.endMs))]))
        let outcome: AppStoreServerClient.Outcome
        let asked = Clock.monotonicNanoseconds()
        do throws(GateKitError) {
            outcome = try client.send(.getNotificationHistory(paginationToken: window.pageToken, request: Array(request.utf8)),
                                      verifying: false, timeoutMilliseconds: left)
        } catch where error.code == .EAPPSTORE_TRANSPORT && left < client.options.timeoutMilliseconds
                        && Clock.monotonicNanoseconds() &- asked >= UInt64(max(left - 50, 0)) * 1_000_000 {
            report.outcome = .partial  // the budget, not the client's timeout, ended the request
            report.stoppedBy = .budget
            return nil
        }
        switch outcome {
        case let .success(answer): return try HistoryPage.notifications(answer)
        case let .failure(failure):
            if NotificationSync.refusesToken(failure, sent: window.pageToken), report.restartedWindows < NotificationSync.maximumRestarts {
                try restart(window, "Apple refused the page token")
                return nil
            }
            throw GateKitError(.EAPPSTORE_API, "Get Notification History: \(failure.description)")
        }
    }

    /// Records the page's items with the state it leaves (the next token, or the checkpoint) in
    /// one commit, under the lease; a page whose token cannot be used begins the window again.
    mutating func record(_ page: HistoryPage, of window: SyncState.Window) throws(GateKitError) {
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
            let known = NotificationSync.checkpoint(windowEnd: window.endMs, serverDate: windowServerDate ?? local)
            next.syncedUntilMs = max(state.syncedUntilMs ?? .min, known)
            next.window = nil
            until = min(until, known)  // caught up with what the server knows
        }
        let committed = Clock.nowMilliseconds()
        next.leaseUntilMs = committed + options.leaseMs
        let (owner, lease, environment, checkpoint) = (self.owner, options.leaseMs, self.environment, next)
        let recorded = try ledger.ingestTogether(page.signed.map { (text: Array($0.utf8), kind: JWSVerifier.Kind.notification) },
                                                options: options.verification, alongside: .subjects([subject])) { (db) throws(GateKitError) in
            guard try SyncState.read(db, environment: environment.rawValue).leaseOwner == owner else {
                throw GateKitError(.EBUSY, "another host took over this environment's sync (the lease of \(lease) ms lapsed): this page was not recorded")
            }
            try checkpoint.write(db, environment: environment.rawValue, now: committed)
        }
        report.tally.add(recorded.reports)
        report.pages += 1
        state = next
        if let why = restartAfter { try restart(window, why) }
    }
}
