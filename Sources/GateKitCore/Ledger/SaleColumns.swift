import GateKitJWS
import GateKitStore
import GateKitSupport

/// The sale columns of `ledger_transactions` (migration 11): written with each version from
/// now on (`LedgerWrites`), and filled once for the versions a store held before, from the
/// signed text each was stored with.
enum SaleColumns {
    static let names = "price, currency, storefront, trial, revocation_type, revocation_percentage"

    static func values(_ sale: TransactionVersion.Sale) -> [RowInserts.Value] {
        [.integer(sale.price), .text(sale.currency), .text(sale.storefront), .integer(sale.trial.map { $0 ? 1 : 0 }),
         .text(sale.refund?.rawValue), .integer(sale.revocationPercentage)]
    }

    /// A sale read from `names`, starting at column `first`.
    static func sale(_ s: any DatabaseStatement, from first: Int32) -> TransactionVersion.Sale {
        TransactionVersion.Sale(price: s.optionalInt64(first), currency: s.text(first + 1), storefront: s.text(first + 2),
                                trial: s.optionalInt64(first + 3).map { $0 != 0 }, refund: s.text(first + 4).flatMap(RefundKind.init(rawValue:)),
                                revocationPercentage: s.optionalInt64(first + 5))
    }

    /// The columns a sold version is read with: `LedgerRows.transactionColumns`, then `names`.
    static let versionColumns = "\(LedgerRows.transactionColumns), \(names)"
    static let versionColumnCount = LedgerRows.columnCount(versionColumns)

    /// A version and its sale, from `versionColumns` at column 0.
    static func version(_ s: any DatabaseStatement) -> TransactionVersion {
        var v = LedgerRows.transaction(s)
        v.sale = sale(s, from: LedgerRows.transactionColumnCount)
        return v
    }

    /// Rows updated per statement (7 parameters each).
    private static let rowsPerUpdate = 256

    /// Decodes every stored StoreKit 2 transaction's payload and writes its sale, a page of
    /// rows per statement. The table is append-only: its triggers are lifted for this one
    /// transaction and put back as they were (a failure rolls all of it back). Receipt
    /// purchases (no JWS header) keep NULLs: a receipt names no price.
    static let fill: Migration.Fill = { (db) throws(GateKitError) in
        let table = "ledger_transactions"
        switch db.dialect {
        case .sqlite: try db.execute("DROP TRIGGER \(table)_no_update; DROP TRIGGER \(table)_no_delete;")
        case .postgresql: try db.execute("DROP TRIGGER \(table)_append_only ON \(table); DROP TRIGGER \(table)_no_truncate ON \(table);")
        }
        var last: Int64 = 0
        while true {
            let page = try db.statement("""
                SELECT v.id, coalesce(v.body, i.body) FROM ledger_transactions v JOIN ledger_items i ON i.id = v.item_id
                WHERE v.id > ?1 AND coalesce(v.header_id, i.header_id) IS NOT NULL ORDER BY v.id LIMIT \(rowsPerUpdate)
                """)
            page.bind(1, last)
            var rows: [(Int64, TransactionVersion.Sale)] = []
            while try page.step() {
                let id = page.int64(0)
                rows.append((id, try sale(page.text(1) ?? "", row: id)))
            }
            page.reset()
            guard let end = rows.last?.0 else { break }
            last = end
            let tuples = (0..<rows.count).map { r in
                "(" + (1...7).map { "CAST(?\(r * 7 + $0) AS \([1, 2, 5, 7].contains($0) ? "BIGINT" : "TEXT"))" }.joined(separator: ", ") + ")"
            }
            let update = try db.statement("""
                UPDATE ledger_transactions SET price = v.column2, currency = v.column3, storefront = v.column4, trial = v.column5,
                    revocation_type = v.column6, revocation_percentage = v.column7
                FROM (VALUES \(tuples.joined(separator: ", "))) AS v WHERE ledger_transactions.id = v.column1
                """)
            var parameter: Int32 = 1
            for (id, sale) in rows {
                update.bind(parameter, id)
                for value in values(sale) {
                    update.bind(parameter + 1, value: value)
                    parameter += 1
                }
                parameter += 1
            }
            try update.run()
        }
        try db.execute(db.dialect == .sqlite ? DDL.sqliteAppendOnly(table) : DDL.postgresAppendOnly(table))
    }

    /// The sale a stored "payload.signature" text signed.
    private static func sale(_ body: String, row: Int64) throws(GateKitError) -> TransactionVersion.Sale {
        let segment = Array(body.utf8.prefix { $0 != UInt8(ascii: ".") })
        guard let payload = Base64.decode(segment, alphabet: .url) else {
            throw GateKitError(.ECORRUPT, "ledger transaction \(row): its stored payload is not base64url")
        }
        do {
            return TransactionVersion.Sale(try JWSTransaction(json: try JSONParser.parse(payload)).fields)
        } catch {
            throw GateKitError(.ECORRUPT, "ledger transaction \(row): its stored payload is not a transaction (\(error.message))")
        }
    }
}
