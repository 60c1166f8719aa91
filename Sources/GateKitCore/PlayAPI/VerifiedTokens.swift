import Glibc
import GateKitSupport

/// Push tokens this verifier has verified, by their exact text, with the issuer and expiry
/// their claims gave. Pub/Sub reuses a push subscription's OIDC token (Google: tokens on push
/// requests "can be up to one hour old"), so most pushes repeat a token whose signature and
/// claims were already checked: for those the clock is checked again, and that the key that
/// signed it is still in the issuer's current key set (a key Google stopped publishing
/// stops its tokens, cached or not). The cache is the verifier's own, so the audience, email
/// and issuer it checked are the ones it requires; a token is kept at most until it expires.
final class VerifiedTokens: @unchecked Sendable {
    struct Entry {
        let issuer: String
        let expiresAt: Int64
        let kid: String
    }

    /// Pub/Sub uses one token per push subscription at a time: a few are plenty.
    static let capacity = 256

    /// A token as a dictionary key: equal by all its bytes, hashed by its signature's last 16
    /// characters (96 bits of an RS256 signature, as good as random there), so a ~1 KB token is
    /// not hashed whole on every push.
    private struct Key: Hashable {
        let token: [UInt8]
        /// One memcmp: a probe compares against every token in its path, and tokens of one
        /// issuer share their length and their first few hundred bytes.
        static func == (a: Key, b: Key) -> Bool {
            a.token.count == b.token.count && a.token.withUnsafeBytes { x in
                b.token.withUnsafeBytes { y in
                    guard let p = x.baseAddress, let q = y.baseAddress else { return true }  // both empty
                    return memcmp(p, q, x.count) == 0
                }
            }
        }

        func hash(into hasher: inout Hasher) {
            token.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.suffix(16))) }
        }
    }

    private let entries = ProcessLocal<[Key: Entry]> { [:] }

    /// The entry for `token` while it has not expired (`now` and `skew` in seconds).
    func lookup(_ token: [UInt8], now: Int64, skew: Int64) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[Key(token: token)] else { return nil }
            guard now <= entry.expiresAt &+ skew else {
                entries[Key(token: token)] = nil
                return nil
            }
            return entry
        }
    }

    func record(_ token: [UInt8], _ entry: Entry, now: Int64) {
        entries.withLock { entries in
            if entries.count >= VerifiedTokens.capacity {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries.count >= VerifiedTokens.capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[Key(token: token)] = entry
        }
    }
}
