import GateKitStore
import GateKitSupport

/// Which app account holds a subscription: it has two identifiers a host may link — its
/// original transaction id, and the app account token Apple signs it with — and it belongs to
/// one account at a time whichever was linked. The newest claim wins: a link of the original
/// transaction id dates from the link; a link of the token from the link, or from when Apple
/// first signed the subscription with that token if that is later (Apple re-signing it to
/// another token is Apple's own transfer, newer than any link made before it). A token nobody
/// links still claims it: then no account holds it.
enum SubscriptionHolder {
    /// A claim: the account (nil: nobody) and its instant.
    struct Claim: Equatable {
        let appUserID: String?
        let sinceMs: Int64
    }

    /// The winning claim's account; `direct`: the link of the original transaction id in effect,
    /// `token`: the link of its token in effect, `tokenSignedMs`: when Apple first signed the
    /// subscription with its current token (nil: no token).
    static func holder(direct: AppAccountRows.Link?, token: AppAccountRows.Link?, tokenSignedMs: Int64?) -> String? {
        let byToken = tokenSignedMs.map { Claim(appUserID: token?.appUserID, sinceMs: max(token?.sinceMs ?? .min, $0)) }
        guard let direct else { return byToken?.appUserID }
        guard let byToken, byToken.sinceMs >= direct.sinceMs else { return direct.appUserID }
        // Two links made in one millisecond: the later one (the store's order) holds it.
        if byToken.sinceMs == direct.sinceMs, let token, token.sinceMs == direct.sinceMs, token.sequence < direct.sequence {
            return direct.appUserID
        }
        return byToken.appUserID
    }

    /// When Apple first signed `original` with its newest token, among the versions signed by
    /// `knownBy` (nil: all): the start of the newest run of versions carrying that token.
    static func tokenSince(_ record: CustomerRecord, original: String, knownBy: Int64?) -> (token: String, vouchedMs: Int64)? {
        let tokened = record.transactions.filter { (t) -> Bool in
            t.purchaseID.utf8.elementsEqual(original.utf8) && t.appAccountToken != nil && (knownBy.map { t.vouchedMs <= $0 } ?? true)
        }.sorted { $1.isNewer(than: $0) }
        guard let newest = tokened.last, let token = newest.appAccountToken else { return nil }
        var since = newest.vouchedMs
        for t in tokened.reversed() {
            guard t.appAccountToken == token else { break }
            since = t.vouchedMs
        }
        return (token, since)
    }

    /// The holder of each of `originals` (in `record`) at `atMs` (nil: now), from the store's links.
    static func holders(_ db: any DatabaseConnection, environment: String, record: CustomerRecord, originals: [String],
                        atMs: Int64?) throws(GateKitError) -> [String: String?] {
        var out: [String: String?] = [:]
        for original in originals {
            let token = tokenSince(record, original: original, knownBy: atMs)
            let links = AppAccountRows.current(try AppAccountRows.changes(db, environment: environment, appUserID: nil,
                                                                          customers: [original] + (token.map { [$0.token] } ?? [])), atMs: atMs)
            let direct = links.first { $0.customer.utf8.elementsEqual(original.utf8) }
            let byToken = token.flatMap { t in links.first { $0.customer.utf8.elementsEqual(t.token.utf8) } }
            out[original] = holder(direct: direct, token: byToken, tokenSignedMs: token?.vouchedMs)
        }
        return out
    }
}
