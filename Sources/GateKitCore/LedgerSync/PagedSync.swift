import GateKitLedger
import GateKitStore
import GateKitSupport

/// The mechanics every store's sync shares, written once (Apple's notification history in
/// `SyncRun`, Google's voided purchases in `PlaySync`, Stripe's lists in `StripeSync`): one host at a time under a lease, pages
/// asked within one budget and page limit, a page token the window already gave is a cycle (the
/// window is read again, a bounded number of times; the tokens are remembered across calls), and
/// the checkpoint never passes the server's clock. A sync asks its store for pages and records
/// their items; everything else is decided here.
struct PagedSync {
    enum Stop { case caughtUp, budget, maximumPages, busy }

    let store: Store
    /// The `ledger_sync` row: an environment's name, "play:<package>" or "stripe:test" / "stripe:live".
    let name: String
    let subject: String
    let owner = LeaseOwner.make()
    let leaseMs: Int64
    let maximumPages: Int?
    let maximumRestarts: Int64
    /// What a server that keeps giving unusable tokens is (its API's malformed answer).
    let malformed: GateKitError.Code
    private let deadline: UInt64

    var state = SyncState()
    var pages = 0
    var restartedWindows = 0
    var stoppedBy = Stop.caughtUp
    /// This host's clock minus the server's, as its last page said.
    var clockSkewMs: Int64?
    /// The earliest `Date` the window's pages carried: its checkpoint is at most that.
    private var windowServerDate: Int64?

    init(store: Store, name: String, leaseMs: Int64, budgetMs: Int64, maximumPages: Int?, maximumRestarts: Int64,
         malformed: GateKitError.Code) {
        self.store = store
        self.name = name
        subject = SyncState.subject(name)
        self.leaseMs = leaseMs
        self.maximumPages = maximumPages
        self.maximumRestarts = maximumRestarts
        self.malformed = malformed
        deadline = Clock.monotonicNanoseconds() &+ UInt64(clamping: budgetMs) &* 1_000_000
    }

    /// Takes the lease at `now`; false (stopped by `.busy`) when another host holds it.
    mutating func takeLease(now: Int64) throws(GateKitError) -> Bool {
        let (owner, lease, name) = (self.owner, leaseMs, self.name)
        let taken = try store.write(.subjects([subject])) { (db) throws(GateKitError) -> (SyncState, Bool) in
            var state = try SyncState.read(db, environment: name)
            if let holder = state.leaseOwner, holder != owner, (state.leaseUntilMs ?? 0) > now { return (state, false) }
            state.leaseOwner = owner
            state.leaseUntilMs = now + lease
            try state.write(db, environment: name, now: now)
            return (state, true)
        }
        state = taken.0
        if !taken.1 { stoppedBy = .busy }
        return taken.1
    }

    /// Gives the lease back, if it still holds it: the stored state with the lease cleared, or
    /// with `kept` (what a run holds beyond its recorded pages: the refresh pass's cursor).
    func releaseLease(keeping kept: ((inout SyncState) -> Void)? = nil) throws(GateKitError) {
        let (owner, name) = (self.owner, self.name)
        try store.write(.subjects([subject])) { (db) throws(GateKitError) in
            var state = try SyncState.read(db, environment: name)
            guard state.leaseOwner == owner else { return }
            state.leaseOwner = nil
            state.leaseUntilMs = nil
            kept?(&state)
            try state.write(db, environment: name, now: Clock.nowMilliseconds())
        }
    }

    /// What is left of the budget for one request; nil: spent.
    func remainingMilliseconds() -> Int? {
        let clock = Clock.monotonicNanoseconds()
        guard clock < deadline else { return nil }
        return Int(min((deadline - clock) / 1_000_000, UInt64(Int32.max)))
    }

    /// Whether the budget is (all but) spent: a request that failed then was cut short by it.
    func isSpent() -> Bool { remainingMilliseconds().map { $0 < 20 } ?? true }

    /// The time one more page may take; nil, with why the sync stops, when the budget or the
    /// page limit is reached.
    mutating func nextRequestTimeout() -> Int? {
        guard let left = remainingMilliseconds() else {
            stoppedBy = .budget
            return nil
        }
        if let maximumPages, pages >= maximumPages {
            stoppedBy = .maximumPages
            return nil
        }
        return left
    }

    /// Opens a window to read from its first page.
    mutating func open(startMs: Int64, endMs: Int64) {
        state.window = SyncState.Window(startMs: startMs, endMs: endMs, pageToken: nil, pages: 0)
        windowServerDate = nil
    }

    /// The window begun again from its first page, counted.
    mutating func begunAgain(_ window: SyncState.Window) -> SyncState.Window {
        restartedWindows += 1
        return SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: nil, pages: 0, restarts: window.restarts + 1)
    }

    /// Fails the sync when `window` could not be begun again for `unusable` (bounded: a server
    /// that never gives a usable token fails it; `what` names the list).
    func failIfExhausted(_ unusable: Unusable?, _ window: SyncState.Window, what: String) throws(GateKitError) {
        guard let unusable, window.restarts >= maximumRestarts else { return }
        let why = unusable == .repeated ? "the server repeated an earlier page token of this window (a cycle)" : "the page token could not be sent back"
        throw GateKitError(malformed, "\(what): \(why), and the window was already begun again \(maximumRestarts) times")
    }

    /// A page's `Date` seen: the skew, and the bound of the window's checkpoint.
    mutating func heard(serverDate: Int64?) {
        guard let date = serverDate else { return }
        clockSkewMs = Clock.nowMilliseconds() &- date
        windowServerDate = min(windowServerDate ?? date, date)
    }

    /// Why a page of `window` with `next` as its next token cannot go on: a token the window
    /// already gave (a cycle), or one that cannot be sent back.
    enum Unusable { case repeated, unsendable }

    /// The state a page of `window` leaves: the next page's token, or — the window's last page —
    /// the checkpoint (`checkpoint(windowEnd, earliest server Date)`); `unusable` when its token
    /// cannot be followed: the window begins again (this page's items are recorded, each once),
    /// unless it was begun again too often (`failIfExhausted` then fails the sync once the page
    /// is recorded).
    mutating func after(_ window: SyncState.Window, next token: String?, sendable: Bool,
                        checkpoint: (Int64, Int64?) -> Int64) -> (state: SyncState, unusable: Unusable?) {
        var next = state
        var unusable: Unusable?
        if let token {
            var seen = window.tokensSeen
            if let sent = window.pageToken { seen.append(SyncState.Window.digest(sent)) }
            seen = Array(seen.suffix(SyncState.Window.maximumTokensSeen))
            if !sendable {
                unusable = .unsendable
            } else if seen.contains(SyncState.Window.digest(token)) {
                unusable = .repeated
            }
            if unusable != nil {
                next.window = window.restarts < maximumRestarts ? begunAgain(window) : window
            } else {
                next.window = SyncState.Window(startMs: window.startMs, endMs: window.endMs, pageToken: token, pages: window.pages &+ 1,
                                               tokensSeen: seen, restarts: window.restarts)
            }
        } else {
            next.window = nil
            next.syncedUntilMs = max(state.syncedUntilMs ?? .min, checkpoint(window.endMs, windowServerDate))
            windowServerDate = nil
        }
        next.leaseUntilMs = Clock.nowMilliseconds() + leaseMs
        return (next, unusable)
    }

    /// Writes `next` under the lease inside the caller's write transaction (with the page's rows,
    /// or after them): a host whose lease lapsed and was taken over records nothing more.
    func commit(_ next: SyncState) -> (any DatabaseConnection) throws(GateKitError) -> Void {
        let (owner, name, lease) = (self.owner, self.name, leaseMs)
        return { (db) throws(GateKitError) in
            guard try SyncState.read(db, environment: name).leaseOwner == owner else {
                throw GateKitError(.EBUSY, "another host took over this sync (\(name); the lease of \(lease) ms lapsed): this page was not recorded")
            }
            try next.write(db, environment: name, now: Clock.nowMilliseconds())
        }
    }

    /// A page recorded: the state it left is the run's.
    mutating func recorded(_ next: SyncState) {
        state = next
        pages += 1
    }
}
