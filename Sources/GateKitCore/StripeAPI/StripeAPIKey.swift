import GateKitSupport

/// A Stripe secret key (`sk_live_…`, `sk_test_…`) or restricted key (`rk_…`), given as its
/// contents or as a file read once as the Play key is (TrustedFile, owner-only: it is a
/// secret). The key is never put in an error, a log or an answer: errors say what is wrong
/// with it, not what it is. Its mode (live or test) says which of Stripe's worlds it reads:
/// test and live objects never see each other (stripe.md §1).
public struct StripeAPIKey: Sendable {
    let secret: String
    /// A test-mode key (`sk_test_`, `rk_test_`): its answers carry `livemode: false`.
    public let isTest: Bool

    /// Keys are about 110 bytes; a file of a key and a newline is far under this.
    public static let maximumLength = 4096

    /// The key the host named: its file or its contents, exactly one.
    public static func named(file: String?, contents: String?) throws(GateKitError) -> StripeAPIKey {
        switch (file, contents) {
        case (_?, _?): throw .invalid("api_key_file and api_key are both set: give the key one way")
        case (nil, nil): throw .invalid("no Stripe API key: set api_key_file (a file holding the secret or restricted key) or api_key")
        case let (nil, key?): return try StripeAPIKey(key, from: "api_key")
        case let (path?, nil):
            // A key where its path belongs would be quoted by every file error: refused unquoted.
            if StripeAPIKey.looksLikeKey(path) {
                throw .invalid("api_key_file holds what looks like a key, not the path of a file (pass the key as api_key); not quoted here")
            }
            let bytes = try TrustedFile.read(path, limit: maximumLength, what: "api_key_file", secret: true)
            return try StripeAPIKey(String(decoding: bytes, as: UTF8.self), from: "the file api_key_file names")
        }
    }

    private static func looksLikeKey(_ text: String) -> Bool {
        ["sk_", "rk_", "pk_", "whsec_"].contains { text.hasPrefix($0) } && !text.contains("/")
    }

    /// `text` with one trailing newline (a file's) taken off.
    init(_ text: String, from source: String) throws(GateKitError) {
        var key = Substring(text)
        while let last = key.last, last == "\n" || last == "\r" { key = key.dropLast() }
        if key.hasPrefix("pk_") { throw .invalid("\(source) is a publishable key (pk_…): reading purchases takes a secret (sk_…) or restricted (rk_…) key") }
        if key.hasPrefix("whsec_") { throw .invalid("\(source) is a webhook signing secret (whsec_…), not an API key: it goes to stripe_verify_webhook") }
        let prefixes = [("sk_live_", false), ("sk_test_", true), ("rk_live_", false), ("rk_test_", true)]
        guard let (prefix, test) = prefixes.first(where: { key.hasPrefix($0.0) }) else {
            throw .invalid("\(source) is not a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_live_…, rk_test_…)")
        }
        let rest = key.dropFirst(prefix.count)
        guard (8...240).contains(rest.utf8.count), rest.utf8.allSatisfy({ $0 < 0x80 && (isalnumASCII($0) || $0 == UInt8(ascii: "_")) }) else {
            throw .invalid("\(source) is not a Stripe key: after \(prefix) come 8 to 240 letters and digits")
        }
        secret = String(key)
        isTest = test
    }
}

private func isalnumASCII(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
}
