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
        case let .originalTransactionID(original):
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

    static let transactionsByOriginal = "SELECT \(transactionColumns) FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3"
    static let renewalsByOriginal = "SELECT \(renewalColumns) FROM ledger_renewals WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3"

    /// `copy`: the statement copy a prefetch used (`prefetchRecord`).
    static func record(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope, copy: Int = 0) throws(GateKitError) -> CustomerRecord {
        var record = db.dialect == .postgresql ? try recordInOneRoundTrip(db, customer: customer, scope: scope, copy: copy)
            : try recordByStatements(db, customer: customer, scope: scope)
        try addReplacements(db, &record, customer: customer, scope: scope)
        if case let .token(token) = customer {
            record.token = token
            for i in record.transactions.indices { record.transactions[i].appAccountToken = record.transactions[i].appAccountToken?.lowercased() }
        }
        return record
    }

    /// Most subscriptions a record follows through replacements (a Play token chain is one
    /// subscription: a plan change, re-signup or top-up makes a new token naming the old).
    static let maximumChain = 64

    /// Adds the versions of every subscription that replaced one of the record's, transitively
    /// (bounded): a question about an old token answers from its chain, and recording an old
    /// token sees that it was superseded. Apple's ids (all digits) are never replaced this way:
    /// no read for them.
    private static func addReplacements(_ db: any DatabaseConnection, _ record: inout CustomerRecord, customer: LedgerCustomer,
                                        scope: LedgerScope) throws(GateKitError) {
        var known = Set(record.transactions.map { Array($0.originalTransactionID.utf8) })
        var frontier = record.transactions.map(\.originalTransactionID)
        if case let .originalTransactionID(original) = customer, known.insert(Array(original.utf8)).inserted { frontier.append(original) }
        frontier = frontier.filter { !$0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        var followed = 0
        var seen = Set<[UInt8]>()
        while let original = frontier.popLast() {
            guard seen.insert(Array(original.utf8)).inserted else { continue }
            // The partial index named on SQLite: its planner otherwise walks the scope's rows.
            let replacing = try db.statement("""
                SELECT DISTINCT original_transaction_id FROM ledger_transactions
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
                let t = try db.statement(transactionsByOriginal)
                t.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: successor)
                while try t.step() { record.transactions.append(transaction(t)) }
                t.reset()
                let r = try db.statement(renewalsByOriginal)
                r.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: successor)
                while try r.step() { record.renewals.append(renewal(r)) }
                r.reset()
                frontier.append(successor)
            }
        }
    }

    private static func recordByStatements(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope) throws(GateKitError) -> CustomerRecord {
        var record = CustomerRecord()
        var groupless = Set<String>()
        var grouped = Set<String>()
        func load(_ original: String) throws(GateKitError) {
            let t = try db.statement(transactionsByOriginal)
            t.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
            while try t.step() {
                let v = transaction(t)
                if v.groupID == nil { groupless.insert(v.productID) } else { grouped.insert(v.productID) }
                record.transactions.append(v)
            }
            t.reset()
            let r = try db.statement(renewalsByOriginal)
            r.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
            while try r.step() { record.renewals.append(renewal(r)) }
            r.reset()
        }
        switch customer {
        case let .originalTransactionID(original): try load(original)
        case let .token(token): for original in try tokenOriginals(db, token: token, scope: scope) { try load(original) }
        }
        // Receipt purchases say no group: the group any signed transaction gave the product.
        for product in groupless.subtracting(grouped) {
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
    private static func wholeCustomer(with: String = "", matching: String) -> String {
        let txCount = Int(transactionColumnCount), renewalCount = Int(renewalColumnCount)
        let nulls = { (n: Int) in Array(repeating: "NULL", count: n).joined(separator: ", ") }
        return """
            \(with)
            SELECT 1, \(transactionColumns), \(nulls(renewalCount)) FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND \(matching)
            UNION ALL
            SELECT 2, \(nulls(txCount)), \(renewalColumns) FROM ledger_renewals
            WHERE environment = ?1 AND test_signed = ?2 AND \(matching)
            UNION ALL
            SELECT 3, p.product_id, p.group_id, \(nulls(txCount + renewalCount - 2)) FROM ledger_products p
            WHERE p.environment = ?1 AND p.test_signed = ?2 AND p.product_id IN (
                SELECT product_id FROM ledger_transactions WHERE environment = ?1 AND test_signed = ?2
                AND \(matching) AND group_id IS NULL)
            """
    }
    /// The id compared directly: a CTE of a parameter made PostgreSQL plan the statement anew
    /// on every call (BENCHMARKS.md, "Ledger ingestion at the speed of verification").
    private static let wholeOriginal = wholeCustomer(matching: "original_transaction_id = ?3")
    private static let wholeToken = wholeCustomer(with: """
        WITH originals(o) AS (SELECT DISTINCT original_transaction_id FROM ledger_transactions
        WHERE environment = ?1 AND test_signed = ?2 AND app_account_token IN (?3, ?4) AND app_account_token IS NOT NULL)
        """, matching: "original_transaction_id IN (SELECT o FROM originals)")

    /// Sends the read of a subscription's record ahead (`DatabaseStatement.prefetch`).
    static func prefetchRecord(_ db: any DatabaseConnection, original: String, scope: LedgerScope, copy: Int) throws(GateKitError) {
        guard db.dialect == .postgresql else { return }
        try wholeCustomer(db, .originalTransactionID(original), scope: scope, copy: copy).prefetch()
    }

    private static func wholeCustomer(_ db: any DatabaseConnection, _ customer: LedgerCustomer, scope: LedgerScope, copy: Int) throws(GateKitError) -> any DatabaseStatement {
        let s: any DatabaseStatement
        switch customer {
        case let .originalTransactionID(original):
            s = try db.statement(wholeOriginal, copy: copy)
            s.bind(3, text: original)
        case let .token(token):
            s = try db.statement(wholeToken, copy: copy)
            s.bind(3, text: token).bind(4, text: token.uppercased())
        }
        return s.bind(1, text: scope.environment).bind(2, scope.testFlag)
    }

    private static func recordInOneRoundTrip(_ db: any DatabaseConnection, customer: LedgerCustomer, scope: LedgerScope, copy: Int) throws(GateKitError) -> CustomerRecord {
        var record = CustomerRecord()
        var groups: [String: String] = [:]
        var grouped = Set<String>()
        let s = try wholeCustomer(db, customer, scope: scope, copy: copy)
        defer { s.reset() }
        while try s.step() {
            switch s.int64(0) {
            case 1:
                let v = transaction(s, from: 1)
                if v.groupID != nil { grouped.insert(v.productID) }
                record.transactions.append(v)
            case 2: record.renewals.append(renewal(s, from: 1 + transactionColumnCount))
            default: if let product = s.text(1), let group = s.text(2) { groups[product] = group }
            }
        }
        // As in `record`: only products no signed transaction of the customer gave a group.
        for (product, group) in groups where !grouped.contains(product) { record.productGroups[product] = group }
        return record
    }

    /// A transaction version from `transactionColumns`, starting at column `from`.
    static func transaction(_ s: any DatabaseStatement, from first: Int32 = 0) -> TransactionVersion {
        func optional(_ c: Int32) -> Int64? { s.optionalInt64(first + c) }
        func text(_ c: Int32) -> String? { s.text(first + c) }
        func int(_ c: Int32) -> Int64 { s.int64(first + c) }
        var v = TransactionVersion(
            transactionID: text(0) ?? "", originalTransactionID: text(1) ?? "", appAccountToken: text(2),
            productID: text(3) ?? "", groupID: text(4), productType: ProductType(rawValue: int(5)) ?? .unknown,
            familyShared: int(6) != 0, purchaseMs: optional(7), originalPurchaseMs: optional(8), expiresMs: optional(9),
            revocationMs: optional(10), revocationReason: optional(11).map(RevocationReason.init(stored:)), isUpgraded: int(12) != 0,
            offer: optional(13).map(Offer.init(stored:)),
            signedMs: int(14), identity: text(15) ?? "")
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
            originalTransactionID: s.text(first) ?? "", productID: s.text(first + 1), autoRenewProductID: s.text(first + 2),
            willAutoRenew: optional(3).map { $0 == 1 }, isInBillingRetryPeriod: s.int64(first + 4) != 0, gracePeriodExpiresMs: optional(5),
            expirationCause: optional(6).map(ExpirationCause.init(stored:)), renewalMs: optional(7), pausedUntilMs: optional(10),
            signedMs: s.int64(first + 8), identity: s.text(first + 9) ?? "")
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
    static func signedRenewal(_ db: any DatabaseConnection, scope: LedgerScope, originalTransactionID: String, identity: String) throws(GateKitError) -> String? {
        try signedText(db, table: "ledger_renewals", key: "original_transaction_id", scope: scope, value: originalTransactionID, identity: identity)
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
