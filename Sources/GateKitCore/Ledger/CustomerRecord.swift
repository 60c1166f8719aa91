/// Everything the ledger holds about one customer (every signed version of each of their
/// transactions and renewal infos), and the answers computed from it. Pure: no store, no clock.
public struct CustomerRecord: Sendable {
    public var transactions: [TransactionVersion]
    public var renewals: [RenewalVersion]
    /// Product id → subscription group id, for versions that do not say (receipt purchases).
    public var productGroups: [String: String]
    /// Set when the record is an app account token's (lowercased): an original transaction
    /// counts only while the newest of its versions that carries a token carries this one, so
    /// an account transfer (Apple re-signing with another token) leaves the old account.
    public var token: String?
    /// Where the store answers payments apart (Stripe): what each payment paid for, and the
    /// payments taken back (a refund, a chargeback).
    public var payments: [PaymentLink]
    public var revocations: [PaymentRevocation]

    public init(transactions: [TransactionVersion] = [], renewals: [RenewalVersion] = [], productGroups: [String: String] = [:],
                token: String? = nil, payments: [PaymentLink] = [], revocations: [PaymentRevocation] = []) {
        self.transactions = transactions
        self.renewals = renewals
        self.productGroups = productGroups
        self.token = token
        self.payments = payments
        self.revocations = revocations
    }

    /// The same record reduced to what `current(knownBy: nil)` reads: the newest version of each
    /// transaction (with the group an older version gave it), the newest token-carrying version
    /// of each original transaction, and the newest version of each renewal info. What
    /// ingestion keeps between the items of a batch.
    public func compacted() -> CustomerRecord {
        var newest: [String: TransactionVersion] = [:]
        var groups: [String: String] = [:]
        var tokened: [String: TransactionVersion] = [:]
        for t in transactions {
            if let g = t.groupID { groups[t.transactionID] = g }
            if t.appAccountToken != nil, tokened[t.purchaseID].map({ t.isNewer(than: $0) }) ?? true { tokened[t.purchaseID] = t }
            let key = t.versionKey
            if newest[key].map({ t.isNewer(than: $0) }) ?? true { newest[key] = t }
        }
        var kept = newest.values.map { (t: TransactionVersion) -> TransactionVersion in
            var t = t
            if t.groupID == nil { t.groupID = groups[t.transactionID] }
            return t
        }
        for t in tokened.values where newest[t.versionKey]?.identity != t.identity || newest[t.versionKey]?.vouchedMs != t.vouchedMs {
            kept.append(t)
        }
        // A Play purchase's revocation is kept though newer answers do not repeat it (`current`).
        var revoked: [String: TransactionVersion] = [:]
        for t in transactions where t.store.rules.revocationsStay && t.revocationMs != nil {
            if revoked[t.versionKey].map({ (t.revocationMs ?? .max) < ($0.revocationMs ?? .max) }) ?? true { revoked[t.versionKey] = t }
        }
        for t in revoked.values where newest[t.versionKey]?.identity != t.identity || newest[t.versionKey]?.vouchedMs != t.vouchedMs {
            kept.append(t)
        }
        var renewal: [String: RenewalVersion] = [:]
        for r in renewals where renewal[r.purchaseID].map({ r.isNewer(than: $0) }) ?? true { renewal[r.purchaseID] = r }
        return CustomerRecord(transactions: kept, renewals: Array(renewal.values), productGroups: productGroups, token: token,
                              payments: PaymentLink.known(payments, by: nil), revocations: PaymentRevocation.newest(revocations, knownBy: nil))
    }

    /// What the ledger says at `at` (Unix ms) from the versions Apple had signed by `knownBy`
    /// (nil: every version): per transaction and per subscription the newest such version.
    public func view(at: Int64, knownBy: Int64?, catalog: ProductCatalog = .empty) -> LedgerView {
        LedgerView(at: at, current: current(knownBy: knownBy), catalog: catalog)
    }

    /// The same view of one subscription alone: its own answers (a record read for it also
    /// holds the subscriptions that replaced it, which only decide whether it was superseded).
    package func view(of original: String, at: Int64, knownBy: Int64?, catalog: ProductCatalog = .empty) -> LedgerView {
        LedgerView(at: at, current: current(knownBy: knownBy).only(original), catalog: catalog)
    }

    /// The newest version of each transaction and renewal info signed by `knownBy`, and the
    /// subscriptions they make: everything but the instant, so it can be kept and reused.
    public func current(knownBy: Int64?) -> CurrentVersions {
        var current: [String: TransactionVersion] = [:]
        var revokedAt: [String: TransactionVersion] = [:]
        var groups: [String: String] = [:]
        // Per original transaction id, the newest version (signed by `knownBy`) that carries a
        // token: the token the subscription belongs to (a receipt purchase carries none).
        var tokens: [String: TransactionVersion] = [:]
        for t in transactions {
            // Groups never change between versions: a version that lacks one (a receipt
            // purchase) takes it from any other.
            if let g = t.groupID { groups[t.transactionID] = g }
            if let knownBy, t.vouchedMs > knownBy { continue }
            if t.appAccountToken != nil, tokens[t.purchaseID].map({ t.isNewer(than: $0) }) ?? true {
                tokens[t.purchaseID] = t
            }
            let key = t.versionKey
            if t.store.rules.revocationsStay, let r = t.revocationMs, revokedAt[key].map({ r < $0.revocationMs ?? .max }) ?? true { revokedAt[key] = t }
            if let seen = current[key], !t.isNewer(than: seen) { continue }
            current[key] = t
        }
        // Google never takes a void back, and its later answers do not repeat it (an answer
        // reads EXPIRED): a Play purchase known revoked stays revoked from that instant.
        // A Play purchase's state is the token's, not an item's: an item the newest answer no
        // longer carries (a deferred plan change's placeholder) reads the state Google gave last.
        var tokenStates: [String: TransactionVersion] = [:]
        for t in current.values where t.store.rules.statesAreThePurchases && t.storeState != nil {
            if tokenStates[t.purchaseID].map({ t.isNewer(than: $0) }) ?? true { tokenStates[t.purchaseID] = t }
        }
        for (key, t) in current where t.store.rules.statesAreThePurchases {
            guard let newest = tokenStates[t.purchaseID], newest.isNewer(than: t), newest.identity != t.identity else { continue }
            if newest.vouchedMs > t.vouchedMs { current[key]?.storeState = newest.storeState }
            // Not in the newest answer: taken off the purchase by then.
            if t.store.rules.answersListEveryItem { current[key]?.expiresMs = min(t.expiresMs ?? newest.vouchedMs, newest.vouchedMs) }
        }
        for (key, r) in revokedAt where current[key]?.revocationMs == nil {
            current[key]?.revocationMs = r.revocationMs
            current[key]?.revocationReason = r.revocationReason
            current[key]?.sale.refund = r.sale.refund
        }
        // A payment taken back revokes, from its instant, the versions whose access it paid for.
        if !revocations.isEmpty {
            let known = PaymentAnswers(links: payments, revocations: revocations).known(by: knownBy)
            PaymentRevocation.revoke(&current.values, links: known.links, revocations: known.revocations)
        }
        // A subscription another one replaced (a Play token chain: plan change, re-signup,
        // top-up) is superseded while a replacing version is the newest known: never counted twice.
        let replaced = CustomerRecord.replacedTokens(current.values.filter { $0.store.rules.purchasesReplaceOthers })
        if !replaced.isEmpty {
            for (id, t) in current where t.store.rules.purchasesReplaceOthers && replaced.contains(Array(t.purchaseID.utf8)) {
                current[id]?.isUpgraded = true
            }
        }
        if let token {
            current = current.filter { tokens[$0.value.purchaseID]?.appAccountToken == token }
        }
        var renewal: [String: RenewalVersion] = [:]
        for r in renewals {
            if let knownBy, r.vouchedMs > knownBy { continue }
            if let token, tokens[r.purchaseID]?.appAccountToken != token { continue }
            if let seen = renewal[r.purchaseID], !r.isNewer(than: seen) { continue }
            renewal[r.purchaseID] = r
        }
        // Sorted, so every answer and every list comes out in one order whatever the arrival order.
        let resolved = current.values.map { (t: TransactionVersion) -> TransactionVersion in
            var t = t
            if t.groupID == nil { t.groupID = groups[t.transactionID] ?? productGroups[t.productID] }
            t.appAccountToken = tokens[t.purchaseID]?.appAccountToken
            return t
        }.sorted { ($0.purchaseID, $0.transactionID) < ($1.purchaseID, $1.transactionID) }
        return CurrentVersions(transactions: resolved, renewals: renewal)
    }

    /// The tokens (as bytes) that another token of `versions` replaced. A link that closes a
    /// cycle (a token naming itself, two naming each other) is not Google's chain but a loop
    /// no purchase can make: it supersedes nothing, so each token answers as its own answer says.
    static func replacedTokens(_ versions: [TransactionVersion]) -> Set<[UInt8]> {
        var links: [String: Set<String>] = [:]
        for t in versions { if let r = t.replaces { links[t.purchaseID, default: []].insert(r) } }
        guard !links.isEmpty else { return [] }
        func reaches(_ start: String, _ goal: String) -> Bool {
            var seen: Set<String> = [start]
            var next = [start]
            while let token = next.popLast() {
                if token == goal { return true }
                for r in links[token] ?? [] where seen.insert(r).inserted { next.append(r) }
            }
            return false
        }
        var replaced = Set<[UInt8]>()
        for (replacing, olds) in links {
            for old in olds where !reaches(old, replacing) { replaced.insert(Array(old.utf8)) }
        }
        return replaced
    }
}
