import Glibc
import Testing
@testable import GateKitAppStoreAPI
import GateKitHTTPS
@testable import GateKitAppStoreSigning
@testable import GateKitCrypto
@testable import GateKitSupport

/// Signing keys and offer signatures, and the API client's own rules, without a server
/// (issue 32: rules that had no Swift test of their own).
@Suite struct AppStoreSigningTests {
    /// A SEC1 PEM P-256 key with exactly this private scalar and no public point.
    static func sec1(_ scalar: [UInt8]) -> [UInt8] {
        let der: [UInt8] = [0x30, 49, 0x02, 0x01, 0x01, 0x04, 32] + scalar + [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        return Array(("-----BEGIN EC PRIVATE KEY-----\n" + Base64.encode(der) + "\n-----END EC PRIVATE KEY-----\n").utf8)
    }

    static func load(_ pem: [UInt8]) -> GateKitError.Code? {
        failure { try pem.withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: "i", bundleID: "b") } }
    }

    @Test func keysWhoseScalarCannotSignAreRefused() {
        let n = ES256.p256Order
        var nPlusOne = n
        nPlusOne[31] &+= 1
        var nMinusOne = n
        nMinusOne[31] &-= 1
        #expect(Self.load(Self.sec1([UInt8](repeating: 0, count: 32))) == .EAPPSTORE_KEY)
        #expect(Self.load(Self.sec1(n)) == .EAPPSTORE_KEY)
        #expect(Self.load(Self.sec1(nPlusOne)) == .EAPPSTORE_KEY)
        #expect(Self.load(Self.sec1(nMinusOne)) == nil)  // the largest scalar that signs
        #expect(Self.load(Self.sec1([UInt8](repeating: 0, count: 31) + [1])) == nil)
    }

    @Test func anOfferFieldHoldingTheSeparatorIsRefused() throws {
        var one = [UInt8](repeating: 0, count: 31) + [7]
        let key = try Self.sec1(one).withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: nil, bundleID: "b") }
        one = []
        let nonce = "20fba8a0-2b80-4a7d-a17f-85c1854727f8"
        #expect(failure { try PromotionalOfferSignature.create(productIdentifier: "p", subscriptionOfferID: "o", applicationUsername: "u",
                                                              nonce: nonce, timestamp: 1, key: key) } == nil)
        for (p, o, u) in [("p\u{2063}x", "o", "u"), ("p", "o\u{2063}", "u"), ("p", "o", "\u{2063}u")] {
            #expect(failure { try PromotionalOfferSignature.create(productIdentifier: p, subscriptionOfferID: o, applicationUsername: u,
                                                                  nonce: nonce, timestamp: 1, key: key) } == .EINVAL)
        }
    }

    @Test func aBaseURLWithCredentialsAndWhatIsRetried() throws {
        let key = try Self.sec1([UInt8](repeating: 0, count: 31) + [9]).withUnsafeBytes { try SigningKey(pem: $0, keyID: "K", issuerID: "i", bundleID: "b") }
        var options = AppStoreServerClient.Options(environment: .sandbox)
        options.baseURL = "https://user:secret@127.0.0.1:1"
        #expect(failure { try AppStoreServerClient(key: key, options: options) } == .EINVAL)
        options.baseURL = "https://127.0.0.1:1/path@x"
        #expect(failure { try AppStoreServerClient(key: key, options: options) } == nil)  // '@' in the path is no user
        // Not every server error is retried: only 429 and Apple's retryable codes.
        let body = Array(#"{"errorCode":5000000,"errorMessage":"x"}"#.utf8)
        #expect(!APIFailure(HTTPResponse(status: 500, contentType: "application/json", retryAfter: nil, body: body)).isRetryable)
        #expect(!APIFailure(HTTPResponse(status: 503, contentType: nil, retryAfter: nil, body: [])).isRetryable)
    }
}
