import GateKitSupport

/// Decodes the signed payload: `SET OF ReceiptAttribute{type INTEGER, version INTEGER, value OCTET STRING}`,
/// with in-app purchases (type 17) as nested sets of 1701+ attributes. Known attributes must have
/// their documented inner ASN.1 type and appear once; unknown ones are skipped; empty strings
/// mean absent. Every attribute is checked (strings are valid UTF-8, dates valid RFC 3339), but a
/// purchase's strings stay spans of the payload until asked for. Written as plain loops over
/// borrowed bytes: a 187-purchase receipt has ~4,000 attributes, so per-attribute allocations
/// and closures would dominate validation time.
enum ReceiptPayload {
    /// Every failure is of kind `.payload`: the bytes were inside a SignedData.
    static func parse(_ payload: [UInt8]) throws(ReceiptParseError) -> Receipt {
        do {
            return try payload.withUnsafeBytes { raw in
                Result { () throws(ReceiptParseError) in try decode(BERReader(raw), payload: payload) }
            }.get()
        } catch {
            throw error.inPayload()
        }
    }

    /// The content of an attribute's OCTET STRING.
    private struct Value {
        let start: Int
        let end: Int
        var count: Int { end - start }
    }

    /// Four words, returned in registers: a larger result went through memory, and reading it
    /// back stalled on store forwarding once per attribute.
    private struct Attribute {
        let type: Int64
        let value: Value
        /// End of the whole attribute (after its end-of-contents octets when indefinite).
        let end: Int
    }

    /// Reads the ReceiptAttribute SEQUENCE at `cursor` (which must end by `limit`).
    @inline(__always)
    private static func attribute(_ r: BERReader, at cursor: Int, limit: Int, depth: Int) throws(ReceiptParseError) -> Attribute {
        if let canonical = canonicalAttribute(r, at: cursor, limit: limit) { return canonical }
        return try anyAttribute(r, try r.element(at: cursor, limit: limit, depth: depth), depth: depth)
    }

    /// The shape every App Store receipt uses, read in one pass without building an element per
    /// field: `30 L {02 n type} {02 n version} {04 L value}`, type of 1…8 octets and non-negative,
    /// lengths of at most two octets. Nil for any other shape: `anyAttribute` then decides, so
    /// both accept and refuse the same bytes.
    @inline(__always)
    private static func canonicalAttribute(_ r: BERReader, at cursor: Int, limit: Int) -> Attribute? {
        guard cursor + 1 < limit, r.byte(cursor) == 0x30, let sequence = definiteLength(r, at: cursor + 1, limit: limit),
              sequence.count <= limit - sequence.start else { return nil }
        let end = sequence.start + sequence.count
        var i = sequence.start
        guard i + 2 < end, r.byte(i) == 0x02 else { return nil }
        let typeCount = Int(r.byte(i + 1))
        guard typeCount >= 1, typeCount <= 8, typeCount < end - i - 2, r.byte(i + 2) & 0x80 == 0 else { return nil }
        var type: Int64 = 0
        for k in (i + 2)..<(i + 2 + typeCount) { type = type << 8 | Int64(r.byte(k)) }
        i += 2 + typeCount
        guard i + 2 < end, r.byte(i) == 0x02 else { return nil }
        let versionCount = Int(r.byte(i + 1))
        guard versionCount < 0x80, versionCount < end - i - 2 else { return nil }
        i += 2 + versionCount
        guard i + 1 < end, r.byte(i) == 0x04, let value = definiteLength(r, at: i + 1, limit: end),
              value.count == end - value.start else { return nil }
        return Attribute(type: type, value: Value(start: value.start, end: end), end: end)
    }

    /// A definite length of at most two octets at `i`: where the content starts and its size.
    @inline(__always)
    private static func definiteLength(_ r: BERReader, at i: Int, limit: Int) -> (start: Int, count: Int)? {
        guard i < limit else { return nil }
        let first = r.byte(i)
        if first < 0x80 { return (i + 1, Int(first)) }
        if first == 0x81, i + 1 < limit { return (i + 2, Int(r.byte(i + 1))) }
        if first == 0x82, i + 2 < limit { return (i + 3, Int(r.byte(i + 1)) << 8 | Int(r.byte(i + 2))) }
        return nil
    }

    /// Any BER form of a ReceiptAttribute (indefinite or long lengths, padded integers), with the
    /// reason when it is not one.
    @inline(never)
    private static func anyAttribute(_ r: BERReader, _ element: BERElement, depth: Int) throws(ReceiptParseError) -> Attribute {
        guard element.isSequence else { throw ReceiptParseError("attribute at offset \(element.start) is not a SEQUENCE") }
        let typeElement = try r.element(at: element.contentStart, limit: element.contentEnd, depth: depth + 1)
        guard typeElement.isInteger, let type = r.int64(typeElement) else {
            throw ReceiptParseError("attribute at offset \(element.start) has no valid type INTEGER")
        }
        let version = try r.element(at: typeElement.end, limit: element.contentEnd, depth: depth + 1)
        guard version.isInteger else { throw ReceiptParseError("attribute \(type) has no version INTEGER") }
        let octets = try r.element(at: version.end, limit: element.contentEnd, depth: depth + 1)
        guard octets.isPrimitiveOctetString else { throw ReceiptParseError("attribute \(type) value is not a primitive OCTET STRING") }
        guard octets.end == element.contentEnd else { throw ReceiptParseError("attribute \(type) has extra fields") }
        return Attribute(type: type, value: Value(start: octets.contentStart, end: octets.contentEnd), end: element.end)
    }

    private static func decode(_ r: BERReader, payload: [UInt8]) throws(ReceiptParseError) -> Receipt {
        var receipt = Receipt()
        receipt.purchases = InAppPurchases(payload: payload)
        let count = r.bytes.count
        guard count > 0 else { throw ReceiptParseError("the payload is empty") }
        let set = try r.element(at: 0, limit: count)
        guard set.isSet else { throw ReceiptParseError("the payload is not a SET of attributes") }
        guard set.end == count else { throw ReceiptParseError("\(count - set.end) bytes of trailing garbage after the payload SET") }
        var seen: UInt32 = 0
        var cursor = set.contentStart
        while cursor < set.contentEnd {
            let a = try attribute(r, at: cursor, limit: set.contentEnd, depth: 1)
            cursor = a.end
            receipt.attributeCount += 1
            let type = a.type, value = a.value
            guard let known = ReceiptAttribute(rawValue: type) else { continue }  // unknown: kept in the count only
            if known == .inAppPurchase {
                receipt.purchases.append(try purchase(r, value))
                continue
            }
            let bit = UInt32(1) << UInt32(type)
            guard seen & bit == 0 else { throw ReceiptParseError("attribute \(type) appears twice") }
            seen |= bit
            switch known {
            case .environment: receipt.environment = try string(r, value, type)
            case .appItemID: receipt.appItemID = try integer(r, value, type)
            case .bundleID:
                receipt.bundleIDData = Array(r.content(from: value.start, to: value.end))
                receipt.bundleID = try string(r, value, type)
            case .appVersion: receipt.appVersion = try string(r, value, type)
            case .opaqueValue: receipt.opaqueValue = Array(r.content(from: value.start, to: value.end))
            case .sha1Hash: receipt.sha1Hash = Array(r.content(from: value.start, to: value.end))
            case .ageRating: receipt.ageRating = try string(r, value, type)
            case .creationDate: receipt.creationDate = try date(r, value, type)
            case .downloadID: receipt.downloadID = try integer(r, value, type)
            case .versionExternalIdentifier: receipt.versionExternalIdentifier = try integer(r, value, type)
            case .originalPurchaseDate: receipt.originalPurchaseDate = try date(r, value, type)
            case .originalAppVersion: receipt.originalAppVersion = try string(r, value, type)
            case .expirationDate: receipt.expirationDate = try date(r, value, type)
            case .inAppPurchase: break
            }
        }
        return receipt
    }

    private static func purchase(_ r: BERReader, _ value: Value) throws(ReceiptParseError) -> PurchaseRecord {
        let set = try inner(r, value, ReceiptAttribute.inAppPurchase.rawValue)
        guard set.isSet else { throw ReceiptParseError("in-app purchase (17) is not a SET") }
        var p = PurchaseRecord()
        var seen: UInt32 = 0
        var cursor = set.contentStart
        while cursor < set.contentEnd {
            let a = try attribute(r, at: cursor, limit: set.contentEnd, depth: 4)
            cursor = a.end
            let type = a.type, v = a.value
            guard let field = PurchaseField(rawValue: type) else { continue }
            guard seen & field.presenceBit == 0 else { throw ReceiptParseError("in-app attribute \(type) appears twice") }
            seen |= field.presenceBit
            switch field {
            case .quantity: p.quantity = try integer(r, v, type)
            case .productID: p.productID = try text(r, v, type)
            case .transactionID: p.transactionID = try text(r, v, type)
            case .purchaseDate: p.purchaseDate = try payloadDate(r, v, type)
            case .originalTransactionID: p.originalTransactionID = try text(r, v, type)
            case .originalPurchaseDate: p.originalPurchaseDate = try payloadDate(r, v, type)
            case .productType: p.productType = try integer(r, v, type)
            case .expiresDate: p.expiresDate = try payloadDate(r, v, type)
            case .webOrderLineItemID: p.webOrderLineItemID = try integer(r, v, type)
            case .cancellationDate: p.cancellationDate = try payloadDate(r, v, type)
            case .isTrialPeriod: p.isTrialPeriod = try boolean(r, v, type)
            case .isInIntroOfferPeriod: p.isInIntroOfferPeriod = try boolean(r, v, type)
            case .promotionalOfferID: p.promotionalOfferID = try text(r, v, type)
            }
        }
        return p
    }

    /// The single DER element inside an attribute's OCTET STRING value.
    @inline(__always)
    private static func inner(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> BERElement {
        let e = try r.element(at: value.start, limit: value.end, depth: 6)
        guard e.end == value.end else { throw ReceiptParseError("attribute \(type) value has trailing bytes") }
        return e
    }

    /// The string's bytes (UTF8String, PrintableString or IA5String); nil when empty or absent.
    /// Inline for a short definite length filling the value; `anyStringBytes` otherwise.
    @inline(__always)
    private static func stringBytes(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> UnsafeRawBufferPointer? {
        let count = value.count - 2, start = value.start
        if count >= 1, count < 0x80, Int(r.byte(start + 1)) == count {
            let tag = r.byte(start)
            if tag == 0x0C || tag == 0x13 || tag == 0x16 { return r.content(from: start + 2, to: value.end) }
        }
        return try anyStringBytes(r, value, type)
    }

    @inline(never)
    private static func anyStringBytes(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> UnsafeRawBufferPointer? {
        guard value.count > 0 else { return nil }
        let e = try inner(r, value, type)
        guard e.tagClass == BERElement.universal, !e.constructed,
              e.tagNumber == ASN1Tag.utf8String || e.tagNumber == ASN1Tag.printableString || e.tagNumber == ASN1Tag.ia5String else {
            throw ReceiptParseError("attribute \(type) is not a string (tag \(e.tagNumber))")
        }
        guard e.contentCount > 0 else { return nil }
        return r.content(e)
    }

    private static func string(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> String? {
        guard let bytes = try utf8(r, value, type) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string attribute as a span of the payload, checked like `string`.
    private static func text(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> PayloadText {
        guard let bytes = try utf8(r, value, type) else { return PayloadText() }
        return span(r, bytes)
    }

    /// Where `bytes` (a part of the payload) lie in it. The payload is at most
    /// ReceiptValidator.maximumInputSize (16 MiB): offsets fit 32 bits.
    @inline(__always)
    private static func span(_ r: BERReader, _ bytes: UnsafeRawBufferPointer) -> PayloadText {
        guard let base = r.bytes.baseAddress, let start = bytes.baseAddress else { return PayloadText() }
        return PayloadText(start: UInt32(truncatingIfNeeded: base.distance(to: start)), count: UInt32(truncatingIfNeeded: bytes.count))
    }

    /// The string's bytes once checked to be UTF-8; nil when empty or absent.
    @inline(__always)
    private static func utf8(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> UnsafeRawBufferPointer? {
        guard let bytes = try stringBytes(r, value, type) else { return nil }
        // ASCII (product and transaction ids, versions) needs no validation beyond the byte check.
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw ReceiptParseError("attribute \(type) is not valid UTF-8") }
        return bytes
    }

    /// An INTEGER attribute. Inline for the DER every App Store receipt writes (`02 n`, 1…8
    /// octets, non-negative, filling the value); `anyInteger` reads every other form or refuses it.
    @inline(__always)
    private static func integer(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> Int64? {
        let count = value.count - 2, start = value.start
        if count >= 1, count <= 8, r.byte(start) == 0x02, Int(r.byte(start + 1)) == count, r.byte(start + 2) & 0x80 == 0 {
            var v: Int64 = 0
            for k in (start + 2)..<value.end { v = v << 8 | Int64(r.byte(k)) }
            return v
        }
        return try anyInteger(r, value, type)
    }

    @inline(never)
    private static func anyInteger(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> Int64? {
        guard value.count > 0 else { return nil }
        let e = try inner(r, value, type)
        guard e.isInteger else { throw ReceiptParseError("attribute \(type) is not an INTEGER") }
        guard let v = r.int64(e) else { throw ReceiptParseError("attribute \(type) INTEGER is negative or exceeds 64 bits") }
        return v
    }

    /// A purchase's date: its value, and its text's span only when not canonical.
    private static func payloadDate(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> PayloadDate? {
        guard let bytes = try stringBytes(r, value, type) else { return nil }
        guard let ms = ReceiptDateText.milliseconds(bytes) else { throw notRFC3339(bytes, type) }
        return PayloadDate(milliseconds: ms, written: ReceiptDateText.isCanonical(bytes) ? PayloadText() : span(r, bytes))
    }

    private static func date(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> ReceiptDate? {
        guard let bytes = try stringBytes(r, value, type) else { return nil }
        guard let ms = ReceiptDateText.milliseconds(bytes) else { throw notRFC3339(bytes, type) }
        if ReceiptDateText.isCanonical(bytes) { return ReceiptDate(canonicalMilliseconds: ms) }
        return ReceiptDate(text: String(decoding: bytes, as: UTF8.self), milliseconds: ms)
    }

    private static func notRFC3339(_ bytes: UnsafeRawBufferPointer, _ type: Int64) -> ReceiptParseError {
        ReceiptParseError("attribute \(type) date \(Quoted.bytes(bytes)) is not RFC 3339")
    }

    private static func boolean(_ r: BERReader, _ value: Value, _ type: Int64) throws(ReceiptParseError) -> Bool? {
        guard let v = try integer(r, value, type) else { return nil }
        guard v == 0 || v == 1 else { throw ReceiptParseError("attribute \(type) flag is \(v), expected 0 or 1") }
        return v == 1
    }
}

/// Receipt dates: App Store receipts write `YYYY-MM-DDTHH:MM:SSZ` (decoded here without
/// allocating); every other form (offsets, fractions) goes to `Timestamp.parseRFC3339`.
enum ReceiptDateText {
    /// `YYYY-MM-DDTHH:MM:SSZ` without a leap second: the text `ReceiptDate` rebuilds from the
    /// value (checked after `milliseconds` accepted the bytes).
    static func isCanonical(_ b: UnsafeRawBufferPointer) -> Bool {
        b.count == 20 && b[4] == 0x2D && b[7] == 0x2D && b[10] == 0x54 && b[13] == 0x3A && b[16] == 0x3A && b[19] == 0x5A
            && !(b[17] == 0x36 && b[18] == 0x30)
    }

    static func milliseconds(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A else {
            return Timestamp.parseRFC3339(b)
        }
        // Straight-line: ~750 dates in a 187-purchase receipt.
        var digits: UInt8 = 0
        @inline(__always) func d(_ i: Int) -> Int {
            let c = b[i] &- 0x30
            digits |= c > 9 ? 0x80 : 0
            return Int(c)
        }
        let y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3)
        let mo = d(5) * 10 + d(6), day = d(8) * 10 + d(9)
        let h = d(11) * 10 + d(12), mi = d(14) * 10 + d(15), s = d(17) * 10 + d(18)
        guard digits == 0, mo >= 1, mo <= 12, day >= 1, day <= Timestamp.daysInMonth(year: y, month: mo), h <= 23, mi <= 59, s <= 60 else {
            return nil
        }
        return (Int64(Timestamp.days(year: y, month: mo, day: day)) * 86_400 + Int64(h * 3600 + mi * 60 + s)) * 1000
    }
}
