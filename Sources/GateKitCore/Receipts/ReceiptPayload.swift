/// Decodes the signed payload: `SET OF ReceiptAttribute{type INTEGER, version INTEGER, value OCTET STRING}`,
/// with in-app purchases (type 17) as nested sets of 1701+ attributes. Known attributes must have
/// their documented inner ASN.1 type and appear once; unknown ones are skipped; empty strings
/// mean absent. Written as plain loops over borrowed bytes: a 187-purchase receipt has ~4,000
/// attributes, so per-attribute allocations and closures would dominate validation time.
enum ReceiptPayload {
    static func parse(_ payload: [UInt8]) throws(ReceiptParseError) -> Receipt {
        try payload.withUnsafeBytes { raw in Result { () throws(ReceiptParseError) in try parse(raw) } }.get()
    }

    /// Every failure is of kind `.payload`: the bytes were inside a SignedData.
    static func parse(_ raw: UnsafeRawBufferPointer) throws(ReceiptParseError) -> Receipt {
        do {
            return try decode(BERReader(raw))
        } catch {
            throw error.inPayload()
        }
    }

    private struct Attribute {
        let type: Int64
        let value: BERElement
    }

    /// Reads one ReceiptAttribute SEQUENCE at `offset`.
    @inline(__always)
    private static func attribute(_ r: BERReader, _ element: BERElement, depth: Int) throws(ReceiptParseError) -> Attribute {
        guard element.isSequence else { throw ReceiptParseError("attribute at offset \(element.start) is not a SEQUENCE") }
        let typeElement = try r.element(at: element.contentStart, limit: element.contentEnd, depth: depth + 1)
        guard typeElement.isInteger, let type = r.int64(typeElement) else {
            throw ReceiptParseError("attribute at offset \(element.start) has no valid type INTEGER")
        }
        let version = try r.element(at: typeElement.end, limit: element.contentEnd, depth: depth + 1)
        guard version.isInteger else { throw ReceiptParseError("attribute \(type) has no version INTEGER") }
        let value = try r.element(at: version.end, limit: element.contentEnd, depth: depth + 1)
        guard value.isPrimitiveOctetString else { throw ReceiptParseError("attribute \(type) value is not a primitive OCTET STRING") }
        guard value.end == element.contentEnd else { throw ReceiptParseError("attribute \(type) has extra fields") }
        return Attribute(type: type, value: value)
    }

    private static func decode(_ r: BERReader) throws(ReceiptParseError) -> Receipt {
        var receipt = Receipt()
        let count = r.bytes.count
        guard count > 0 else { throw ReceiptParseError("the payload is empty") }
        let set = try r.element(at: 0, limit: count)
        guard set.isSet else { throw ReceiptParseError("the payload is not a SET of attributes") }
        guard set.end == count else { throw ReceiptParseError("\(count - set.end) bytes of trailing garbage after the payload SET") }
        var seen: UInt32 = 0
        var cursor = set.contentStart
        while cursor < set.contentEnd {
            let element = try r.element(at: cursor, limit: set.contentEnd, depth: 1)
            cursor = element.end
            let a = try attribute(r, element, depth: 1)
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
                receipt.bundleIDData = Array(r.content(value))
                receipt.bundleID = try string(r, value, type)
            case .appVersion: receipt.appVersion = try string(r, value, type)
            case .opaqueValue: receipt.opaqueValue = Array(r.content(value))
            case .sha1Hash: receipt.sha1Hash = Array(r.content(value))
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

    private static func purchase(_ r: BERReader, _ value: BERElement) throws(ReceiptParseError) -> InAppPurchase {
        let set = try inner(r, value, ReceiptAttribute.inAppPurchase.rawValue)
        guard set.isSet else { throw ReceiptParseError("in-app purchase (17) is not a SET") }
        var p = InAppPurchase()
        var seen: UInt32 = 0
        var cursor = set.contentStart
        while cursor < set.contentEnd {
            let element = try r.element(at: cursor, limit: set.contentEnd, depth: 4)
            cursor = element.end
            let a = try attribute(r, element, depth: 4)
            let type = a.type, v = a.value
            guard let field = PurchaseField(rawValue: type) else { continue }
            guard seen & field.presenceBit == 0 else { throw ReceiptParseError("in-app attribute \(type) appears twice") }
            seen |= field.presenceBit
            switch field {
            case .quantity: p.quantity = try integer(r, v, type)
            case .productID: p.productID = try string(r, v, type)
            case .transactionID: p.transactionID = try string(r, v, type)
            case .purchaseDate: p.purchaseDate = try date(r, v, type)
            case .originalTransactionID: p.originalTransactionID = try string(r, v, type)
            case .originalPurchaseDate: p.originalPurchaseDate = try date(r, v, type)
            case .productType: p.productType = try integer(r, v, type)
            case .expiresDate: p.expiresDate = try date(r, v, type)
            case .webOrderLineItemID: p.webOrderLineItemID = try integer(r, v, type)
            case .cancellationDate: p.cancellationDate = try date(r, v, type)
            case .isTrialPeriod: p.isTrialPeriod = try boolean(r, v, type)
            case .isInIntroOfferPeriod: p.isInIntroOfferPeriod = try boolean(r, v, type)
            case .promotionalOfferID: p.promotionalOfferID = try string(r, v, type)
            }
        }
        return p
    }

    /// The single DER element inside an attribute's OCTET STRING value.
    @inline(__always)
    private static func inner(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> BERElement {
        let e = try r.element(at: value.contentStart, limit: value.contentEnd, depth: 6)
        guard e.end == value.contentEnd else { throw ReceiptParseError("attribute \(type) value has trailing bytes") }
        return e
    }

    /// The string's bytes (UTF8String, PrintableString or IA5String); nil when empty or absent.
    @inline(__always)
    private static func stringBytes(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> UnsafeRawBufferPointer? {
        guard value.contentCount > 0 else { return nil }
        let e = try inner(r, value, type)
        guard e.tagClass == BERElement.universal, !e.constructed,
              e.tagNumber == ASN1Tag.utf8String || e.tagNumber == ASN1Tag.printableString || e.tagNumber == ASN1Tag.ia5String else {
            throw ReceiptParseError("attribute \(type) is not a string (tag \(e.tagNumber))")
        }
        guard e.contentCount > 0 else { return nil }
        return r.content(e)
    }

    private static func string(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> String? {
        guard let bytes = try stringBytes(r, value, type) else { return nil }
        // ASCII (product and transaction ids, versions) needs no validation beyond the byte check.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let s = String(validating: bytes, as: UTF8.self) else { throw ReceiptParseError("attribute \(type) is not valid UTF-8") }
        return s
    }

    private static func integer(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> Int64? {
        guard value.contentCount > 0 else { return nil }
        let e = try inner(r, value, type)
        guard e.isInteger else { throw ReceiptParseError("attribute \(type) is not an INTEGER") }
        guard let v = r.int64(e) else { throw ReceiptParseError("attribute \(type) INTEGER is negative or exceeds 64 bits") }
        return v
    }

    private static func date(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> ReceiptDate? {
        guard let bytes = try stringBytes(r, value, type) else { return nil }
        guard let ms = ReceiptDateText.milliseconds(bytes) else {
            throw ReceiptParseError("attribute \(type) date \(Quoted.bytes(bytes)) is not RFC 3339")
        }
        if ReceiptDateText.isCanonical(bytes) { return ReceiptDate(canonicalMilliseconds: ms) }
        return ReceiptDate(text: String(decoding: bytes, as: UTF8.self), milliseconds: ms)
    }

    private static func boolean(_ r: BERReader, _ value: BERElement, _ type: Int64) throws(ReceiptParseError) -> Bool? {
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
        if b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A {
            func digits(_ at: Int, _ n: Int) -> Int? {
                var v = 0
                for k in at..<(at + n) {
                    let c = b[k] &- 0x30
                    guard c <= 9 else { return nil }
                    v = v * 10 + Int(c)
                }
                return v
            }
            if let y = digits(0, 4), let mo = digits(5, 2), let d = digits(8, 2),
               let h = digits(11, 2), let mi = digits(14, 2), let s = digits(17, 2),
               (1...12).contains(mo), d >= 1, d <= Timestamp.daysInMonth(year: y, month: mo), h <= 23, mi <= 59, s <= 60 {
                let day = Int64(Timestamp.days(year: y, month: mo, day: d))
                return (day * 86_400 + Int64(h * 3600 + mi * 60 + s)) * 1000
            }
            return nil
        }
        return Timestamp.parseRFC3339(b)
    }
}
