/// Decodes the signed payload: `SET OF ReceiptAttribute{type INTEGER, version INTEGER, value OCTET STRING}`,
/// with in-app purchases (type 17) as nested sets of 1701+ attributes. Known attributes must have
/// their documented inner ASN.1 type; unknown ones are skipped; empty strings mean absent.
enum ReceiptPayload {
    struct Malformed: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    static func parse(_ payload: [UInt8]) throws(Malformed) -> Receipt {
        try payload.withUnsafeBytes { raw in Result { () throws(Malformed) in try parse(raw) } }.get()
    }

    static func parse(_ raw: UnsafeRawBufferPointer) throws(Malformed) -> Receipt {
        let r = BERReader(raw)
        var receipt = Receipt()
        var seen = Set<Int64>()
        do {
            guard raw.count > 0 else { throw Malformed("the payload is empty") }
            let set = try r.element(at: 0, limit: raw.count)
            guard set.isUniversal(17, constructed: true) else { throw Malformed("the payload is not a SET of attributes") }
            guard set.end == raw.count else { throw Malformed("\(raw.count - set.end) bytes of trailing garbage after the payload SET") }
            try forEachAttribute(r, set) { (type, value) in
                receipt.attributeCount += 1
                if type == 17 {
                    receipt.purchases.append(try purchase(r, value))
                    return
                }
                guard type <= 21 else { return }
                guard seen.insert(type).inserted || !singleton(type) else {
                    throw Malformed("attribute \(type) appears twice")
                }
                switch type {
                case 0: receipt.environment = try string(r, value, type)
                case 1: receipt.appItemID = try integer(r, value, type)
                case 2:
                    receipt.bundleIDData = Array(r.content(value))
                    receipt.bundleID = try string(r, value, type)
                case 3: receipt.appVersion = try string(r, value, type)
                case 4: receipt.opaqueValue = Array(r.content(value))
                case 5: receipt.sha1Hash = Array(r.content(value))
                case 10: receipt.ageRating = try string(r, value, type)
                case 12: receipt.creationDate = try date(r, value, type)
                case 15: receipt.downloadID = try integer(r, value, type)
                case 16: receipt.versionExternalIdentifier = try integer(r, value, type)
                case 18: receipt.originalPurchaseDate = try date(r, value, type)
                case 19: receipt.originalAppVersion = try string(r, value, type)
                case 21: receipt.expirationDate = try date(r, value, type)
                default: break
                }
            }
        } catch let e as Malformed {
            throw e
        } catch let e as BERError {
            throw Malformed(e.message)
        } catch {
            throw Malformed("\(error)")
        }
        return receipt
    }

    private static func singleton(_ type: Int64) -> Bool {
        [0, 1, 2, 3, 4, 5, 10, 12, 15, 16, 18, 19, 21].contains(type)
    }

    /// Walks a SET OF ReceiptAttribute, handing each (type, value OCTET STRING) to `body`.
    private static func forEachAttribute(_ r: BERReader, _ set: BERElement, depth: Int = 0,
                                         _ body: (Int64, BERElement) throws -> Void) throws {
        try r.forEachChild(of: set, depth: depth) { (attribute) throws(BERError) in
            guard attribute.isUniversal(16, constructed: true) else { throw BERError("attribute at offset \(attribute.start) is not a SEQUENCE") }
            let typeElement = try r.element(at: attribute.contentStart, limit: attribute.contentEnd, depth: depth + 2)
            guard typeElement.isUniversal(2, constructed: false), let type = r.int64(typeElement) else {
                throw BERError("attribute at offset \(attribute.start) has no valid type INTEGER")
            }
            let version = try r.element(at: typeElement.end, limit: attribute.contentEnd, depth: depth + 2)
            guard version.isUniversal(2, constructed: false) else { throw BERError("attribute \(type) has no version INTEGER") }
            let value = try r.element(at: version.end, limit: attribute.contentEnd, depth: depth + 2)
            guard value.isUniversal(4, constructed: false) else { throw BERError("attribute \(type) value is not a primitive OCTET STRING") }
            guard value.end == attribute.contentEnd else { throw BERError("attribute \(type) has extra fields") }
            do { try body(type, value) } catch let e as BERError { throw e } catch let e as Malformed {
                throw BERError(e.message)
            } catch { throw BERError("\(error)") }
        }
    }

    /// The single DER element inside an attribute's OCTET STRING value.
    private static func inner(_ r: BERReader, _ value: BERElement, _ type: Int64) throws -> BERElement {
        let e = try r.element(at: value.contentStart, limit: value.contentEnd, depth: 4)
        guard e.end == value.contentEnd else { throw Malformed("attribute \(type) value has trailing bytes") }
        return e
    }

    private static func string(_ r: BERReader, _ value: BERElement, _ type: Int64) throws -> String? {
        guard value.contentCount > 0 else { return nil }
        let e = try inner(r, value, type)
        // UTF8String, PrintableString, IA5String
        guard e.tagClass == BERElement.universal, !e.constructed, [12, 19, 22].contains(e.tagNumber) else {
            throw Malformed("attribute \(type) is not a string (tag \(e.tagNumber))")
        }
        guard e.contentCount > 0 else { return nil }
        guard let s = String(validating: r.content(e), as: UTF8.self) else {
            throw Malformed("attribute \(type) is not valid UTF-8")
        }
        return s
    }

    private static func integer(_ r: BERReader, _ value: BERElement, _ type: Int64) throws -> Int64? {
        guard value.contentCount > 0 else { return nil }
        let e = try inner(r, value, type)
        guard e.isUniversal(2, constructed: false) else { throw Malformed("attribute \(type) is not an INTEGER") }
        guard let v = r.int64(e) else { throw Malformed("attribute \(type) INTEGER is negative or exceeds 64 bits") }
        return v
    }

    private static func date(_ r: BERReader, _ value: BERElement, _ type: Int64) throws -> ReceiptDate? {
        guard let text = try string(r, value, type) else { return nil }
        guard let ms = Timestamp.parseRFC3339(text.utf8) else {
            throw Malformed("attribute \(type) date '\(text)' is not RFC 3339")
        }
        return ReceiptDate(text: text, milliseconds: ms)
    }

    private static func boolean(_ r: BERReader, _ value: BERElement, _ type: Int64) throws -> Bool? {
        guard let v = try integer(r, value, type) else { return nil }
        guard v == 0 || v == 1 else { throw Malformed("attribute \(type) flag is \(v), expected 0 or 1") }
        return v == 1
    }

    private static func purchase(_ r: BERReader, _ value: BERElement) throws -> InAppPurchase {
        let set = try inner(r, value, 17)
        guard set.isUniversal(17, constructed: true) else { throw Malformed("in-app purchase (17) is not a SET") }
        var p = InAppPurchase()
        var seen = Set<Int64>()
        try forEachAttribute(r, set, depth: 3) { (type, v) in
            guard type >= 1701 && type <= 1721 else { return }
            guard seen.insert(type).inserted else { throw Malformed("in-app attribute \(type) appears twice") }
            switch type {
            case 1701: p.quantity = try integer(r, v, type)
            case 1702: p.productID = try string(r, v, type)
            case 1703: p.transactionID = try string(r, v, type)
            case 1704: p.purchaseDate = try date(r, v, type)
            case 1705: p.originalTransactionID = try string(r, v, type)
            case 1706: p.originalPurchaseDate = try date(r, v, type)
            case 1707: p.productType = try integer(r, v, type)
            case 1708: p.expiresDate = try date(r, v, type)
            case 1711: p.webOrderLineItemID = try integer(r, v, type)
            case 1712: p.cancellationDate = try date(r, v, type)
            case 1713: p.isTrialPeriod = try boolean(r, v, type)
            case 1719: p.isInIntroOfferPeriod = try boolean(r, v, type)
            case 1721: p.promotionalOfferID = try string(r, v, type)
            default: break
            }
        }
        return p
    }
}
