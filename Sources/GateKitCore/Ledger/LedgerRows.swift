import GateKitStore
import GateKitSupport

/// The ledger's rows in the store: reading a customer's versions and items (the writes are
/// `LedgerWrites`'). Every statement is prepared once per connection (each connection caches them).
enum LedgerRows {
    static let transactionColumns = """
        transaction_id, original_transaction_id, app_account_token, product_id, group_id, product_type, family_shared,
        purchase_ms, original_purchase_ms, expires_ms, revocation_ms, revocation_reason, is_upgraded, offer_type, signed_ms, identity,
        store, replaces, pending, acknowledged, store_state
        """
    static let renewalColumns = """
        original_transaction_id, product_id, auto_renew_product_id, auto_renew_status, is_in_billing_retry,
        grace_period_expires_ms, expiration_intent, renewal_ms, signed_ms, identity, paused_until_ms
        """
    /// How many columns each list names: the index of a column selected after it.
    static let transactionColumnCount = columnCount(transactionColumns)
    static let renewalColumnCount = columnCount(renewalColumns)

    static func columnCount(_ columns: String) -> Int32 { Int32(truncatingIfNeeded: columns.split(separator: ",").count) }
    /// The customer's original transaction ids: the id itself (when the ledger holds it), or
    /// every one whose transactions ever carried the token (history; entitlement answers count
    /// only those whose newest token is this one: `CustomerRecord.token`).
    static func originals(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope) throws(GateKitError) -> [String] {
        switch customer {
        case let .token(token): return try tokenOriginals(db, token: token, scope: scope)
        case let .purchaseID(original):
            let own = try db.statement("SELECT 1 FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 LIMIT 1")
            defer { own.reset() }
            own.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
            return try own.step() ? [original] : []
        }
    }

    /// The original transaction ids whose transactions carry `token` (lowercased; stores written
    /// before tokens were lowercased may hold Swift's uppercase spelling). A plain indexed
    /// lookup ("IS NOT NULL" spelled out lets SQLite use the partial index; an IN/UNION subquery
    /// would make it build and free a temporary b-tree on every call).
    static func tokenOriginals(_ db: any DatabaseConnection, token: String, scope: LedgerScope) throws(GateKitError) -> [String] {
        let tokened = try db.statement("""
            SELECT original_transaction_id FROM ledger_transactions \(db.dialect == .sqlite ? "INDEXED BY ledger_transactions_by_token" : "")
            WHERE environment = ?1 AND test_signed = ?2 AND app_account_token IN (?3, ?4) AND app_account_token IS NOT NULL
            """)
        defer { tokened.reset() }
        tokened.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: token).bind(4, text: token.uppercased())
        var out: [String] = []
        while try tokened.step() {
            if let original = tokened.text(0), !out.contains(original) { out.append(original) }
        }
        return out
    }

    /// Which versions a read brings: every one (a question at a past instant needs them all),
    /// or only those `CustomerRecord.compacted()` can keep (a subscription's, by its id), chosen
    /// in SQL, so recording a version of a transaction with thousands reads a handful of rows.
    enum Versions {
        case all
        /// Every version when a subscription has few (`fewVersions`; the rest cut off, and the
        /// read then made `compactable`): one probe, what most subscriptions need.
        case first
        case compactable
    }

    /// Versions of one kind a subscription may have for `.first` to read them all.
    static let fewVersions = 64

    /// The compactable transaction rows of subscription ?3 (?1 environment, ?2 test flag), as
    /// the CTE `kept`: each transaction's newest-signed rows (ties kept: Swift breaks them by
    /// identity), the subscription's newest-signed token-carrying rows, and the earliest
    /// revocation of each purchase whose store's revocations stay (a version without a group
    /// takes its product's, `ledger_products`, as every read does). Every step is an index seek:
    /// the transactions are walked one by one from `ledger_transactions_by_original` (`held`),
    /// their versions never read. PostgreSQL walks through LATERAL joins, which fix the order of
    /// the seeks whatever its statistics (`OFFSET 0` keeps the planner from flattening one into
    /// a join, which read every version).
    private static func compactableKept(_ dialect: SQLDialect) -> String {
        let own = { (a: String) in "\(a)environment = ?1 AND \(a)test_signed = ?2 AND \(a)original_transaction_id = ?3" }
        let columns = transactionColumns.split(separator: ",").map { "t." + $0.filter { !$0.isWhitespace } }.joined(separator: ", ")
        let staying = PurchaseStore.codes { $0.revocationsStay }
        let walk: String
        if dialect == .postgresql {
            walk = """
                WITH RECURSIVE held(transaction_id) AS (
                    (SELECT transaction_id FROM ledger_transactions WHERE \(own("")) ORDER BY transaction_id LIMIT 1)
                    UNION ALL
                    SELECT next.transaction_id FROM held CROSS JOIN LATERAL (SELECT transaction_id FROM ledger_transactions
                        WHERE \(own("")) AND transaction_id > held.transaction_id ORDER BY transaction_id LIMIT 1) next),
                kept AS (
                    SELECT newest.* FROM held CROSS JOIN LATERAL (SELECT \(columns) FROM ledger_transactions t
                        WHERE \(own("t.")) AND t.transaction_id = held.transaction_id AND t.signed_ms = (SELECT max(n.signed_ms)
                        FROM ledger_transactions n WHERE \(own("n.")) AND n.transaction_id = held.transaction_id) OFFSET 0) newest
                """
        } else {
            walk = """
                WITH RECURSIVE held(transaction_id) AS (
                    SELECT min(transaction_id) FROM ledger_transactions WHERE \(own(""))
                    UNION ALL
                    SELECT (SELECT min(transaction_id) FROM ledger_transactions WHERE \(own("")) AND transaction_id > held.transaction_id)
                    FROM held WHERE held.transaction_id IS NOT NULL),
                newest(transaction_id, signed_ms) AS (
                    SELECT transaction_id, (SELECT max(n.signed_ms) FROM ledger_transactions n WHERE \(own("n.")) \
                    AND n.transaction_id = held.transaction_id) FROM held WHERE transaction_id IS NOT NULL),
                kept AS (
                    SELECT \(columns) FROM newest JOIN ledger_transactions t ON \(own("t.")) \
                    AND t.transaction_id = newest.transaction_id AND t.signed_ms = newest.signed_ms
                """
        }
        return walk + """

                UNION ALL
                SELECT \(columns) FROM ledger_transactions t WHERE \(own("t.")) AND t.app_account_token IS NOT NULL \
                AND t.signed_ms = (SELECT max(k.signed_ms) FROM ledger_transactions k WHERE \(own("k.")) AND k.app_account_token IS NOT NULL)
                UNION ALL
                SELECT \(columns) FROM ledger_transactions t WHERE \(own("t.")) AND t.store IN (\(staying)) \
                AND t.revocation_ms IS NOT NULL AND t.revocation_ms = (SELECT min(r.revocation_ms) FROM ledger_transactions r \
                WHERE \(own("r.")) AND r.store IN (\(staying)) AND r.revocation_ms IS NOT NULL AND r.transaction_id = t.transaction_id))
            """
    }

    /// The renewal-info rows of `matching`; compactable: each subscription's newest-signed.
    static func renewalRows(_ versions: Versions, matching: String) -> String {
        let own = "FROM ledger_renewals WHERE environment = ?1 AND test_signed = ?2 AND \(matching)"
        if versions == .first { return "SELECT \(renewalColumns) \(own) LIMIT \(fewVersions + 1)" }
        guard versions == .compactable else { return "SELECT \(renewalColumns) \(own)" }
        return "SELECT \(renewalColumns) \(own) AND signed_ms = (SELECT max(signed_ms) \(own))"
    }

    static let transactionsByOriginal = "SELECT \(transactionColumns) FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3"
    static let renewalsByOriginal = renewalRows(.all, matching: "original_transaction_id = ?3")
    private static let firstTransactionsByOriginal = transactionsByOriginal + " LIMIT \(fewVersions + 1)"
    private static let firstRenewalsByOriginal = renewalRows(.first, matching: "original_transaction_id = ?3")
    private static let compactableTransactionsByOriginal = compactableKept(.sqlite) + "\nSELECT * FROM kept"
    private static let compactableRenewalsByOriginal = renewalRows(.compactable, matching: "original_transaction_id = ?3")

    /// `copy`: the statement copy a prefetch used (`prefetchRecord`, with the same `versions`).
    static func record(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope, versions: Versions = .all,
                       copy: Int = 0) throws(GateKitError) -> CustomerRecord {
        var record = db.dialect == .postgresql ? try recordInOneRoundTrip(db, customer: customer, scope: scope, versions: versions, copy: copy)
            : try recordByStatements(db, customer: customer, scope: scope, versions: versions)
        try addReplacements(db, &record, customer: customer, scope: scope, versions: versions)
        try PaymentRows.read(db, into: &record, purchases: PaymentRows.purchasesAnsweredApart(record), scope: scope)
        if case let .token(token) = customer {
            record.token = token
            for i in record.transactions.indices { record.transactions[i].appAccountToken = record.transactions[i].appAccountToken?.lowercased() }
        }
        return record
    }

    /// A subscription's record reduced as `CustomerRecord.compacted()` reduces it: read whole
    /// when it holds few versions (one probe), else only the versions it keeps, by index seeks.
    static func compactedRecord(_ db: any DatabaseConnection, original: String, scope: LedgerScope, copy: Int = 0) throws(GateKitError) -> CustomerRecord {
        let first = try record(db, customer: .purchaseID(original), scope: scope, versions: .first, copy: copy)
        var transactions: [String: Int] = [:], renewals: [String: Int] = [:]
        for t in first.transactions { transactions[t.purchaseID, default: 0] += 1 }
        for r in first.renewals { renewals[r.purchaseID, default: 0] += 1 }
        let cut = transactions.values.contains { $0 > fewVersions } || renewals.values.contains { $0 > fewVersions }
        guard cut else { return first.compacted() }
        return try record(db, customer: .purchaseID(original), scope: scope, versions: .compactable).compacted()
    }

    /// Most subscriptions a record follows through replacements (a chain is one subscription:
    /// a plan change, re-signup or top-up made a new purchase naming the old).
    static let maximumChain = 64

    /// Adds the versions of every subscription that replaced one of the record's, transitively
    /// (bounded): a question about an old token answers from its chain, and recording an old
    /// token sees that it was superseded. Only the subscriptions of a store whose purchases
    /// replace others are followed (`PurchaseStore.Rules.purchasesReplaceOthers`).
    private static func addReplacements(_ db: any DatabaseConnection, _ record: inout CustomerRecord, customer: LedgerCustomer,
                                        scope: LedgerScope, versions: Versions) throws(GateKitError) {
        var known = Set(record.transactions.map { Array($0.purchaseID.utf8) })
        var frontier = record.transactions.filter { $0.store.rules.purchasesReplaceOthers }.map(\.purchaseID)
        // An id the ledger holds no version of may still be one a later purchase replaced.
        if case let .purchaseID(original) = customer, known.insert(Array(original.utf8)).inserted { frontier.append(original) }
        var followed = 0
        var seen = Set<[UInt8]>()
        while let original = frontier.popLast() {
            guard seen.insert(Array(original.utf8)).inserted else { continue }
            // The partial index named on SQLite: its planner otherwise walks the scope's rows.
            // No DISTINCT (`known` drops a repeat): SQLite would fill a temporary b-tree each run.
            let replacing = try db.statement("""
                SELECT original_transaction_id FROM ledger_transactions
                \(db.dialect == .sqlite ? "INDEXED BY ledger_transactions_by_replaced" : "")
                WHERE environment = ?1 AND test_signed = ?2 AND replaces = ?3 AND replaces IS NOT NULL
                """)
            replacing.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
            var found: [String] = []
            while try replacing.step() { if let o = replacing.text(0) { found.append(o) } }
            replacing.reset()
            for successor in found where known.insert(Array(successor.utf8)).inserted {
                guard followed < maximumChain else { return }
                followed += 1
                try load(db, successor, scope: scope, versions: versions, into: &record) { _ in }
                frontier.append(successor)
            }
        }
    }

    /// Appends one subscription's transaction and renewal rows to `record`; `each` sees every
    /// transaction version read.
    private static func load(_ db: any DatabaseConnection, _ original: String, scope: LedgerScope, versions: Versions,
                             into record: inout CustomerRecord, each: (TransactionVersion) -> Void) throws(GateKitError) {
        let t = try db.statement(versions == .all ? transactionsByOriginal : versions == .first ? firstTransactionsByOriginal : compactableTransactionsByOriginal)
        defer { t.reset() }
        t.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
        while try t.step() {
            let v = transaction(t)
            each(v)
            record.transactions.append(v)
        }
        let r = try db.statement(versions == .all ? renewalsByOriginal : versions == .first ? firstRenewalsByOriginal : compactableRenewalsByOriginal)
        defer { r.reset() }
        r.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
        while try r.step() { record.renewals.append(renewal(r)) }
    }

    private static func recordByStatements(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope,
                                           versions: Versions) throws(GateKitError) -> CustomerRecord {
        var record = CustomerRecord()
        var groupless = Set<String>()
        let originals: [String]
        switch customer {
        case let .purchaseID(original): originals = [original]
        case let .token(token): originals = try tokenOriginals(db, token: token, scope: scope)
        }
        for original in originals {
            try load(db, original, scope: scope, versions: versions, into: &record) { v in
                if v.groupID == nil { groupless.insert(v.productID) }
            }
        }
        // Receipt purchases say no group: the group any signed transaction gave the product
        // (whichever versions were read, a version without a group takes its product's).
        for product in groupless {
            let g = try db.statement("SELECT group_id FROM ledger_products WHERE environment = ?1 AND test_signed = ?2 AND product_id = ?3")
            defer { g.reset() }
            g.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: product)
            if try g.step(), let group = g.text(0) { record.productGroups[product] = group }
        }
        return record
    }

    /// The same record from one statement: over a network each statement is a round trip, so
    /// the customer's transactions, renewals and receipt products' groups come tagged in one
    /// result (1, 2, 3 in the first column; transaction columns from 1, renewal columns after them).
    /// `matching` selects the customer's rows by original transaction id from ?1 (environment),
    /// ?2 (test flag), ?3 and ?4 (the id, or the token in both spellings), with `with` before.
    private static func wholeCustomer(with: String = "", matching: String, versions: Versions = .all) -> String {
        let txCount = Int(transactionColumnCount), renewalCount = Int(renewalColumnCount)
        let nulls = { (n: Int) in Array(repeating: "NULL", count: n).joined(separator: ", ") }
        let transactions = versions == .compactable ? "SELECT * FROM kept"
            : "SELECT \(transactionColumns) FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2 AND \(matching)"
                + (versions == .first ? " LIMIT \(fewVersions + 1)" : "")
        return """
            \(versions == .compactable ? compactableKept(.postgresql) : with)
            SELECT 1, t.*, \(nulls(renewalCount)) FROM (\(transactions)) t
            UNION ALL
            SELECT 2, \(nulls(txCount)), r.* FROM (\(renewalRows(versions, matching: matching))) r
            UNION ALL
            SELECT 3, p.product_id, p.group_id, \(nulls(txCount + renewalCount - 2)) FROM ledger_products p
            WHERE p.environment = ?1 AND p.test_signed = ?2 AND p.product_id IN (SELECT product_id FROM (\(transactions)) t WHERE group_id IS NULL)
            """
    }
    /// The id compared directly: a CTE of a parameter made PostgreSQL plan the statement anew
    /// on every call (BENCHMARKS.md, "Ledger ingestion at the speed of verification").
    private static let wholeOriginal = wholeCustomer(matching: "original_transaction_id = ?3")
    private static let firstOriginal = wholeCustomer(matching: "original_transaction_id = ?3", versions: .first)
    private static let compactableOriginal = wholeCustomer(matching: "original_transaction_id = ?3", versions: .compactable)
    private static let wholeToken = wholeCustomer(with: """
        WITH originals(o) AS (SELECT DISTINCT original_transaction_id FROM ledger_transactions
        WHERE environment = ?1 AND test_signed = ?2 AND app_account_token IN (?3, ?4) AND app_account_token IS NOT NULL)
        """, matching: "original_transaction_id IN (SELECT o FROM originals)")

    /// Sends the first read of a subscription's compacted record ahead (`DatabaseStatement.prefetch`).
    static func prefetchCompactedRecord(_ db: any DatabaseConnection, original: String, scope: LedgerScope, copy: Int) throws(GateKitError) {
        guard db.dialect == .postgresql else { return }
        try wholeCustomer(db, .purchaseID(original), scope: scope, versions: .first, copy: copy).prefetch()
    }

    private static func wholeCustomer(_ db: any DatabaseConnection, _ customer: LedgerCustomer, scope: LedgerScope, versions: Versions,
                                      copy: Int) throws(GateKitError) -> any DatabaseStatement {
        let s: any DatabaseStatement
        switch customer {
        case let .purchaseID(original):
            s = try db.statement(versions == .all ? wholeOriginal : versions == .first ? firstOriginal : compactableOriginal, copy: copy)
            s.bind(3, text: original)
        case let .token(token):
            // Every version (a token's record is read for questions, never compacted).
            s = try db.statement(wholeToken, copy: copy)
            s.bind(3, text: token).bind(4, text: token.uppercased())
        }
        return s.bind(1, text: scope.environment).bind(2, scope.testFlag)
    }

    private static func recordInOneRoundTrip(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope, versions: Versions,
                                             copy: Int) throws(GateKitError) -> CustomerRecord {
        var record = CustomerRecord()
        let s = try wholeCustomer(db, customer, scope: scope, versions: versions, copy: copy)
        defer { s.reset() }
        while try s.step() {
            switch s.int64(0) {
            case 1: record.transactions.append(transaction(s, from: 1))
            case 2: record.renewals.append(renewal(s, from: 1 + transactionColumnCount))
            default: if let product = s.text(1), let group = s.text(2) { record.productGroups[product] = group }
            }
        }
        return record
    }

    /// A transaction version from `transactionColumns`, starting at column `from`.
    static func transaction(_ s: any DatabaseStatement, from first: Int32 = 0) -> TransactionVersion {
        func optional(_ c: Int32) -> Int64? { s.optionalInt64(first + c) }
        func text(_ c: Int32) -> String? { s.text(first + c) }
        func int(_ c: Int32) -> Int64 { s.int64(first + c) }
        var v = TransactionVersion(
            transactionID: text(0) ?? "", purchaseID: text(1) ?? "", appAccountToken: text(2),
            productID: text(3) ?? "", groupID: text(4), productType: ProductType(rawValue: int(5)) ?? .unknown,
            familyShared: int(6) != 0, purchaseMs: optional(7), originalPurchaseMs: optional(8), expiresMs: optional(9),
            revocationMs: optional(10), revocationReason: optional(11).map(RevocationReason.init(stored:)), isUpgraded: int(12) != 0,
            offer: optional(13).map(Offer.init(stored:)),
            vouchedMs: int(14), identity: text(15) ?? "")
        v.store = PurchaseStore(stored: text(16))
        v.replaces = text(17)
        v.isPending = optional(18) == 1
        v.acknowledged = optional(19).map { $0 == 1 }
        v.storeState = text(20)
        return v
    }

    /// A renewal version from `renewalColumns`, starting at column `from`.
    static func renewal(_ s: any DatabaseStatement, from first: Int32 = 0) -> RenewalVersion {
        func optional(_ c: Int32) -> Int64? { s.optionalInt64(first + c) }
        return RenewalVersion(
            purchaseID: s.text(first) ?? "", productID: s.text(first + 1), autoRenewProductID: s.text(first + 2),
            willAutoRenew: optional(3).map { $0 == 1 }, isInBillingRetryPeriod: s.int64(first + 4) != 0, gracePeriodExpiresMs: optional(5),
            expirationCause: optional(6).map(ExpirationCause.init(stored:)), renewalMs: optional(7), pausedUntilMs: optional(10),
            vouchedMs: s.int64(first + 8), identity: s.text(first + 9) ?? "")
    }

    // MARK: signed text

    /// A verified compact JWS split for storage: the header (its certificate chain, shared by
    /// everything one key signed) is kept once; the rest ("payload.signature") per row.
    struct SignedText {
        let header: String
        let body: String

        init(header: String, body: String) {
            self.header = header
            self.body = body
        }

        init?(_ text: String) {
            guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            header = String(text[..<dot])
            body = String(text[text.index(after: dot)...])
        }

        /// From the caller's bytes directly (no String of the whole text first).
        init?<C: Collection>(bytes: C) where C.Element == UInt8 {
            guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            header = String(decoding: bytes[..<dot], as: UTF8.self)
            body = String(decoding: bytes[bytes.index(after: dot)...], as: UTF8.self)
        }
    }

    /// Who gave the store's transaction `transactionID` by hand, and why (its newest version's
    /// `granted_by` and `note`); nil for what a store sold.
    static func attribution(_ db: any DatabaseConnection, transactionID: String, store: PurchaseStore,
                            scope: LedgerScope) throws(GateKitError) -> Attribution? {
        let s = try newest("granted_by, note", db, transactionID: transactionID, store: store, scope: scope)
        defer { s.reset() }
        guard try s.step(), let by = s.text(0) else { return nil }
        return Attribution(grantedBy: by, note: s.text(1))
    }

    /// The newest version of the store's transaction `transactionID` in the scope; nil when the
    /// ledger holds none.
    static func newestVersion(_ db: any DatabaseConnection, transactionID: String, store: PurchaseStore,
                              scope: LedgerScope) throws(GateKitError) -> TransactionVersion? {
        let s = try newest(transactionColumns, db, transactionID: transactionID, store: store, scope: scope)
        defer { s.reset() }
        return try s.step() ? transaction(s) : nil
    }

    /// `columns` of the newest version of the store's transaction (the unique key's prefix finds
    /// its few versions), bound and ready to step.
    private static func newest(_ columns: String, _ db: any DatabaseConnection, transactionID: String, store: PurchaseStore,
                               scope: LedgerScope) throws(GateKitError) -> any DatabaseStatement {
        let s = try db.statement("""
            SELECT \(columns) FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND transaction_id = ?3 AND coalesce(store, '') = ?4
            ORDER BY signed_ms DESC, identity DESC LIMIT 1
            """)
        return s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: transactionID).bind(4, text: store.code ?? "")
    }

    static func headerID(_ db: any DatabaseConnection, _ header: String) throws(GateKitError) -> Int64 {
        let find = try db.statement("SELECT id FROM ledger_jws_headers WHERE header = ?1")
        defer { find.reset() }
        find.bind(1, text: header)
        if try find.step() { return find.int64(0) }
        return try db.statement("INSERT INTO ledger_jws_headers(header) VALUES (?1) RETURNING id").bind(1, text: header).insertedID()
    }

    /// The compact JWS a transaction version came in (nil for a receipt purchase).
    static func signedTransaction(_ db: any DatabaseConnection, scope: LedgerScope, transactionID: String, identity: String) throws(GateKitError) -> String? {
        try signedText(db, table: "ledger_transactions", key: "transaction_id", scope: scope, value: transactionID, identity: identity)
    }

    /// The compact JWS a renewal-info version came in.
    static func signedRenewal(_ db: any DatabaseConnection, scope: LedgerScope, purchaseID: String, identity: String) throws(GateKitError) -> String? {
        try signedText(db, table: "ledger_renewals", key: "original_transaction_id", scope: scope, value: purchaseID, identity: identity)
    }

    /// A version's own text, or its item's when it is the item itself (NULL body).
    private static func signedText(_ db: any DatabaseConnection, table: StaticString, key: StaticString, scope: LedgerScope,
                                   value: String, identity: String) throws(GateKitError) -> String? {
        let s = try db.statement("""
            SELECT h.header, coalesce(v.body, i.body) FROM \(table) v JOIN ledger_items i ON i.id = v.item_id
            JOIN ledger_jws_headers h ON h.id = coalesce(v.header_id, i.header_id)
            WHERE v.environment = ?1 AND v.test_signed = ?2 AND v.\(key) = ?3 AND v.identity = ?4
            """)
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: value).bind(4, text: identity)
        guard try s.step(), let header = s.text(0), let body = s.text(1) else { return nil }
        return header + "." + body
    }
}

