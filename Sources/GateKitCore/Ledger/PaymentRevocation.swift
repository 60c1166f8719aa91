/// A store's answer that a payment was taken back — a refund, a chargeback — where the store
/// answers it apart from the purchase (Stripe's charges and disputes): it revokes what the
/// payment paid for (`PaymentLink`). Versions of one revocation (one source) replace each other
/// as a purchase's do, the newest answered wins: a dispute answered won after it was answered
/// open revokes nothing from that answer on.
public struct PaymentRevocation: Sendable, Equatable {
    /// The payment taken back (a payment intent, a charge).
    public var payment: String
    /// The store's object that says it (a charge, a dispute).
    public var sourceID: String
    /// From when access is revoked; nil: it is not (a partial refund, a dispute won).
    public var revocationMs: Int64?
    public var reason: RevocationReason?
    public var refund: RefundKind?
    /// Money given back without taking access back (a partial refund): counted in the metrics'
    /// refunds unless the payment is taken back whole, which counts its price instead.
    public var moneyBack: MoneyBack?
    /// When the store answered.
    public var vouchedMs: Int64
    /// The replay identity of the answer it came in (breaks ties as a version's does).
    public var identity: String

    public struct MoneyBack: Sendable, Equatable {
        /// When it was given back (Unix ms).
        public let atMs: Int64
        public let milliunits: Int64
        /// ISO 4217, upper case.
        public let currency: String

        public init(atMs: Int64, milliunits: Int64, currency: String) {
            self.atMs = atMs
            self.milliunits = milliunits
            self.currency = currency
        }
    }

    public init(payment: String, sourceID: String, revocationMs: Int64?, reason: RevocationReason?, refund: RefundKind?,
                vouchedMs: Int64, identity: String, moneyBack: MoneyBack? = nil) {
        self.payment = payment
        self.sourceID = sourceID
        self.revocationMs = revocationMs
        self.reason = reason
        self.refund = refund
        self.moneyBack = moneyBack
        self.vouchedMs = vouchedMs
        self.identity = identity
    }

    func isNewer(than other: PaymentRevocation) -> Bool {
        vouchedMs != other.vouchedMs ? vouchedMs > other.vouchedMs : identity > other.identity
    }

    /// What answers of one revocation share: its source and the payment (a charge is known by
    /// its payment intent and by its own id).
    var key: String { sourceID + "\u{0}" + payment }

    /// The newest answer of each revocation known by `knownBy` (nil: all).
    static func newest(_ revocations: [PaymentRevocation], knownBy: Int64?) -> [PaymentRevocation] {
        var newest: [String: PaymentRevocation] = [:]
        for r in revocations {
            if let knownBy, r.vouchedMs > knownBy { continue }
            if newest[r.key].map({ r.isNewer(than: $0) }) ?? true { newest[r.key] = r }
        }
        return newest.values.sorted { $0.key < $1.key }
    }

    /// Revokes, from each revocation's instant, the versions among `versions` whose access its
    /// payment paid for (`PaymentLink.paidFor`), unless revoked sooner: what answers and the
    /// metrics read alike. `links` and `revocations` as known by the instant asked.
    static func revoke<Versions: MutableCollection>(_ versions: inout Versions, links: [PaymentLink], revocations: [PaymentRevocation])
    where Versions.Element == TransactionVersion {
        for r in revocations {
            guard let revoked = r.revocationMs else { continue }
            for link in links where link.payment == r.payment {
                for i in versions.indices where link.paidFor(versions[i]) && revoked < (versions[i].revocationMs ?? .max) {
                    versions[i].revocationMs = revoked
                    versions[i].revocationReason = r.reason
                    versions[i].sale.refund = r.refund
                }
            }
        }
    }
}
