import GateKitStore
import GateKitSupport

/// The `ledger_account_links` rows: the host's app accounts linked to ledger customers. A
/// customer belongs to at most one app account at a time (linking it to another moves it: a
/// transfer, recorded as such); every link and unlink is kept with its instant.
enum AppAccountRows {
    struct Link: Equatable {
        let appUserID: String
        let customer: String
        let sinceMs: Int64
        /// Its place among the changes it was read with: orders two links of one millisecond.
        var sequence = 0
    }

    struct Change {
        let appUserID: String
        let customer: String
        let linked: Bool
        let atMs: Int64
        let cause: String?
    }

    /// The app account the customer is linked to at `atMs` (nil: now), if any.
    static func holder(_ db: any DatabaseConnection, environment: String, customer: String, atMs: Int64?) throws(GateKitError) -> Link? {
        let s = try db.statement("""
            SELECT app_user_id, linked, at_ms FROM ledger_account_links
            WHERE environment = ?1 AND customer = ?2 AND (?3 IS NULL OR at_ms <= ?3) ORDER BY id DESC LIMIT 1
            """)
        defer { s.reset() }
        s.bind(1, text: environment).bind(2, text: customer).bind(3, atMs)
        guard try s.step(), s.int64(1) == 1 else { return nil }
        return Link(appUserID: s.text(0) ?? "", customer: customer, sinceMs: s.int64(2))
    }

    static func append(_ db: any DatabaseConnection, environment: String, appUserID: String, customer: String, linked: Bool,
                       atMs: Int64, cause: String?) throws(GateKitError) {
        try db.statement("""
            INSERT INTO ledger_account_links(environment, app_user_id, customer, linked, at_ms, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """).bind(1, text: environment).bind(2, text: appUserID).bind(3, text: customer).bind(4, linked ? 1 : 0)
            .bind(5, atMs).bind(6, text: cause).run()
    }

    /// Every change touching the app account (nil: any) and one of at most two customers (a
    /// subscription and its token; empty: any), oldest first.
    /// `copy`: the statement copy a prefetch used (`prefetchChanges`).
    static func changes(_ db: any DatabaseConnection, environment: String, appUserID: String?, customers: [String], copy: Int = 0) throws(GateKitError) -> [Change] {
        let s = try changesStatement(db, environment: environment, appUserID: appUserID, customers: customers, copy: copy)
        defer { s.reset() }
        var out: [Change] = []
        while try s.step() {
            out.append(Change(appUserID: s.text(0) ?? "", customer: s.text(1) ?? "", linked: s.int64(2) == 1, atMs: s.int64(3), cause: s.text(4)))
        }
        return out
    }

    /// Sends the read ahead (`DatabaseStatement.prefetch`).
    static func prefetchChanges(_ db: any DatabaseConnection, environment: String, customers: [String], copy: Int) throws(GateKitError) {
        try changesStatement(db, environment: environment, appUserID: nil, customers: customers, copy: copy).prefetch()
    }

    private static func changesStatement(_ db: any DatabaseConnection, environment: String, appUserID: String?, customers: [String],
                                         copy: Int) throws(GateKitError) -> any DatabaseStatement {
        // A customer's changes (what every ingestion that changes an answer asks) by the customer
        // index alone: the general form's "?2 IS NULL OR …" leaves PostgreSQL's generic plan a scan.
        // One customer (a purchase without a token) reads the index in id order: the two's OR
        // costs SQLite a temporary b-tree of the pair and a sort on every run.
        let sql = appUserID == nil && customers.count == 1 ? """
            SELECT app_user_id, customer, linked, at_ms, cause FROM ledger_account_links
            WHERE environment = ?1 AND customer = ?3 ORDER BY id
            """ : appUserID == nil && !customers.isEmpty ? """
            SELECT app_user_id, customer, linked, at_ms, cause FROM ledger_account_links
            WHERE environment = ?1 AND (customer = ?3 OR customer = ?4) ORDER BY id
            """ : """
            SELECT app_user_id, customer, linked, at_ms, cause FROM ledger_account_links
            WHERE environment = ?1 AND (?2 IS NULL OR app_user_id = ?2) AND (?3 IS NULL OR customer = ?3 OR customer = ?4) ORDER BY id
            """
        return try db.statement(sql, copy: copy)
            .bind(1, text: environment).bind(2, text: appUserID).bind(3, text: customers.first).bind(4, text: customers.dropFirst().first)
    }

    /// The links in effect at `atMs` (nil: now) among `changes` (oldest first): the last change
    /// of each customer made by then, where it links.
    static func current(_ changes: [Change], atMs: Int64?) -> [Link] {
        // Customers compared as bytes, as the store compares (Swift's String == would merge a
        // Kelvin sign with a K: the real owner's link read as another's).
        var last: [[UInt8]: (change: Change, sequence: Int)] = [:]
        var order: [[UInt8]] = []
        for (sequence, change) in changes.enumerated() where atMs.map({ change.atMs <= $0 }) ?? true {
            let key = Array(change.customer.utf8)
            if last[key] == nil { order.append(key) }
            last[key] = (change, sequence)
        }
        return order.compactMap { key in
            guard let (change, sequence) = last[key], change.linked else { return nil }
            return Link(appUserID: change.appUserID, customer: change.customer, sinceMs: change.atMs, sequence: sequence)
        }
    }
}
