import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitStore
import GateKitSupport

/// One `NotificationSync.run`, in stages that each do one thing, on the sync mechanics every
/// store shares (`PagedSync`: lease, budget, page tokens, checkpoint): take the environment's
/// lease, heal a checkpoint in this host's future, then page by page — open the window, ask for
/// the page within the budget, record its items with the state it leaves — until caught up or
/// stopped; `run` releases the lease.
struct SyncRun {
    let ledger: Ledger
    let client: AppStoreServerClient
    let options: NotificationSync.Options
    let environment: AppStoreEnvironment
    let now = Clock.nowMilliseconds()
    var until: Int64
    var paging: PagedSync
    var report: NotificationSync.Report

    init(ledger: Ledger, client: AppStoreServerClient, options: NotificationSync.Options) {
        self.ledger = ledger
        self.client = client
        self.options = options
        environment = options.verification.environment
        paging = PagedSync(store: ledger.store, name: environment.rawValue, leaseMs: options.leaseMs, budgetMs: options.budgetMs,
                         maximumPages: options.maximumPages, maximumRestarts: Int64(NotificationSync.maximumRestarts), malformed: .EAPPSTORE_RESPONSE)
        until = min(options.untilMs ?? now, now)
        report = NotificationSync.Report(outcome: .done, environment: environment.rawValue)
    }

    /// Takes the environment's lease; false (the report says busy) when another holds it.
    mutating func takeLease() throws(GateKitError) -> Bool {
        let taken = try paging.takeLease(now: now)
        report.state = paging.state
        if !taken {
            report.outcome = .busy
            report.stoppedBy = .busy
        }
        return taken
    }

    /// A checkpoint in this host's future: this host's clock is slow, or a host whose clock ran
    /// fast wrote it. Only the server can tell which; one request asks it.
    mutating func healFutureCheckpoint() throws(GateKitError) {
        guard options.untilMs == nil, let synced = paging.state.syncedUntilMs, synced > now + NotificationSync.clockToleranceMs,
              paging.state.window == nil else { return }
        guard let left = paging.remainingMilliseconds() else { throw GateKitError(.EAPPSTORE_TRANSPORT, "the sync's budget ran out") }
        guard let server = try NotificationSync.serverClock(client, environment: environment, now: now, overlapMs: options.overlapMs,
                                                             timeout: left) else { return }
        report.clockSkewMs = now - server
        if synced > server + NotificationSync.clockToleranceMs {
            paging.state.syncedUntilMs = nil
            report.healed = (synced, NotificationSync.horizonMs(environment, until: server))
        }
        until = server
    }

    /// Opens the next window when none is open; false when caught up (nothing left to read).
    mutating func openWindow() -> Bool {
        guard paging.state.window == nil else { return true }
        if let synced = paging.state.syncedUntilMs, synced >= until { return false }
        let horizon = NotificationSync.horizonMs(environment, until: until)
        let from = report.healed.map { $0.toMs }
            ?? NotificationSync.windowStart(checkpoint: paging.state.syncedUntilMs, overlapMs: options.overlapMs) ?? options.sinceMs ?? horizon
        if from < horizon, paging.state.syncedUntilMs != nil || options.sinceMs != nil { report.gap = (from, horizon) }
        let start = max(from, horizon)
        guard start < until else { return false }
        paging.open(startMs: start, endMs: until)
        return true
    }

    /// One page: asked within what is left of the budget, recorded. False when the sync stops
    /// (caught up, out of budget, out of pages).
    mutating func nextPage() throws(GateKitError) -> Bool {
        guard openWindow() else { return false }
        guard let left = paging.nextRequestTimeout() else {
            stop()
            return false
        }
        guard let window = paging.state.window else { return false }
        guard let page = try ask(window, timeout: left) else { return report.stoppedBy != .budget }
        try record(page, of: window)
        return true
    }

    /// The report says why the engine stopped short.
    mutating func stop() {
        report.outcome = .partial
        report.stoppedBy = paging.stoppedBy == .maximumPages ? .maximumPages : .budget
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
            if NotificationSync.refusesToken(failure, sent: window.pageToken), window.restarts < NotificationSync.maximumRestarts {
                paging.state.window = paging.begunAgain(window)
                report.restartedWindows = paging.restartedWindows
                return nil
            }
            throw GateKitError(.EAPPSTORE_API, "Get Notification History: \(failure.description)")
        }
    }

    /// Records the page's items with the state it leaves (the next token, or the checkpoint) in
    /// one commit, under the lease; a page whose token cannot be used begins the window again.
    mutating func record(_ page: HistoryPage, of window: SyncState.Window) throws(GateKitError) {
        paging.heard(serverDate: page.serverDate)
        let local = Clock.nowMilliseconds()
        let (next, unusable) = paging.after(window, next: page.hasMore ? page.next ?? "" : nil, sendable: !page.unsendableNext && page.next != nil) { (end, serverDate) in
            NotificationSync.checkpoint(windowEnd: end, serverDate: serverDate ?? local)
        }
        switch unusable {
        case .repeated?: report.repeatedTokens += 1
        case .unsendable?: report.unsendableTokens += 1
        case nil: break
        }
        if next.window == nil, let known = next.syncedUntilMs { until = min(until, known) }  // caught up with what the server knows
        let recorded = try ledger.ingestTogether(page.signed.map { (text: Array($0.utf8), kind: JWSVerifier.Kind.notification) },
                                                options: options.verification, alongside: .subjects([paging.subject]), paging.commit(next))
        report.tally.add(recorded.reports)
        paging.recorded(next)
        report.pages = paging.pages
        report.restartedWindows = paging.restartedWindows
        if let skew = paging.clockSkewMs { report.clockSkewMs = skew }
        try paging.failIfExhausted(unusable, window, what: "Get Notification History")
    }
}
