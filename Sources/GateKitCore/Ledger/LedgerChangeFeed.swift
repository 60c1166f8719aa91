import Glibc
import GateKitStore
import GateKitSupport

/// The change feed through the ledger (`ChangeFeedRows` keeps its rows): what a host reads with a
/// cursor it keeps (at least once: it moves the cursor after handling a change), and waits on.
extension Ledger {
    public static let maximumFeedPage = 10_000
    /// Subscriptions swept per write: a long-idle store catches up in bounded transactions.
    static let sweepBatch = 256

    /// Emits the changes time alone has made by now — periods that ended, grace periods that
    /// ran out, with nothing ingested since — each dated at its instant. The feed's readers call
    /// it first, so a host reading the feed sees them; answers to questions never wait on it.
    /// A store opened read-only (a read-only file or file system) reads the feed as it stands:
    /// a writer appends time's changes.
    public func emitDueChanges() throws(GateKitError) -> Int {
        guard !store.isReadOnly else { return 0 }
        let now = Clock.nowMilliseconds()
        var total = 0
        while true {
            let due = try store.read { (db) throws(GateKitError) in try ChangeFeedRows.due(db, now: now, limit: Ledger.sweepBatch) }
            if due.isEmpty { return total }
            let subjects = due.map { "ledger/\($0.0.environment)/\($0.0.testFlag)/\($0.1)" }
            total += try store.write(.subjects(subjects)) { (db) throws(GateKitError) -> Int in
                let catalogs = try loadedCatalogs(db)
                var changes: [ChangeFeedRows.Change] = []
                for (scope, original) in due {
                    let record = try LedgerRows.compactedRecord(db, original: original, scope: scope)
                    let stored = try ChangeFeedRows.stored(db, scope: scope, original: original)
                    try ChangeFeedRows.keep(db, scope: scope, original: original,
                                        try ChangeFeedRows.sweep(db, scope: scope, original: original, record: record, stored: stored,
                                                             catalogs: catalogs, now: now, into: &changes))
                }
                try ChangeFeedRows.append(db, changes, now: Clock.nowMilliseconds())
                return changes.count
            }
            if due.count < Ledger.sweepBatch { return total }
        }
    }

    /// The changes after `seq`, oldest first, at most `limit`:
    /// {"version":1,"changes":[{"seq":…,"environment":…,"testSigned":…,"originalTransactionId":…,
    /// "appAccountToken":…,"appUserIds":[…],"store":"app-store"|"play","productId":…,"entitlements":[…],"entitled":…,
    /// "reason":…,"status":…,"until":…,"willRenew":…,"at":…,"cause":"ingest"|"time"|"transfer","item":…,"recorded":…}],
    /// "notices":[{"seq":…,"at":…,"kind":"webhook_endpoint_disabled","endpointId":…,"url":…,"detail":…}],
    /// "last":seq} (members that do not apply are absent, "notices" too; "last": the cursor to
    /// read after next). Changes and notices share the numbering; `limit` counts both.
    public func changesJSON(after seq: Int64, limit: Int) throws(GateKitError) -> String {
        guard seq >= 0 else { throw .invalid("after_seq is negative") }
        guard (1...Ledger.maximumFeedPage).contains(limit) else { throw .invalid("limit must be 1 to \(Ledger.maximumFeedPage), not \(limit)") }
        _ = try emitDueChanges()
        return try store.read { (db) throws(GateKitError) -> String in
            let catalogs = try currentCatalogs(db)
            let s = try db.statement(Ledger.changeSelect + " WHERE seq > ?1 ORDER BY seq LIMIT ?2")
            defer { s.reset() }
            s.bind(1, seq).bind(2, Int64(limit))
            var changes: [(seq: Int64, json: JSONValue)] = []
            while try s.step() { changes.append((s.int64(0), try Ledger.change(s, catalogs: catalogs))) }
            // The page is the first `limit` of changes and notices together, so `last` never
            // passes over an entry not listed.
            var notices = try FeedNotices.after(db, seq, limit: limit)
            if !notices.isEmpty {
                let listed = (changes + notices).map(\.seq).sorted().prefix(limit)
                let through = listed.last ?? seq
                changes.removeAll { $0.seq > through }
                notices.removeAll { $0.seq > through }
            }
            let last = max(changes.last?.seq ?? seq, notices.last?.seq ?? seq)
            var members: [(String, JSONValue)] = [("version", .number(JSONDocument.version)), ("changes", .array(changes.map(\.json)))]
            if !notices.isEmpty { members.append(("notices", .array(notices.map(\.json)))) }
            members.append(("last", .number(last)))
            return JSONWriter.serialize(.object(members))
        }
    }

    /// A change's columns, and the store that sold the purchase, from its versions (one indexed
    /// look-up a row).
    private static let changeSelect = """
        SELECT seq, environment, test_signed, original_transaction_id, product_id, entitled, reason, status, until_ms, at_ms,
            cause, item_id, app_account_token, app_user_ids, recorded_ms,
            (SELECT t.store FROM ledger_transactions t WHERE t.environment = c.environment AND t.test_signed = c.test_signed
                AND t.original_transaction_id = c.original_transaction_id LIMIT 1), will_renew
        FROM ledger_changes c
        """

    /// Change `seq` as `changesJSON` lists it (nil: none has that number), read in `db`.
    package func change(_ db: any DatabaseConnection, seq: Int64) throws(GateKitError) -> JSONValue? {
        let catalogs = try currentCatalogs(db)
        let s = try db.statement(Ledger.changeSelect + " WHERE seq = ?1")
        defer { s.reset() }
        s.bind(1, seq)
        return try s.step() ? try Ledger.change(s, catalogs: catalogs) : nil
    }

    private static func change(_ s: any DatabaseStatement, catalogs: ProductCatalogs) throws(GateKitError) -> JSONValue {
        let product = s.text(4) ?? ""
        let at = s.int64(9)
        guard let reason = Int32(exactly: s.int64(6)).flatMap(Entitlement.Reason.init(rawValue:)) else {
            throw GateKitError(.ECORRUPT, "ledger_changes holds the unknown reason \(s.int64(6))")
        }
        let users: JSONValue
        do throws(GateKitError) { users = try JSONParser.parse(Array((s.text(13) ?? "").utf8)) } catch {
            throw GateKitError(.ECORRUPT, "ledger_changes holds app user ids that are not JSON")
        }
        var members: [(String, JSONValue)] = [("seq", .number(s.int64(0))), ("environment", .string(s.text(1) ?? "")),
                                              ("testSigned", .bool(s.int64(2) == 1)), ("originalTransactionId", .string(s.text(3) ?? ""))]
        if let token = s.text(12) { members.append(("appAccountToken", .string(token))) }
        members.append(("appUserIds", users))
        let store = PurchaseStore(stored: s.text(15))
        members.append(("store", .string(store.name)))
        members.append(("productId", .string(product)))
        if store.rules.namesItsEntitlement {
            members.append(("entitlements", .array([.string(product)])))
        } else if let names = catalogs.catalog(at: at).product(product)?.entitlements, !names.isEmpty {
            members.append(("entitlements", .array(names.map { .string($0) })))
        }
        members += [("entitled", .bool(s.int64(5) == 1)), ("reason", .string(reason.name))]
        if let status = s.optionalInt64(7) { members.append(("status", .number(status))) }
        if let until = s.optionalInt64(8) { members.append(("until", .number(until))) }
        if let renewal = s.optionalInt64(16), renewal != 2 { members.append(("willRenew", .bool(renewal == 1))) }
        members += [("at", .number(at)), ("cause", .string(s.text(10) ?? ""))]
        if let item = s.optionalInt64(11) { members.append(("item", .number(item))) }
        members.append(("recorded", .number(s.int64(14))))
        return .object(members)
    }

    public static let maximumWaitMilliseconds = 3_600_000
    /// How often a wait reads the feed when no commit can be heard (behind a pooler without a
    /// listen connection): the latency of a change made by another client.
    public static let blindPollMilliseconds = 20

    /// True as soon as a change after `seq` exists, false when `timeoutMilliseconds` passed
    /// first. Woken by any process's commit — on SQLite through the store's change probe (a read
    /// of the WAL index, every 2 ms), on PostgreSQL by the commit notifications on the store's
    /// connection — and at the instant time next changes an answer, which it then emits.
    public func waitForChanges(after seq: Int64, timeoutMilliseconds: Int) throws(GateKitError) -> Bool {
        guard seq >= 0 else { throw .invalid("after_seq is negative") }
        guard (0...Ledger.maximumWaitMilliseconds).contains(timeoutMilliseconds) else {
            throw .invalid("timeout_ms must be 0 to \(Ledger.maximumWaitMilliseconds), not \(timeoutMilliseconds)")
        }
        let deadline = Clock.monotonicNanoseconds() &+ UInt64(timeoutMilliseconds) &* 1_000_000
        let commits = store.makeChangeProbe()
        while true {
            _ = try emitDueChanges()
            let (last, nextDue) = try store.read { (db) throws(GateKitError) -> (Int64, Int64?) in
                _ = try commits.changed()  // what arrived so far is seen by this read
                return (try ChangeFeedRows.lastSeq(db), try ChangeFeedRows.nextDue(db))
            }
            if last > seq { return true }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return false }
            var wake = deadline
            if let due = nextDue {
                let wall = Clock.nowMilliseconds()
                if due > wall {
                    wake = min(wake, now &+ UInt64(min(due - wall, Int64(Ledger.maximumWaitMilliseconds))) &* 1_000_000)
                } else if !store.isReadOnly {
                    wake = min(wake, now &+ 1_000_000)  // came due since it was emitted: the next turn emits it
                }
                // A read-only handle cannot emit what is due: a writer's commit of it wakes this one.
            }
            try sleep(until: wake, orUntil: commits, after: seq)
        }
    }

    /// Sleeps until the monotonic instant `wake`, or less when another connection commits (or,
    /// on SQLite, this handle appends past `seq`: its own commits do not move the probe). Each
    /// turn measures the time that passed, so the reads between naps never make it late.
    private func sleep(until wake: UInt64, orUntil commits: any ChangeProbe, after seq: Int64) throws(GateKitError) {
        while true {
            let now = Clock.monotonicNanoseconds()
            guard now < wake else { return }
            let left = Int((wake - now + 999_999) / 1_000_000)
            if let socket = store.notificationSocket() {
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, Int32(min(left, 50))) > 0 { return }
            } else {
                // A probe that hears no commits (PostgreSQL behind a pooler with no listen
                // connection) leaves the feed itself to be read, every `blindPollMilliseconds`.
                let interval = commits.seesCommits ? 2 : Ledger.blindPollMilliseconds
                var nap = timespec(tv_sec: 0, tv_nsec: min(left, interval) * 1_000_000)
                _ = nanosleep(&nap, nil)
                let arrived = try store.read { (db) throws(GateKitError) -> Bool in
                    if commits.seesCommits, try commits.changed() { return true }
                    return try ChangeFeedRows.lastSeq(db) > seq
                }
                if arrived { return }
            }
        }
    }
}
