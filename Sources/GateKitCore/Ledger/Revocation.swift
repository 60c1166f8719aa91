/// Why a purchase was revoked (refunded or taken back), in the ledger's model. The raw values
/// are the ledger's stored codes (`ledger_transactions.revocation_reason`), equal to Apple's
/// `revocationReason` numbers for the rows already held.
public enum RevocationReason: Int64, Sendable, CaseIterable, StoredCode {
    /// Any other reason (Apple's 0), or one the ledger has no name for.
    case other = 0
    /// The customer reported a problem with the app (Apple's 1).
    case appIssue = 1
}

/// How much of a sale a revocation took back. The raw values are the ledger's stored text
/// (`ledger_transactions.revocation_type`), Apple's `revocationType` names for rows already held.
public enum RefundKind: String, Sendable, CaseIterable {
    /// The whole price.
    case full = "REFUND_FULL"
    /// A share of the price (`Sale.revocationPercentage`).
    case prorated = "REFUND_PRORATED"
    /// Not a refund: the family member lost a purchase shared with them.
    case familyRevoked = "FAMILY_REVOKE"
}
