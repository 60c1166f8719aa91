import GateKitAppStoreAPI
import GateKitJWS
import GateKitLedger
import GateKitStore
import GateKitSupport

/// One customer brought up to date from Apple's API: Get Transaction History (from the
/// revision Apple gave at the last refresh, so only what changed since comes back) and Get All
/// Subscription Statuses (the renewal infos, which settle "did it renew?"). Every signed item
/// is verified and ingested as if it had arrived; the revision is kept with the last page.
public enum CustomerRefresh {
    /// What to ask Apple: everything, or only the subscription statuses (one request: what a
    /// question waiting on a renewal needs).
    public enum Depth: Sendable { case full, statusesOnly }

    public struct Report: Sendable {
        public let customer: String
        public var asked: [String] = []
        public var requests = 0
        var tally = IngestTally()
        /// Signed items Get All Subscription Statuses returned: none for a subscription the
        /// ledger knows is no evidence that it ended.
        public var statusItems = 0
        /// Histories read again from the start because the server's revision could not be
        /// used: Apple refused it, it could not be sent back, or it repeated an earlier one.
        public var restartedHistories = 0

        public var json: String {
            var members: [(String, JSONValue)] = [("version", .number(1)), ("customer", .string(customer)),
                                                  ("originalTransactionIds", .array(asked.map { .string($0) })),
                                                  ("requests", .number(requests))]
            if restartedHistories > 0 { members.append(("restartedHistories", .number(restartedHistories))) }
            return JSONWriter.serialize(.object(members + tally.members))
        }
    }

    /// Apple's error for a revision token it no longer accepts: the history is read whole.
    static let refusedRevision: Int64 = 4_000_005

    /// `customer`: an original transaction id, or an app account token the ledger knows
    /// transactions of. `deadline` (monotonic ns): every request ends by it; nil: the whole
    /// refresh ends within the client's timeout (`timeout_ms`, every request and page included).
    public static func run(ledger: Ledger, client: AppStoreServerClient, verification: JWSOptions, customer: String,
                           depth: Depth = .full, deadline: UInt64? = nil) throws(GateKitError) -> Report {
        guard client.options.environment == verification.environment else {
            throw .invalid("the verification environment (\(verification.environment.rawValue)) is not the client's (\(client.options.environment.rawValue))")
        }
        let deadline = deadline ?? Clock.monotonicNanoseconds() &+ UInt64(client.options.timeoutMilliseconds) &* 1_000_000
        var report = Report(customer: customer)
        let ids = try purchaseIDs(ledger, customer: customer, verification: verification)
        var covered = Set<String>()
        for id in ids where !covered.contains(id) {
            report.asked.append(id)
            covered.insert(id)
            if depth == .full {
                covered.formUnion(try history(ledger, client, verification, id, deadline, &report))
            }
            try statuses(ledger, client, verification, id, deadline, &report)
        }
        return report
    }

    /// An original transaction id as given; an app account token: the ones the ledger holds.
    static func purchaseIDs(_ ledger: Ledger, customer: String, verification: JWSOptions) throws(GateKitError) -> [String] {
        guard UUIDText.isValid(customer) else {
            try Ledger.validate(customer: customer)
            return [customer]
        }
        var ids: [String] = []
        for testData in verification.testAnchorDER == nil ? [false] : [false, true] {
            for id in try ledger.purchaseIDs(customer: customer, scope: LedgerScope(environment: verification.environment, testData: testData))
                where !ids.contains(id) { ids.append(id) }
        }
        guard !ids.isEmpty else {
            throw GateKitError(.ENOTFOUND, "the ledger holds no transaction of app account token \(customer) in \(verification.environment.rawValue): refresh it by an original transaction id")
        }
        return ids
    }

    /// Pages through Get Transaction History; answers the original transaction ids it saw.
    private static func history(_ ledger: Ledger, _ client: AppStoreServerClient, _ verification: JWSOptions, _ id: String,
                                _ deadline: UInt64, _ report: inout Report) throws(GateKitError) -> Set<String> {
        let environment = verification.environment.rawValue
        let subject = "ledger-refresh/\(environment)/\(id)"
        var revision = try ledger.store.read { (db) throws(GateKitError) -> String? in
            let s = try db.statement("SELECT revision FROM ledger_refresh WHERE environment = ?1 AND original_transaction_id = ?2")
            defer { s.reset() }
            s.bind(1, text: environment).bind(2, text: id)
            return try s.step() ? s.text(0) : nil
        }
        var seen = Set<String>()
        var revisions = Set<String>()
        /// Reads the history again from its start, once: a server that never gives a usable
        /// revision fails the refresh (nothing unusable was kept).
        func restart(_ why: String) throws(GateKitError) {
            guard report.restartedHistories == 0 else { throw GateKitError(.EAPPSTORE_RESPONSE, "Get Transaction History: \(why), after reading it again from the start") }
            report.restartedHistories += 1
            revision = nil
            revisions = []
        }
        while true {
            let page: HistoryPage
            report.requests += 1
            if let revision { revisions.insert(revision) }
            switch try client.send(.getTransactionHistory(transactionID: id, revision: revision, request: nil, version: 2),
                                   verifying: false, timeoutMilliseconds: try remaining(deadline)) {
            case let .success(answer): page = try HistoryPage.transactions(answer)
            case let .failure(failure):
                if revision != nil, failure.errorCode == refusedRevision, report.restartedHistories == 0 {
                    try restart("Apple refused the revision")
                    continue
                }
                throw GateKitError(.EAPPSTORE_API, "Get Transaction History: \(failure.description)")
            }
            var restartAfter: String?
            if page.hasMore, page.unsendableNext {
                restartAfter = "the revision could not be sent back (over \(APIEndpoint.maximumArgumentLength) bytes or with a NUL)"
            } else if page.hasMore, let next = page.next, revisions.contains(next) {
                restartAfter = "the server repeated an earlier revision (a cycle)"
            }
            let now = Clock.nowMilliseconds()
            let recorded = try ledger.ingestTogether(page.signed.map { (text: Array($0.utf8), kind: JWSVerifier.Kind.transaction) },
                                                    options: verification, alongside: .subjects([subject])) { (db) throws(GateKitError) in
                // The revision is kept only with the last page: a refresh stopped before it asks
                // again from the last revision kept (ingestion is idempotent).
                guard !page.hasMore else { return }
                try db.statement("""
                    INSERT INTO ledger_refresh(environment, original_transaction_id, revision, refreshed_ms) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT(environment, original_transaction_id) DO UPDATE SET revision = excluded.revision, refreshed_ms = excluded.refreshed_ms
                    """).bind(1, text: environment).bind(2, text: id).bind(3, text: page.next).bind(4, now).run()
            }
            for case let .success(r) in recorded.reports { seen.formUnion(r.purchaseIDs) }
            report.tally.add(recorded.reports)
            if let why = restartAfter {
                try restart(why)
                continue
            }
            guard page.hasMore else {
                if page.unsendableNext { report.restartedHistories += 1 }  // kept as none: the next refresh reads it all
                return seen
            }
            revision = page.next
        }
    }

    private static func statuses(_ ledger: Ledger, _ client: AppStoreServerClient, _ verification: JWSOptions, _ id: String,
                                 _ deadline: UInt64, _ report: inout Report) throws(GateKitError) {
        report.requests += 1
        let last: [(transaction: String?, renewal: String?)]
        switch try client.send(.getAllSubscriptionStatuses(transactionID: id, statuses: []), verifying: false,
                               timeoutMilliseconds: try remaining(deadline)) {
        case let .success(answer): last = try HistoryPage.statuses(answer)
        case let .failure(failure): throw GateKitError(.EAPPSTORE_API, "Get All Subscription Statuses: \(failure.description)")
        }
        var items: [(text: [UInt8], kind: JWSVerifier.Kind)] = []
        for (transaction, renewal) in last {
            if let transaction { items.append((Array(transaction.utf8), .transaction)) }
            if let renewal { items.append((Array(renewal.utf8), .renewalInfo)) }
        }
        report.statusItems += items.count
        guard !items.isEmpty else { return }
        report.tally.add(try ledger.ingestTogether(items, options: verification, alongside: .subjects([])) { (_) throws(GateKitError) in }.reports)
    }

    /// What is left of the deadline for one request; past it, the refresh stops.
    private static func remaining(_ deadline: UInt64) throws(GateKitError) -> Int {
        let now = Clock.monotonicNanoseconds()
        guard now < deadline else { throw GateKitError(.EAPPSTORE_TRANSPORT, "the refresh's time budget ran out") }
        return Int(min((deadline - now) / 1_000_000, UInt64(Int32.max)))
    }
}
