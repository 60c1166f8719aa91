import CGateKitHeader
import Glibc
import GateKitReceipts
import GateKitSupport
import GateKitTrust

/// What a `gatekit_receipt *` points at: the validated receipt plus C strings made on first
/// access (most hosts read a few fields; building all of them would cost more than validating).
final class ReceiptHandle {
    let validated: ValidatedReceipt
    private let lock = Lock()
    private var strings: [Int: UnsafeMutablePointer<CChar>] = [:]
    private var bytes: [Int: UnsafeMutablePointer<UInt8>] = [:]
    private var replayIdentity: ReplayIdentity?

    init(_ validated: ValidatedReceipt) { self.validated = validated }

    /// The replay identity, digested once per receipt (receipt_identity and receipt_to_json
    /// both need it).
    func identity() throws(GateKitError) -> ReplayIdentity {
        if let known = lock.withLock({ replayIdentity }) { return known }
        let computed = try validated.identity()
        lock.withLock { replayIdentity = computed }
        return computed
    }

    deinit {
        for p in strings.values { free(p) }
        for p in bytes.values { p.deallocate() }
    }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) throws(GateKitError) -> ReceiptHandle {
        guard let p else { throw .invalid("receipt is NULL") }
        return Unmanaged<ReceiptHandle>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    static func peek(_ p: OpaquePointer?) -> ReceiptHandle? {
        guard let p else { return nil }
        return Unmanaged<ReceiptHandle>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// A C string owned by the handle for `key` (receipt attributes: type; purchases: a key
    /// combining index and field), made once.
    func cString(_ key: Int, _ make: () -> String?) -> UnsafePointer<CChar>? {
        lock.withLock {
            if let p = strings[key] { return UnsafePointer(p) }
            guard let s = make(), let p = strdup(s) else { return nil }
            strings[key] = p
            return UnsafePointer(p)
        }
    }

    /// Stable storage for byte accessors (the array lives as long as the handle).
    func stableBytes(_ key: Int, _ value: [UInt8]) -> UnsafePointer<UInt8> {
        lock.withLock {
            if let p = bytes[key] { return UnsafePointer(p) }
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, value.count))
            p.initialize(repeating: 0, count: max(1, value.count))
            for (i, b) in value.enumerated() { p[i] = b }
            bytes[key] = p
            return UnsafePointer(p)
        }
    }
}

/// Bytes of `gatekit_receipt_options` per version.
private let receiptOptionsSizes = [MemoryLayout<gatekit_receipt_options>.size]

func receiptOptions(_ p: UnsafePointer<gatekit_receipt_options>?) throws(GateKitError) -> ReceiptValidationOptions {
    let o = try Arguments.versioned(p, sizes: receiptOptionsSizes, zero: gatekit_receipt_options(), initializer: "receipt_options_init")
    var result = ReceiptValidationOptions(bundleID: try Arguments.string(o.bundle_id, "options->bundle_id"))
    result.appVersion = try Arguments.optionalString(o.app_version, "options->app_version")
    if o.device_id != nil || o.device_id_len != 0 {
        // Checked before reading: the caller's buffer is only as long as a valid id.
        guard ReceiptValidationOptions.deviceIDLengths.contains(o.device_id_len) else {
            throw .invalid("options->device_id_len must be 16 (UUID) or 6 (MAC address), not \(o.device_id_len)")
        }
        result.deviceID = Array(try Arguments.buffer(UnsafeRawPointer(o.device_id), o.device_id_len, "options->device_id"))
    }
    if o.verify_time != 0 { result.verifyTime = Int64(o.verify_time) }
    let known = GATEKIT_RECEIPT_REQUIRE_SHA256 | GATEKIT_RECEIPT_PRODUCTION_ONLY | GATEKIT_RECEIPT_SANDBOX_ONLY
    guard o.flags & ~known == 0 else { throw .invalid("options->flags has unknown bits 0x\(String(o.flags & ~known, radix: 16))") }
    result.requireSHA256 = o.flags & GATEKIT_RECEIPT_REQUIRE_SHA256 != 0
    result.productionOnly = o.flags & GATEKIT_RECEIPT_PRODUCTION_ONLY != 0
    result.sandboxOnly = o.flags & GATEKIT_RECEIPT_SANDBOX_ONLY != 0
    result.testAnchorDER = try Arguments.testAnchor(o.test_anchor_der, o.test_anchor_len)
    return result
}

func receiptLength(_ len: Int) throws(GateKitError) -> Int {
    guard len >= 0 else { throw GateKitError(.ETOOLARGE, "length \(UInt(bitPattern: len)) is beyond any receipt") }
    return len
}

@c(receipt_options_init)
public func receiptOptionsInit(_ options: UnsafeMutablePointer<gatekit_receipt_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("receipt_options_init") { () throws(GateKitError) in
        try Arguments.initialiseVersioned(options, version: version, sizes: receiptOptionsSizes, "gatekit_receipt_options")
    }
}

@c(receipt_validate)
public func receiptValidate(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ data: UnsafeRawPointer?, _ len: Int,
                            _ opts: UnsafePointer<gatekit_receipt_options>?) -> Int32 {
    exportBoundary("receipt_validate") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let input = try Arguments.buffer(data, try receiptLength(len), "data")
        let validated = try ReceiptValidator.validate(input, options: try receiptOptions(opts))
        out.pointee = ReceiptHandle(validated).opaque
        return GATEKIT_OK
    }
}

@c(receipt_validate_file)
public func receiptValidateFile(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                                _ opts: UnsafePointer<gatekit_receipt_options>?) -> Int32 {
    exportBoundary("receipt_validate_file") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let o = try receiptOptions(opts)
        let bytes = try FileBytes.read(try Arguments.string(path, "path"), limit: ReceiptValidator.maximumInputSize / 3 * 4 + 4096)
        out.pointee = ReceiptHandle(try ReceiptValidator.validate(bytes, options: o)).opaque
        return GATEKIT_OK
    }
}

@c(receipt_free)
public func receiptFree(_ receipt: OpaquePointer?) {
    guard let receipt else { return }
    Unmanaged<ReceiptHandle>.fromOpaque(UnsafeRawPointer(receipt)).release()
}

@c(receipt_to_json)
public func receiptToJSON(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ receipt: OpaquePointer?) -> Int32 {
    exportBoundary("receipt_to_json") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let handle = try ReceiptHandle.from(receipt)
        out.pointee = try ReceiptJSON.write(handle.validated, identity: try handle.identity()).takeCString()
        return GATEKIT_OK
    }
}

private func moment(_ atMs: Int64) -> Int64 { atMs == 0 ? Clock.nowMilliseconds() : atMs }

@c(receipt_is_entitled)
public func receiptIsEntitled(_ receipt: OpaquePointer?, _ productID: UnsafePointer<CChar>?, _ atMs: Int64) -> Int32 {
    exportBoundary("receipt_is_entitled") { () throws(GateKitError) in
        let handle = try ReceiptHandle.from(receipt)
        let product = try Arguments.string(productID, "product_id")
        return ReceiptEntitlements.isEntitled(handle.validated.receipt, productID: product, at: moment(atMs)) ? 1 : 0
    }
}

@c(receipt_active_products)
public func receiptActiveProducts(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ receipt: OpaquePointer?, _ atMs: Int64) -> Int32 {
    exportBoundary("receipt_active_products") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let handle = try ReceiptHandle.from(receipt)
        let ids = ReceiptEntitlements.activeProducts(handle.validated.receipt, at: moment(atMs))
        out.pointee = try Owned.cString(JSONDocument.list("products", ids.map(JSONValue.string)))
        return Int32(clamping: ids.count)
    }
}

@c(receipt_string)
public func receiptString(_ receipt: OpaquePointer?, _ attribute: Int32) -> UnsafePointer<CChar>? {
    // Receipt attributes are 0…99; purchase strings use keys from 1,000,000 up.
    guard let handle = ReceiptHandle.peek(receipt), let known = ReceiptAttribute(rawValue: Int64(attribute)) else { return nil }
    return handle.cString(Int(attribute)) { handle.validated.receipt.string(known) }
}

/// The attribute or purchase field a C caller named, or nil (the accessors then say so).
private func receiptAttribute(_ raw: Int32) -> ReceiptAttribute? { ReceiptAttribute(rawValue: Int64(raw)) }
private func purchaseField(_ raw: Int32) -> PurchaseField? { PurchaseField(rawValue: Int64(raw)) }

/// Handle-owned C strings of purchase fields: keys from 1,000,000 up (receipt attributes are 0…99).
private func purchaseKey(_ index: Int, _ field: PurchaseField) -> Int {
    1_000_000 &+ index &* 100 &+ Int(field.rawValue - 1700)
}

private func optionalOut(_ out: UnsafeMutablePointer<Int64>?, _ value: Int64??, _ what: String) throws(GateKitError) -> Int32 {
    let out = try Arguments.out(out)
    out.pointee = 0
    guard let value else { throw .invalid("\(what) is not a field of this kind") }
    guard let v = value else { return 0 }
    out.pointee = v
    return 1
}

@c(receipt_integer)
public func receiptInteger(_ out: UnsafeMutablePointer<Int64>?, _ receipt: OpaquePointer?, _ attribute: Int32) -> Int32 {
    exportBoundary("receipt_integer") { () throws(GateKitError) in
        let r = try ReceiptHandle.from(receipt).validated.receipt
        return try optionalOut(out, receiptAttribute(attribute).flatMap { r.integer($0) }, "receipt attribute \(attribute)")
    }
}

@c(receipt_date_ms)
public func receiptDateMs(_ out: UnsafeMutablePointer<Int64>?, _ receipt: OpaquePointer?, _ attribute: Int32) -> Int32 {
    exportBoundary("receipt_date_ms") { () throws(GateKitError) in
        let r = try ReceiptHandle.from(receipt).validated.receipt
        let date = receiptAttribute(attribute).flatMap { r.date($0) }.map { $0?.milliseconds }
        return try optionalOut(out, date, "receipt attribute \(attribute)")
    }
}

@c(receipt_bytes)
public func receiptBytes(_ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLen: UnsafeMutablePointer<Int>?,
                         _ receipt: OpaquePointer?, _ attribute: Int32) -> Int32 {
    exportBoundary("receipt_bytes") { () throws(GateKitError) in
        let handle = try ReceiptHandle.from(receipt)
        let out = try Arguments.out(out)
        let outLen = try Arguments.out(outLen, "out_len")
        out.pointee = nil
        outLen.pointee = 0
        guard let value = receiptAttribute(attribute).flatMap({ handle.validated.receipt.bytes($0) }) else {
            throw .invalid("receipt attribute \(attribute) is not a bytes field (2, 4 or 5)")
        }
        guard let bytes = value else { return 0 }
        out.pointee = handle.stableBytes(Int(attribute), bytes)
        outLen.pointee = bytes.count
        return 1
    }
}

@c(receipt_is_test_signed)
public func receiptIsTestSigned(_ receipt: OpaquePointer?) -> Int32 {
    exportBoundary("receipt_is_test_signed") { () throws(GateKitError) in
        try ReceiptHandle.from(receipt).validated.isTestSigned ? 1 : 0
    }
}

@c(receipt_is_sandbox)
public func receiptIsSandbox(_ receipt: OpaquePointer?) -> Int32 {
    exportBoundary("receipt_is_sandbox") { () throws(GateKitError) in
        try ReceiptHandle.from(receipt).validated.receipt.environmentClass == .sandbox ? 1 : 0
    }
}

@c(receipt_identity)
public func receiptIdentity(_ receipt: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let handle = ReceiptHandle.peek(receipt) else { return nil }
    // Key -1: no attribute uses it.
    let hex = try? handle.identity().hex  // outside cString: it holds the handle's lock
    return handle.cString(-1) { hex }
}

@c(receipt_purchase_count)
public func receiptPurchaseCount(_ receipt: OpaquePointer?) -> Int32 {
    exportBoundary("receipt_purchase_count") { () throws(GateKitError) in
        Int32(clamping: try ReceiptHandle.from(receipt).validated.receipt.purchases.count)
    }
}

private func purchase(_ handle: ReceiptHandle, _ index: Int) throws(GateKitError) -> InAppPurchase {
    let purchases = handle.validated.receipt.purchases
    guard index >= 0, index < purchases.count else {
        throw .invalid("purchase index \(UInt(bitPattern: index)) is out of range (count \(purchases.count))")
    }
    return purchases[index]
}

@c(receipt_purchase_string)
public func receiptPurchaseString(_ receipt: OpaquePointer?, _ index: Int, _ field: Int32) -> UnsafePointer<CChar>? {
    guard let handle = ReceiptHandle.peek(receipt), index >= 0,
          index < handle.validated.receipt.purchases.count, let known = purchaseField(field) else { return nil }
    return handle.cString(purchaseKey(index, known)) { handle.validated.receipt.purchases[index].string(known) }
}

@c(receipt_purchase_integer)
public func receiptPurchaseInteger(_ out: UnsafeMutablePointer<Int64>?, _ receipt: OpaquePointer?, _ index: Int, _ field: Int32) -> Int32 {
    exportBoundary("receipt_purchase_integer") { () throws(GateKitError) in
        let p = try purchase(try ReceiptHandle.from(receipt), index)
        return try optionalOut(out, purchaseField(field).flatMap { p.integer($0) }, "purchase field \(field)")
    }
}

@c(receipt_purchase_date_ms)
public func receiptPurchaseDateMs(_ out: UnsafeMutablePointer<Int64>?, _ receipt: OpaquePointer?, _ index: Int, _ field: Int32) -> Int32 {
    exportBoundary("receipt_purchase_date_ms") { () throws(GateKitError) in
        let p = try purchase(try ReceiptHandle.from(receipt), index)
        return try optionalOut(out, purchaseField(field).flatMap { p.date($0) }.map { $0?.milliseconds }, "purchase field \(field)")
    }
}

/// Bytes of `gatekit_purchase` per version.
private let purchaseSizes = [MemoryLayout<gatekit_purchase>.size]

@c(receipt_purchase)
public func receiptPurchase(_ out: UnsafeMutablePointer<gatekit_purchase>?, _ receipt: OpaquePointer?, _ index: Int) -> Int32 {
    exportBoundary("receipt_purchase") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        let outBytes = try Arguments.outputBytes(out, sizes: purchaseSizes, constant: "GATEKIT_PURCHASE_VERSION")
        let handle = try ReceiptHandle.from(receipt)
        let p = try purchase(handle, index)
        var s = gatekit_purchase()
        var present: UInt32 = 0
        func mark(_ field: PurchaseField, _ has: Bool) { if has { present |= field.presenceBit } }
        s.quantity = p.quantity ?? 0; mark(.quantity, p.quantity != nil)
        s.product_type = p.productType ?? 0; mark(.productType, p.productType != nil)
        s.web_order_line_item_id = p.webOrderLineItemID ?? 0; mark(.webOrderLineItemID, p.webOrderLineItemID != nil)
        s.purchase_date_ms = p.purchaseDate?.milliseconds ?? 0; mark(.purchaseDate, p.purchaseDate != nil)
        s.original_purchase_date_ms = p.originalPurchaseDate?.milliseconds ?? 0; mark(.originalPurchaseDate, p.originalPurchaseDate != nil)
        s.expires_date_ms = p.expiresDate?.milliseconds ?? 0; mark(.expiresDate, p.expiresDate != nil)
        s.cancellation_date_ms = p.cancellationDate?.milliseconds ?? 0; mark(.cancellationDate, p.cancellationDate != nil)
        s.is_trial_period = p.isTrialPeriod == true ? 1 : 0; mark(.isTrialPeriod, p.isTrialPeriod != nil)
        s.is_in_intro_offer_period = p.isInIntroOfferPeriod == true ? 1 : 0; mark(.isInIntroOfferPeriod, p.isInIntroOfferPeriod != nil)
        // The handle's C string, made from the payload only the first time it is asked for.
        func text(_ field: PurchaseField) -> UnsafePointer<CChar>? {
            let c = handle.cString(purchaseKey(index, field)) { p.string(field) }
            mark(field, c != nil)
            return c
        }
        s.product_id = text(.productID)
        s.transaction_id = text(.transactionID)
        s.original_transaction_id = text(.originalTransactionID)
        s.promotional_offer_id = text(.promotionalOfferID)
        s.version = UnsafeRawPointer(out).loadUnaligned(as: UInt32.self)
        s.present = present
        Arguments.fill(out, with: s, bytes: outBytes)
        return GATEKIT_OK
    }
}

@c(receipt_inspect)
public func receiptInspect(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ data: UnsafeRawPointer?, _ len: Int) -> Int32 {
    exportBoundary("receipt_inspect") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let input = try Arguments.buffer(data, try receiptLength(len), "data")
        out.pointee = try Owned.cString(ReceiptJSON.inspection(Array(input)))
        return GATEKIT_OK
    }
}

@c(receipt_apple_status)
public func receiptAppleStatus(_ code: Int32) -> Int32 {
    ReceiptValidator.appleStatus(for: code)
}

@c(receipt_intro_eligible)
public func receiptIntroEligible(_ receipt: OpaquePointer?, _ productIDs: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> Int32 {
    exportBoundary("receipt_intro_eligible") { () throws(GateKitError) in
        let handle = try ReceiptHandle.from(receipt)
        guard count >= 0, count <= 65536 else { throw .invalid("count is \(UInt(bitPattern: count)); at most 65536 product ids") }
        guard productIDs != nil || count == 0 else { throw .invalid("product_ids is NULL but count is \(count)") }
        var group = Set<String>()
        for i in 0..<count {
            group.insert(try Arguments.string(productIDs?[i], "product_ids[\(i)]"))
        }
        return ReceiptEntitlements.isEligibleForIntroductoryOffer(handle.validated.receipt, groupProducts: group) ? 1 : 0
    }
}

// Apple's ReceiptUtility: ids from receipts, without validation (for the App Store Server API).
@c(receipt_transaction_id)
public func receiptTransactionID(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ data: UnsafeRawPointer?, _ len: Int) -> Int32 {
    exportBoundary("receipt_transaction_id") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_transaction_id")
        out.pointee = nil
        guard let id = try ReceiptUtility.transactionID(appReceipt: try Arguments.buffer(data, try receiptLength(len), "data")) else { return 0 }
        out.pointee = try Owned.cString(id)
        return 1
    }
}

@c(receipt_legacy_transaction_id)
public func receiptLegacyTransactionID(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ text: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("receipt_legacy_transaction_id") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_transaction_id")
        out.pointee = nil
        guard let text else { throw .invalid("transaction_receipt is NULL") }
        let limit = ReceiptUtility.maximumTransactionReceiptLength
        let n = strnlen(text, limit + 1)
        guard n <= limit else { throw GateKitError(.ETOOLARGE, "transaction_receipt is longer than \(limit) bytes") }
        guard let id = try ReceiptUtility.transactionID(transactionReceipt: Array(UnsafeRawBufferPointer(start: text, count: n))) else { return 0 }
        out.pointee = try Owned.cString(id)
        return 1
    }
}
