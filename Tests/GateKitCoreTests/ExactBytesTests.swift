import Glibc
import Testing
@testable import GateKitEULA
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitReceipts

/// Identifiers compared exactly (issue 32): each case differs from the right value only in
/// case, only in the last byte, or only in Unicode normalisation, and must not pass for it.
@Suite struct ExactBytesTests {
    @Test func aReceiptsBundleIDIsComparedByteForByte() throws {
        guard let f = ReceiptFixtureTests.fixtures().first(where: { !$0.isXcode }),
              let bundle = f.facts["bundle_id"]?.stringValue else { return FixtureFiles.skipNote("receipts") }
        _ = try ReceiptValidator.validate(f.bytes, options: ReceiptValidationOptions(bundleID: bundle))
        for other in [bundle.uppercased(), String(bundle.dropLast()) + "x", bundle + "\u{0}"] where other != bundle {
            #expect(failure { try ReceiptValidator.validate(f.bytes, options: ReceiptValidationOptions(bundleID: other)) } == .ERECEIPT_BUNDLE_ID, "\(other)")
        }
        if let version = f.facts["app_version"]?.stringValue {
            var o = ReceiptValidationOptions(bundleID: bundle)
            o.appVersion = version + "0"
            #expect(failure { try ReceiptValidator.validate(f.bytes, options: o) } == .ERECEIPT_APP_VERSION)
        }
    }

    @Test func signedDataIdentifiersAreComparedByteForByte() throws {
        guard let pki = JWSTestPKI.shared else { return }
        let now = nowSeconds() * 1000
        let jws = pki.sign("{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":\(now),\"transactionId\":\"1\"}",
                           chain: ["leaf", "int", "root"])
        let anchor = pki.der("root")
        #expect(failure { try JWSVerifier.verifyTransaction(jws.utf8, options: JWSOptions.test(anchor)!) } == nil)
        for bundle in ["COM.EXAMPLE", "com.exampla", "com.example\u{0}", "com.exam\u{0301}ple"] {
            #expect(failure { try JWSVerifier.verifyTransaction(jws.utf8, options: JWSOptions.test(anchor, bundle: bundle)!) } == .EJWS_BUNDLE_ID, "\(bundle)")
        }
        let lower = pki.sign("{\"bundleId\":\"com.example\",\"environment\":\"sandbox\",\"signedDate\":\(now)}", chain: ["leaf", "int", "root"])
        #expect(failure { try JWSVerifier.verifyTransaction(lower.utf8, options: JWSOptions.test(anchor)!) } == .EJWS_ENVIRONMENT)
        // Production: the app's appAppleId to the digit.
        let prod = pki.sign("{\"bundleId\":\"com.example\",\"appAppleId\":1234,\"receiptType\":\"Production\",\"receiptCreationDate\":\(now)}",
                            chain: ["leaf", "int", "root"])
        let options = { (id: Int64) in JWSOptions.test(anchor, environment: .production, appAppleID: id, at: now / 1000) }
        #expect(failure { try JWSVerifier.verifyAppTransaction(prod.utf8, options: options(1234)!) } == nil)
        #expect(failure { try JWSVerifier.verifyAppTransaction(prod.utf8, options: options(1235)!) } == .EJWS_APP_APPLE_ID)
    }

    @Test func aProductionChainOfTheWrongLengthIsAChainLengthError() throws {
        guard let pki = JWSTestPKI.shared else { return }
        let payload = "{\"bundleId\":\"com.example\",\"appAppleId\":1,\"environment\":\"Production\",\"signedDate\":\(nowSeconds() * 1000)}"
        let options = try JWSOptions(bundleID: "com.example", appAppleID: 1, environment: .production)
        for chain in [["leaf", "int"], ["leaf", "int", "root", "root"]] {
            #expect(failure { try JWSVerifier.verifyTransaction(pki.sign(payload, chain: chain).utf8, options: options) } == .EJWS_CHAIN_LENGTH,
                    "\(chain.count) certificates")
        }
        // One certificate is the shape of StoreKit Testing in Xcode's data: test-signed.
        #expect(failure { try JWSVerifier.verifyTransaction(pki.sign(payload, chain: ["leaf"]).utf8, options: options) } == .EJWS_TEST_SIGNED)
        #expect(failure { try JWSVerifier.verifyTransaction(pki.sign(payload, chain: ["leaf", "int", "root"]).utf8, options: options) } == .EJWS_UNTRUSTED)
    }

    @Test func anEULAHashMatchesOnlyItselfToTheLastDigit() throws {
        let folder = TemporaryFolder()
        let gate = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
        let hash = try sha256Hex("terms v1")
        _ = try gate.record(.accepted, documentID: "terms", hash: hash, user: nil)
        #expect(try gate.shouldPresent(documentID: "terms", hash: hash, user: nil) == false)
        #expect(try gate.shouldPresent(documentID: "terms", hash: hash.uppercased(), user: nil) == false)  // hex, either case
        let last = hash.last == "0" ? "1" : "0"
        #expect(try gate.shouldPresent(documentID: "terms", hash: String(hash.dropLast()) + last, user: nil))
        let first = hash.first == "0" ? "1" : "0"
        #expect(try gate.shouldPresent(documentID: "terms", hash: first + String(hash.dropFirst()), user: nil))
        #expect(try gate.shouldPresent(documentID: "Terms", hash: hash, user: nil))
        #expect(try gate.shouldPresent(documentID: "terms", hash: hash, user: Array("bob".utf8)))
        #expect(failure { try gate.shouldPresent(documentID: "terms", hash: String(hash.prefix(16)), user: nil) } == .EINVAL)
        #expect(failure { try gate.markMinorRevision(documentID: "terms", from: hash, to: hash.uppercased()) } == .EINVAL)
    }

    @Test func aMinorRevisionCoversExactlyTheTextItNames() throws {
        let folder = TemporaryFolder()
        let gate = EULAGate(store: try TestStores.open(folder.file("s.sqlite")))
        let a = try sha256Hex("terms v1"), b = try sha256Hex("terms v1.1")
        let nearA = String(a.dropLast()) + (a.last == "0" ? "1" : "0")
        try gate.markMinorRevision(documentID: "terms", from: a, to: b)
        _ = try gate.record(.accepted, documentID: "terms", hash: nearA, user: nil)  // not a: a text one digit away
        #expect(try gate.shouldPresent(documentID: "terms", hash: b, user: nil))
        _ = try gate.record(.accepted, documentID: "terms", hash: a, user: nil)
        #expect(try gate.shouldPresent(documentID: "terms", hash: b, user: nil) == false)
    }

    @Test func productAndGroupIDsAreComparedExactly() {
        let month = LedgerModelTests.tx("1", product: "com.example.pro", group: "21000001", purchase: LedgerModelTests.t0,
                                        expires: LedgerModelTests.t0 + 30 * LedgerModelTests.day)
        let view = CustomerRecord(transactions: [month]).view(at: LedgerModelTests.t0 + 1, knownBy: nil)
        #expect(view.entitlement(to: "com.example.pro").isEntitled && view.entitlement(to: "21000001").isEntitled)
        for other in ["COM.EXAMPLE.PRO", "com.example.prp", "com.example.pro\u{0}", "2100000l", "21000001 "] {
            #expect(view.entitlement(to: other).reason == .noPurchase, "\(other)")
        }
    }

    @Test func ledgerCustomersAreComparedExactly() {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        #expect(LedgerCustomer(token.uppercased()) == LedgerCustomer(token))
        #expect(LedgerCustomer(String(token.dropLast()) + "9") != LedgerCustomer(token))
        #expect(LedgerCustomer("K-7007") != LedgerCustomer("\u{212A}-7007"))
        #expect(Ledger.CacheKey(scope: LedgerScope(environment: .sandbox, testData: false), customer: .purchaseID("K-7007"))
                != Ledger.CacheKey(scope: LedgerScope(environment: .sandbox, testData: false), customer: .purchaseID("\u{212A}-7007")))
    }
}
