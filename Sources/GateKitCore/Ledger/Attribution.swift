import GateKitStore
import GateKitSupport

/// Who vouched for a purchase by hand, and why: a person, not a store's signature or answer (a
/// support grant). A reference, so that the versions and answers of every other purchase,
/// copied often, carry one nil word.
public final class Attribution: Sendable, Equatable {
    /// Who gave it, as the host names its people ("support:jane").
    public let grantedBy: String
    /// Why, in their words.
    public let note: String?

    public static let maximumGrantedByLength = 256
    public static let maximumNoteLength = 1024

    public init(grantedBy: String, note: String?) {
        self.grantedBy = grantedBy
        self.note = note
    }

    public static func == (a: Attribution, b: Attribution) -> Bool { a.grantedBy == b.grantedBy && a.note == b.note }
}

extension Ledger {
    /// Who gave the answer's deciding purchase by hand, and why: nil unless its store's data is
    /// given rather than sold (one indexed read, for an answer's JSON only).
    public func attribution(of answer: Entitlement, scope: LedgerScope) throws(GateKitError) -> Attribution? {
        guard let store = answer.store, !store.rules.isSale, let id = answer.transactionID else { return nil }
        return try self.store.read { (db) throws(GateKitError) -> Attribution? in
            try LedgerRows.attribution(db, transactionID: id, store: store, scope: scope)
        }
    }
}
