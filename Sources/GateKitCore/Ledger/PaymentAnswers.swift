/// One purchase's payment answers where its store answers payments apart (Stripe): what each
/// payment paid for and each answer that one was taken back, as the metrics read them beside
/// the purchase's versions.
struct PaymentAnswers: Sendable {
    var links: [PaymentLink] = []
    var revocations: [PaymentRevocation] = []

    var isEmpty: Bool { links.isEmpty && revocations.isEmpty }

    /// Those answered on or before the UTC day `day` (the roll-up's steps).
    func signed(throughDay day: Int64) -> PaymentAnswers {
        PaymentAnswers(links: links.filter { DayRollup.day($0.vouchedMs) <= day },
                       revocations: revocations.filter { DayRollup.day($0.vouchedMs) <= day })
    }

    /// When each was answered (Unix ms).
    var answeredMs: [Int64] { links.map(\.vouchedMs) + revocations.map(\.vouchedMs) }

    /// Those known by `knownBy` (Unix ms; nil: all): each link as first answered, each
    /// revocation's newest answer.
    func known(by knownBy: Int64?) -> (links: [PaymentLink], revocations: [PaymentRevocation]) {
        (PaymentLink.known(links, by: knownBy), PaymentRevocation.newest(revocations, knownBy: knownBy))
    }

    /// The same with the item that brought each row: the roll-up counts a purchase as its items made it known.
    struct Itemized: Sendable {
        var links: [(PaymentLink, Int64)] = []
        var revocations: [(PaymentRevocation, Int64)] = []

        /// What the items up to `item` brought.
        func through(item: Int64) -> PaymentAnswers {
            PaymentAnswers(links: links.filter { $0.1 <= item }.map(\.0), revocations: revocations.filter { $0.1 <= item }.map(\.0))
        }
    }
}
