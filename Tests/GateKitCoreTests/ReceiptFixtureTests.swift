import Testing
@testable import GateKitReceipts
@testable import GateKitSupport

/// Every fixture receipt against the independently parsed facts in expected/receipts.json.
@Suite struct ReceiptFixtureTests {
    struct Fixture {
        let name: String
        let facts: JSONValue
        let bytes: [UInt8]
        var isXcode: Bool { facts["environment"]?.stringValue == "Xcode" }
    }

    static func fixtures() -> [Fixture] {
        guard let json = FixtureFiles.read("expected/receipts.json"),
              let root = try? JSONParser.parse(json), case let .object(members)? = root["receipts"] else { return [] }
        return members.compactMap { name, facts in
            guard let file = facts["file"]?.stringValue, let bytes = FixtureFiles.read(file) else { return nil }
            return Fixture(name: name, facts: facts, bytes: bytes)
        }
    }

    static var storeKitCertificate: [UInt8]? { FixtureFiles.read("certs/StoreKitTestCertificate.cer") }

    func options(_ f: Fixture) -> ReceiptValidationOptions {
        var o = ReceiptValidationOptions(bundleID: f.facts["bundle_id"]?.stringValue ?? "")
        if f.isXcode { o.testAnchorDER = Self.storeKitCertificate }
        return o
    }

    @Test func everyFixtureValidatesAtCreationDateWithItsFacts() throws {
        let all = Self.fixtures()
        guard all.count == 21 else { return FixtureFiles.skipNote("receipts (found \(all.count) of 21)") }
        for f in all {
            let v = try ReceiptValidator.validate(f.bytes, options: options(f))
            let r = v.receipt
            let attributes = f.facts["attributes"]
            #expect(r.environment == f.facts["environment"]?.stringValue, "\(f.name)")
            #expect(r.bundleID == f.facts["bundle_id"]?.stringValue, "\(f.name)")
            #expect(r.appVersion == f.facts["app_version"]?.stringValue, "\(f.name)")
            #expect(r.originalAppVersion == f.facts["original_app_version"]?.stringValue, "\(f.name)")
            #expect(r.creationDate?.text == f.facts["creation_date"]?.stringValue, "\(f.name)")
            #expect(r.expirationDate?.text == f.facts["expiration_date"]?.stringValue, "\(f.name)")
            #expect(r.opaqueValue.map { Base64.encode($0) } == f.facts["opaque_b64"]?.stringValue, "\(f.name)")
            #expect(r.sha1Hash.map { Base64.encode($0) } == f.facts["sha1_hash_b64"]?.stringValue, "\(f.name)")
            #expect(r.appItemID == attributes?["1"]?.int64Value, "\(f.name)")
            #expect(r.downloadID == attributes?["15"]?.int64Value, "\(f.name)")
            #expect(r.versionExternalIdentifier == attributes?["16"]?.int64Value, "\(f.name)")
            #expect(r.ageRating == nonEmpty(attributes?["10"]?.stringValue), "\(f.name)")
            #expect(r.originalPurchaseDate?.text == nonEmpty(attributes?["18"]?.stringValue), "\(f.name)")
            #expect(v.isTestSigned == f.isXcode, "\(f.name)")
            #expect(v.digest == (f.facts["digest"]?.stringValue == "sha256" ? .sha256 : .sha1), "\(f.name)")
            guard case let .array(purchases)? = f.facts["in_app"] else { Issue.record("no in_app for \(f.name)"); continue }
            #expect(r.purchases.count == purchases.count, "\(f.name)")
            for (p, e) in zip(r.purchases, purchases) {
                #expect(p.quantity == e["1701"]?.int64Value)
                #expect(p.productID == nonEmpty(e["1702"]?.stringValue))
                #expect(p.transactionID == nonEmpty(e["1703"]?.stringValue))
                #expect(p.purchaseDate?.text == nonEmpty(e["1704"]?.stringValue))
                #expect(p.originalTransactionID == nonEmpty(e["1705"]?.stringValue))
                #expect(p.originalPurchaseDate?.text == nonEmpty(e["1706"]?.stringValue))
                #expect(p.productType == e["1707"]?.int64Value)
                #expect(p.expiresDate?.text == nonEmpty(e["1708"]?.stringValue))
                #expect(p.webOrderLineItemID == e["1711"]?.int64Value)
                #expect(p.cancellationDate?.text == nonEmpty(e["1712"]?.stringValue))
                #expect(p.isTrialPeriod == e["1713"]?.int64Value.map { $0 == 1 })
                #expect(p.isInIntroOfferPeriod == e["1719"]?.int64Value.map { $0 == 1 })
                #expect(p.promotionalOfferID == nonEmpty(e["1721"]?.stringValue))
                if let text = p.purchaseDate?.text { #expect(p.purchaseDate?.milliseconds == Timestamp.parseRFC3339(text.utf8)) }
            }
        }
    }

    func nonEmpty(_ s: String?) -> String? { s?.isEmpty == true ? nil : s }

    /// Apple receipts: every leaf has expired. (The StoreKit test certificate is valid until 2040,
    /// so Xcode receipts still verify today under purpose ANY; receipts.json's
    /// verifies_at_now=false for them reflects OpenSSL's default S/MIME purpose check.)
    @Test func everyAppleFixtureIsRejectedAtTodaysDate() throws {
        let all = Self.fixtures()
        guard !all.isEmpty else { return FixtureFiles.skipNote("receipts") }
        for f in all where !f.isXcode {
            var o = options(f)
            o.verifyTime = Clock.nowMilliseconds() / 1000
            do {
                _ = try ReceiptValidator.validate(f.bytes, options: o)
                Issue.record("\(f.name) accepted at now")
            } catch {
                #expect(error.code == .ERECEIPT_CERT_TIME, "\(f.name): \(error)")
            }
        }
    }

    @Test func xcodeReceiptsNeedTheExplicitTestAnchor() throws {
        for f in Self.fixtures() where f.isXcode {
            var o = options(f)
            o.testAnchorDER = nil
            do {
                _ = try ReceiptValidator.validate(f.bytes, options: o)
                Issue.record("\(f.name) accepted without a test anchor")
            } catch { #expect(error.code == .ERECEIPT_XCODE) }
            // The test anchor never turns a receipt into a production one.
            o.testAnchorDER = Self.storeKitCertificate
            o.productionOnly = true
            do {
                _ = try ReceiptValidator.validate(f.bytes, options: o)
                Issue.record("\(f.name) accepted as production")
            } catch { #expect(error.code == .ERECEIPT_XCODE) }
        }
    }

    @Test func deviceHashPairs() throws {
        for f in Self.fixtures() {
            guard let hex = f.facts["device_id_hex"]?.stringValue, let id = Hex.decode(hex) else { continue }
            var o = options(f)
            o.deviceID = id
            if f.facts["device_hash_matches"]?.boolValue == true {
                _ = try ReceiptValidator.validate(f.bytes, options: o)
            }
            o.deviceID = [UInt8](repeating: 0, count: id.count)
            do {
                _ = try ReceiptValidator.validate(f.bytes, options: o)
                Issue.record("zero device id accepted for \(f.name)")
            } catch { #expect(error.code == .ERECEIPT_DEVICE_HASH) }
        }
    }

    @Test func base64InputIsDetected() throws {
        guard let f = Self.fixtures().first(where: { $0.name == "tp__receipt-sandbox-g5" }) else { return FixtureFiles.skipNote("receipts") }
        var text = Array(Base64.encode(f.bytes).utf8)
        text.insert(0x0A, at: 76)
        let v = try ReceiptValidator.validate(text, options: options(f))
        #expect(v.receipt.purchases.count == 2)
    }

    @Test func everyTruncationFailsCleanly() throws {
        guard let f = Self.fixtures().first(where: { $0.name == "tp__receipt-xcode" }) else { return FixtureFiles.skipNote("receipts") }
        for n in 0..<f.bytes.count {
            #expect(throws: GateKitError.self) { try ReceiptValidator.validate(Array(f.bytes[0..<n]), options: options(f)) }
        }
    }
}
