import Dispatch
import Testing
@testable import GateKitCrypto
@testable import GateKitStripeAPI
@testable import GateKitSupport

/// Stripe's webhook signatures (docs/stripe.md, "Webhook verification"): HMAC-SHA256 checked
/// against published vectors, then deliveries signed as Stripe signs them, and every forgery
/// refused with its reason.
@Suite struct StripeWebhookTests {
    static let secret = "whsec_test_secret"
    static let now: Int64 = 1_700_000_000
    static let event = #"{"id":"evt_1","object":"event","api_version":"2026-06-24.dahlia","created":1699999990,"livemode":false,"type":"customer.subscription.updated","data":{"object":{"id":"sub_1","object":"subscription","status":"active"}}}"#

    static func signature(_ body: String, secret: String = secret, at t: Int64 = now) throws -> String {
        Hex.encode(try Self.mac(HMACKey(sha256: Array(secret.utf8)), Array("\(t).".utf8), Array(body.utf8)))
    }

    static func mac(_ key: HMACKey, _ prefix: [UInt8], _ message: [UInt8]) throws -> [UInt8] {
        try message.withUnsafeBytes { m in try key.authenticate(prefix, m) }
    }

    static func verify(_ body: String, _ header: String, secrets: [String] = [secret], tolerance: Int = 300,
                       now: Int64 = now) throws(GateKitError) -> StripeEvent {
        try StripeWebhookVerifier(secrets: secrets, toleranceSeconds: tolerance).verify(body: Array(body.utf8), signatureHeader: header, nowSeconds: now)
    }

    static func refusal(_ body: String, _ header: String, secrets: [String] = [secret], now: Int64 = now) -> GateKitError? {
        do { _ = try verify(body, header, secrets: secrets, now: now); return nil } catch { return error }
    }

    @Test func hmacMatchesPublishedVectors() throws {
        // RFC 4231, test case 2.
        #expect(Hex.encode(try Self.mac(HMACKey(sha256: Array("Jefe".utf8)), [], Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // docs/stripe.md's vector, computed with Python's hmac: the key is the whole secret, whsec_ included.
        #expect(try Self.signature(#"{"id":"evt_test","object":"event"}"#)
                == "8042376f6ca064adbe037642a718227dfd59047137eb49497a54c49eb0cfb724")
        // Parts are one message.
        let key = try HMACKey(sha256: Array("k".utf8))
        #expect(try Self.mac(key, Array("ab".utf8), Array("c".utf8)) == Self.mac(key, [], Array("abc".utf8)))
        // A key's contexts are reused: each message after the first, on threads at once, is
        // authenticated afresh under the same key (RFC 4231, test case 2, every time).
        let jefe = try HMACKey(sha256: Array("Jefe".utf8))
        let macs = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let message = i % 2 == 0 ? Array("what do ya want for nothing?".utf8) : Array("something else".utf8)
            if let mac = try? Self.mac(jefe, [], message), i % 2 == 0 { macs.withLock { $0.append(Hex.encode(mac)) } }
        }
        #expect(macs.withLock { $0 } == Array(repeating: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", count: 32))
    }

    @Test func aDeliverySignedAsStripeSignsIsItsEvent() throws {
        let event = try Self.verify(Self.event, "t=\(Self.now),v1=\(try Self.signature(Self.event))")
        #expect(event.id == "evt_1" && event.type == "customer.subscription.updated" && !event.livemode && event.created == 1_699_999_990)
        #expect(event.objectID == "sub_1" && event.objectType == "subscription" && event.apiVersion == "2026-06-24.dahlia")
        #expect(event.signedAt == Self.now && event.secretIndex == 0)
        #expect(event.json.contains(#""object":{"id":"sub_1","object":"subscription"}"#))
        // The doc's vector verifies too: its body is then refused as no event.
        let vector = #"{"id":"evt_test","object":"event"}"#
        #expect(Self.refusal(vector, "t=1700000000,v1=8042376f6ca064adbe037642a718227dfd59047137eb49497a54c49eb0cfb724")?.code == .ESTRIPE_EVENT)
    }

    @Test func whileASecretRollsEitherSignatureVerifies() throws {
        let old = "whsec_old", new = "whsec_new"
        let header = "t=\(Self.now),v1=\(try Self.signature(Self.event, secret: new)),v1=\(try Self.signature(Self.event, secret: old)),v0=00"
        #expect(try Self.verify(Self.event, header, secrets: [old]).secretIndex == 0)
        #expect(try Self.verify(Self.event, header, secrets: ["whsec_other", new]).secretIndex == 1)
        #expect(Self.refusal(Self.event, header, secrets: ["whsec_other"])?.code == .ESTRIPE_SIGNATURE)
    }

    @Test func everyForgeryIsRefusedWithItsReason() throws {
        let good = try Self.signature(Self.event)
        let cases: [(String, String, GateKitError.Code, String)] = [
            ("another secret", "t=\(Self.now),v1=\(try Self.signature(Self.event, secret: "whsec_other"))", .ESTRIPE_SIGNATURE, "no v1 signature"),
            ("a body changed", "t=\(Self.now),v1=\(good)", .ESTRIPE_SIGNATURE, "changed on the way"),
            ("another instant", "t=\(Self.now + 1),v1=\(good)", .ESTRIPE_SIGNATURE, "no v1"),
            ("v0 only", "t=\(Self.now),v0=\(good)", .ESTRIPE_SIGNATURE_HEADER, "only v0"),
            ("no t", "v1=\(good)", .ESTRIPE_SIGNATURE_HEADER, "no t="),
            ("t twice", "t=\(Self.now),t=1,v1=\(good)", .ESTRIPE_SIGNATURE_HEADER, "t= twice"),
            ("t not a number", "t=17e8,v1=\(good)", .ESTRIPE_SIGNATURE_HEADER, "not Unix seconds"),
            ("v1 not hex", "t=\(Self.now),v1=\(good.dropLast())", .ESTRIPE_SIGNATURE_HEADER, "64 hex digits"),
            ("an empty header", "", .ESTRIPE_SIGNATURE_HEADER, "empty"),
            ("no pairs", "garbage", .ESTRIPE_SIGNATURE_HEADER, "key=value"),
        ]
        for (what, header, code, reason) in cases {
            let body = what == "a body changed" ? Self.event.replacing(#""status":"active""#, with: #""status":"activf""#) : Self.event
            let error = Self.refusal(body, header)
            #expect(error?.code == code && error?.message.contains(reason) == true, "\(what): \(String(describing: error))")
        }
        // Stale and future, to the second: the tolerance holds in both directions.
        let header = "t=\(Self.now),v1=\(good)"
        #expect(Self.refusal(Self.event, header, now: Self.now + 300) == nil)
        #expect(Self.refusal(Self.event, header, now: Self.now - 300) == nil)
        #expect(Self.refusal(Self.event, header, now: Self.now + 301)?.code == .ESTRIPE_TIMESTAMP)
        #expect(Self.refusal(Self.event, header, now: Self.now - 301)?.message.contains("ahead of this host's clock") == true)
    }

    @Test func aBodyThatIsNoSnapshotEventIsRefused() throws {
        for (body, reason) in [(#"{"id":"evt_1","object":"v2.core.event","type":"v1.billing.meter.error_report_triggered"}"#, "thin event"),
                               ("not json", "not JSON"), (#"{"object":"event","id":"evt_1"}"#, "no type"),
                               (#"{"object":"customer","id":"cus_1"}"#, "not an event")] {
            let error = Self.refusal(body, "t=\(Self.now),v1=\(try Self.signature(body))")
            #expect(error?.code == .ESTRIPE_EVENT && error?.message.contains(reason) == true, "\(body): \(String(describing: error))")
        }
    }

    @Test func aSecretThatIsNotAWebhookSecretIsRefusedUnsaid() {
        for bad in ["sk_test_51Habc", "", "whsec_", "whsec_\u{1}x"] {
            do {
                _ = try StripeWebhookVerifier(secrets: [bad])
                Issue.record("\(bad) accepted")
            } catch {
                #expect(error.code == .EINVAL && (bad.utf8.count < 7 || !error.message.contains(bad)))  // never the secret
            }
        }
        #expect(throws: GateKitError.self) { try StripeWebhookVerifier(secrets: []) }
        #expect(throws: GateKitError.self) { try StripeWebhookVerifier(secrets: [Self.secret], toleranceSeconds: 0) }
    }

    /// The reader that skims a verified body (`StripeEventReader`) finds what a whole parse finds,
    /// in random events whose skipped members hold escaped quotes, backslash runs, nested arrays
    /// and objects; and every proper prefix of an event is refused.
    @Test func theSkimmingReaderAgreesWithAWholeParse() throws {
        var rng = SplitMix(seed: 62)
        func junk(_ depth: Int) -> JSONValue {
            switch rng.next(depth > 3 ? 3 : 6) {
            case 0:
                let alphabet = Array("ab\\\"{}[],: é✓\n")
                return .string(String((0..<rng.next(40)).map { _ in alphabet[rng.next(alphabet.count)] }))
            case 1: return .number(String(rng.next(2_000_000) - 1_000_000))
            case 2: return rng.next(2) == 0 ? .bool(true) : .null
            case 3: return .array((0..<rng.next(4)).map { _ in junk(depth + 1) })
            default: return .object((0..<rng.next(4)).map { i in ("k\(i)", junk(depth + 1)) })
            }
        }
        for n in 0..<300 {
            var top: [(String, JSONValue)] = [("object", .string("event")), ("id", .string("evt_\"\(n)\\")), ("type", .string("invoice.paid")),
                                              ("livemode", .bool(n % 2 == 0)), ("created", .number(String(1_700_000_000 + n))),
                                              ("api_version", n % 3 == 0 ? .null : .string("2026-06-24.dahlia")),
                                              ("data", .object([("previous", junk(0)), ("object", .object([("lines", junk(0)), ("id", .string("in_\(n)")),
                                                                                                          ("object", .string("invoice")), ("more", junk(0))]))]))]
            for _ in 0..<rng.next(4) { top.insert(("extra\(rng.next(1000))", junk(0)), at: rng.next(top.count + 1)) }
            let body = Array(JSONWriter.serialize(.object(top)).utf8)
            let event = try body.withUnsafeBytes { b in Result { () throws(GateKitError) in try StripeEvent(json: b) } }.get()
            #expect(event.id == "evt_\"\(n)\\" && event.objectID == "in_\(n)" && event.livemode == (n % 2 == 0)
                    && event.apiVersion == (n % 3 == 0 ? nil : "2026-06-24.dahlia") && event.created == Int64(1_700_000_000 + n))
            if n < 20 {
                for cut in stride(from: 0, to: body.count, by: max(1, body.count / 50)) {
                    let prefix = Array(body[..<cut])
                    #expect(throws: GateKitError.self) { try prefix.withUnsafeBytes { b in Result { () throws(GateKitError) in try StripeEvent(json: b) } }.get() }
                }
            }
        }
    }
}

