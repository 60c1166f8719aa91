import GateKitStore
import GateKitSupport

/// The customer tokens (app account tokens) in the roll-up: each subscription's tokens with the
/// first instant one of its versions carried it, and each token two subscriptions carried, from
/// the instant the second one did. A question then finds the tokens shared by its instant —
/// whose subscriptions it counts exactly, as customers of several — in the few shared rows,
/// instead of grouping every transaction of the environment.
enum RollupTokens {
    /// (token, subscription) → the first instant a version of it carried the token (tokens
    /// compared lower-cased, as the metrics do).
    struct Firsts {
        private(set) var firsts: [Pair: Int64] = [:]

        var tokens: Set<String> { Set(firsts.keys.map(\.token)) }

        struct Pair: Hashable {
            let token: String
            let original: String
        }

        mutating func add(original: String, _ versions: [TransactionVersion]) {
            for v in versions {
                guard let token = v.appAccountToken?.lowercased() else { continue }
                let pair = Pair(token: token, original: original)
                firsts[pair] = min(firsts[pair] ?? .max, v.vouchedMs)
            }
        }
    }

    /// Records these subscriptions' tokens (recomputed from all their rows: the rows only grow,
    /// so a first instant only moves earlier) and when each of their tokens became shared.
    static func record(_ db: any DatabaseConnection, scope: LedgerScope, _ found: Firsts) throws(GateKitError) {
        guard !found.firsts.isEmpty else { return }
        let env = RowInserts.Value.text(scope.environment), test = RowInserts.Value.integer(scope.testFlag)
        var rows = RowInserts(into: "ledger_metric_tokens(environment, test_signed, token, original_transaction_id, first_signed_ms)",
                              values: ["?", "?", "?", "?", "?"], then: """
            ON CONFLICT (environment, test_signed, token, original_transaction_id) DO UPDATE SET first_signed_ms = excluded.first_signed_ms
            """)
        for (pair, first) in found.firsts { try rows.append([env, test, .text(pair.token), .text(pair.original), .integer(first)]) }
        try rows.flush(db)
        // Shared from the second subscription's first instant, looked up token by token (a
        // correlated lookup by key: as one IN list grouped, PostgreSQL read every token per
        // statement, most of a million-transaction build).
        try Ledger.inChunks(db, scope: scope, found.tokens.sorted(), of: Ledger.rollupChunk, { parameters in """
            INSERT INTO ledger_metric_shared(environment, test_signed, token, shared_from_ms)
            SELECT ?1, ?2, token, second FROM (
                SELECT v.column1 AS token,
                    (SELECT o.first_signed_ms FROM ledger_metric_tokens o WHERE o.environment = ?1 AND o.test_signed = ?2 AND o.token = v.column1
                     ORDER BY o.first_signed_ms LIMIT 1 OFFSET 1) AS second
                FROM (VALUES \(parameters.map { "(\($0))" }.joined(separator: ", "))) AS v) AS found
            WHERE second IS NOT NULL
            ON CONFLICT (environment, test_signed, token) DO UPDATE SET shared_from_ms = excluded.shared_from_ms
            """ }) { _ in }
    }

    /// Tokens per statement in a lookup by an IN list of tokens: few enough that PostgreSQL
    /// probes the key for each instead of reading every token (with 500 it read all of
    /// ledger_metric_tokens once per statement; BENCHMARKS.md, "Ledger metrics, the common case").
    static let lookupChunk = 50

    /// Every subscription that carried one of `tokens`.
    static func holders(_ db: any DatabaseConnection, scope: LedgerScope, of tokens: [String]) throws(GateKitError) -> Set<String> {
        var out = Set<String>()
        try Ledger.inChunks(db, scope: scope, tokens, of: lookupChunk, {
            "SELECT original_transaction_id FROM ledger_metric_tokens WHERE environment = ?1 AND test_signed = ?2 AND token IN (\($0.joined(separator: ", ")))"
        }) { out.insert($0) }
        return out
    }

    /// The tokens shared as of `asOf` and every subscription that carried one: from the roll-up
    /// (`rolledUp`), and for the subscriptions with items newer than it (`newer`), from their rows.
    static func shared(_ db: any DatabaseConnection, scope: LedgerScope, asOf: Int64,
                       newer: [String]) throws(GateKitError) -> (tokens: Set<String>, originals: Set<String>, rolledUp: Set<String>) {
        var tokens = Set<String>()
        // The few shared tokens first, then their holders by key (a join may scan every token).
        let s = try db.statement("SELECT token FROM ledger_metric_shared WHERE environment = ?1 AND test_signed = ?2 AND shared_from_ms <= ?3")
        defer { s.reset() }
        s.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, asOf)
        while try s.step() { if let token = s.text(0) { tokens.insert(token) } }
        var originals = try holders(db, scope: scope, of: tokens.sorted())
        let rolledUp = originals
        guard !newer.isEmpty else { return (tokens, originals, rolledUp) }
        // A token a newer item brought may be shared only since: asked of the rows.
        let carried = try db.statement("""
            SELECT DISTINCT lower(app_account_token) FROM ledger_transactions
            WHERE environment = ?1 AND test_signed = ?2 AND original_transaction_id = ?3 AND app_account_token IS NOT NULL AND signed_ms <= ?4
            """)
        defer { carried.reset() }
        var candidates = Set<String>()
        for original in newer {
            carried.reset()
            carried.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original).bind(4, asOf)
            while try carried.step() { if let token = carried.text(0) { candidates.insert(token) } }
        }
        let holders = try db.statement("""
            SELECT DISTINCT original_transaction_id FROM ledger_transactions \(db.dialect == .sqlite ? "INDEXED BY ledger_transactions_by_token" : "")
            WHERE environment = ?1 AND test_signed = ?2 AND app_account_token IN (?3, ?4) AND app_account_token IS NOT NULL
                AND signed_ms <= ?5
            """)
        defer { holders.reset() }
        for token in candidates.subtracting(tokens).sorted() {
            holders.reset()
            holders.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: token).bind(4, text: token.uppercased()).bind(5, asOf)
            var count = 0
            while try holders.step() { count += 1 }
            guard count > 1 else { continue }
            tokens.insert(token)
            originals.formUnion(try LedgerRows.tokenOriginals(db, token: token, scope: scope))
        }
        return (tokens, originals, rolledUp)
    }
}
