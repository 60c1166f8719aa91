import Glibc

/// The receipt container (PKCS#7 SignedData, DER/BER, raw or base64 text) and its payload:
/// any bytes parse or fail with a code; a parsed receipt's every accessor, the entitlement
/// questions at extreme instants and its JSON forms never trap.
@Sendable func fuzzReceiptContainer(_ bytes: UnsafeRawBufferPointer) {
    guard let der = try? ReceiptInput.decode(bytes) else { return }
    der.withUnsafeBytes { raw in
        guard let container = try? ReceiptValidator.parseContainer(raw) else { return }
        if let receipt = try? ReceiptValidator.parsePayload(container) { exercise(receipt) }
    }
    _ = try? ReceiptJSON.inspection(Array(bytes))
}

/// The payload parser alone (the receipt attribute SET inside the container), seeded with
/// payloads extracted from real receipts: mutations reach the attribute decoding directly.
/// Property: the verifyReceipt document of any payload that parses is valid JSON (strings come
/// straight from the payload, dates of any year are rendered in place).
@Sendable func fuzzReceiptPayload(_ bytes: UnsafeRawBufferPointer) {
    let payload = Array(bytes)
    guard let receipt = try? ReceiptPayload.parse(payload) else { return }
    exercise(receipt)
    let validated = ValidatedReceipt(receipt: receipt, isTestSigned: false, digest: .sha256, verificationTime: 0,
                                     validatedAt: 0, signedPayload: payload)
    guard let json = try? ReceiptJSON.write(validated).bytes() else { return }
    if (try? JSONParser.parse(json)) == nil { fuzzFail("receipt JSON of a parsed payload does not parse: \(String(decoding: json.prefix(200), as: UTF8.self))") }
}

/// The full receipt_validate path: decoding, container, payload, chain, signature, options.
/// The expected bundle id is the receipt's own (when it parses), so inputs that keep a valid
/// signature travel through every later check. $GATEKIT_FUZZ_RECEIPT_ANCHOR names a DER test
/// anchor (the generated test root of Tests/c/receipt_forgeries.sh) for Xcode-style receipts.
@Sendable func fuzzReceiptValidate(_ bytes: UnsafeRawBufferPointer) {
    var options = ReceiptValidationOptions(bundleID: "com.example.fuzz")
    if let der = try? ReceiptInput.decode(bytes) {
        der.withUnsafeBytes { raw in
            if let c = try? ReceiptValidator.parseContainer(raw), let r = try? ReceiptValidator.parsePayload(c),
               let id = r.bundleID, !id.isEmpty {
                options.bundleID = id
            }
        }
    }
    let flags = bytes.count > 0 ? bytes[bytes.count - 1] : 0
    options.requireSHA256 = flags & 1 != 0
    options.testAnchorDER = flags & 2 != 0 ? FuzzFixtures.receiptAnchor : nil
    if flags & 4 != 0 { options.deviceID = [UInt8](repeating: flags, count: 16) }
    guard let validated = try? ReceiptValidator.validate(bytes, options: options) else { return }
    exercise(validated.receipt)
    _ = try? ReceiptJSON.verifyReceiptBody(validated)
}

func exercise(_ receipt: Receipt) {
    for a in ReceiptAttribute.allCases { _ = receipt.string(a); _ = receipt.integer(a); _ = receipt.date(a); _ = receipt.bytes(a) }
    for p in receipt.purchases {
        for field in PurchaseField.allCases { _ = p.string(field); _ = p.integer(field); _ = p.date(field) }
        for at in [Int64.min, -1, 0, 1_600_000_000_000, Int64.max] { _ = ReceiptEntitlements.covers(p, at: at) }
    }
    for at in [Int64.min, 0, Int64.max] {
        _ = ReceiptEntitlements.activeProducts(receipt, at: at)
        _ = ReceiptEntitlements.isEntitled(receipt, productID: receipt.purchases.first?.productID ?? "x", at: at)
    }
    _ = ReceiptJSON.environmentName(receipt)
}

/// Test anchors named by the environment, read once.
enum FuzzFixtures {
    static let receiptAnchor: [UInt8]? = file(env: "GATEKIT_FUZZ_RECEIPT_ANCHOR")
    static let jwsAnchor: [UInt8]? = file(env: "GATEKIT_FUZZ_JWS_ANCHOR")

    static func file(env: String) -> [UInt8]? {
        guard let p = getenv(env) else { return nil }
        return StoreFileScratch.read(String(cString: p)).flatMap { $0.isEmpty ? nil : $0 }
    }
}
