import Glibc
import Testing
@testable import GateKitReceipts
@testable import GateKitSupport

/// The payload decoder reads App Store's canonical DER in one pass and every other BER form
/// through the general reader: both must accept, refuse and decode the same receipts. Payloads
/// are built here byte by byte, in both forms.
@Suite struct ReceiptPayloadTests {
    enum Form { case canonical, ber }

    /// A TLV; `.ber` writes every length in three octets with a leading zero (0x83 00 hi lo),
    /// which BER allows and DER does not: none of it takes the one-pass path.
    func tlv(_ tag: UInt8, _ content: [UInt8], _ form: Form) -> [UInt8] {
        let n = content.count
        if form == .ber { return [tag, 0x83, 0x00, UInt8(n >> 8), UInt8(n & 0xFF)] + content }
        if n < 0x80 { return [tag, UInt8(n)] + content }
        return [tag, 0x82, UInt8(n >> 8), UInt8(n & 0xFF)] + content
    }

    /// INTEGER `value`; `.ber` pads it with a leading zero octet (BER, not DER).
    func integer(_ value: Int, _ form: Form) -> [UInt8] {
        var octets: [UInt8] = []
        var v = value
        repeat { octets.insert(UInt8(v & 0xFF), at: 0); v >>= 8 } while v > 0
        if octets[0] & 0x80 != 0 || form == .ber { octets.insert(0, at: 0) }
        return tlv(0x02, octets, form)
    }

    func attribute(_ type: Int, _ value: [UInt8], _ form: Form) -> [UInt8] {
        tlv(0x30, integer(type, form) + integer(1, form) + tlv(0x04, value, form), form)
    }

    func utf8(_ s: String, _ form: Form) -> [UInt8] { tlv(0x0C, Array(s.utf8), form) }
    func ia5(_ s: String, _ form: Form) -> [UInt8] { tlv(0x16, Array(s.utf8), form) }

    func payload(_ form: Form, productID: String = "com.example.pro \"gold\"", purchaseDate: String = "2020-03-08T09:59:59Z") -> [UInt8] {
        let purchase = tlv(0x31, attribute(1701, integer(1, form), form)
            + attribute(1702, utf8(productID, form), form)
            + attribute(1703, utf8("1000000637840752", form), form)
            + attribute(1704, ia5(purchaseDate, form), form)
            + attribute(1706, ia5("2013-08-01T07:00:00Z", form), form)
            + attribute(1708, ia5("", form), form)
            + attribute(1711, integer(1_000_000_048_877_195, form), form)
            + attribute(1713, integer(0, form), form)
            + attribute(1719, integer(1, form), form)
            + attribute(1714, utf8("unknown to GateKit", form), form), form)
        return tlv(0x31, attribute(0, utf8("ProductionSandbox", form), form)
            + attribute(2, utf8("com.example.app", form), form)
            + attribute(12, ia5("2020-05-06T18:28:49Z", form), form)
            + attribute(17, purchase, form)
            + attribute(17, purchase, form), form)
    }

    func parse(_ bytes: [UInt8]) throws(ReceiptParseError) -> Receipt { try ReceiptPayload.parse(bytes) }

    func json(_ receipt: Receipt, _ payload: [UInt8]) throws -> String {
        let v = ValidatedReceipt(receipt: receipt, isTestSigned: false, digest: .sha256, verificationTime: 0,
                                 validatedAt: 1_588_789_729_000, signedPayload: payload)
        return try ReceiptJSON.verifyReceiptBody(v)
    }

    @Test func bothFormsDecodeToTheSameReceipt() throws {
        let canonical = try parse(payload(.canonical)), ber = try parse(payload(.ber))
        for r in [canonical, ber] {
            #expect(r.attributeCount == 5 && r.environment == "ProductionSandbox" && r.bundleID == "com.example.app")
            #expect(r.purchases.count == 2)
            let p = r.purchases[1]
            #expect(p.quantity == 1 && p.productID == "com.example.pro \"gold\"" && p.transactionID == "1000000637840752")
            #expect(p.purchaseDate?.milliseconds == 1_583_661_599_000 && p.purchaseDate?.text == "2020-03-08T09:59:59Z")
            #expect(p.originalPurchaseDate?.milliseconds == 1_375_340_400_000)
            #expect(p.expiresDate == nil && p.cancellationDate == nil && p.originalTransactionID == nil)
            #expect(p.webOrderLineItemID == 1_000_000_048_877_195 && p.isTrialPeriod == false && p.isInIntroOfferPeriod == true)
            #expect(p.hasProductID("com.example.pro \"gold\"") && !p.hasProductID("com.example.pro") && !p.hasProductID(""))
        }
        let a = payload(.canonical), b = payload(.ber)
        #expect(try json(canonical, a) == json(ber, b))
    }

    @Test func stringsAreMadeFromThePayloadAsWritten() throws {
        // Non-ASCII UTF-8 and a date with an offset (kept as written) in a purchase.
        let bytes = payload(.canonical, productID: "com.example.crème", purchaseDate: "2020-03-08T01:59:59-08:00")
        let p = try parse(bytes).purchases[0]
        #expect(p.productID == "com.example.crème" && p.string(.productID) == "com.example.crème")
        #expect(p.purchaseDate?.text == "2020-03-08T01:59:59-08:00" && p.purchaseDate?.milliseconds == 1_583_661_599_000)
        #expect(p.string(.purchaseDate) == "2020-03-08T01:59:59-08:00")
        // The JSON escapes what JSON requires and shows the date in verifyReceipt's three forms.
        let text = try json(try parse(bytes), bytes)
        #expect(text.contains(#""product_id":"com.example.crème""#))
        #expect(text.contains(#""purchase_date":"2020-03-08 09:59:59 Etc/GMT","purchase_date_ms":"1583661599000","purchase_date_pst":"2020-03-08 01:59:59 America/Los_Angeles""#))
        let quoted = payload(.canonical)
        #expect(try json(try parse(quoted), quoted).contains(#""product_id":"com.example.pro \"gold\"""#))
    }

    @Test func bothFormsRefuseTheSameFaults() {
        for form in [Form.canonical, .ber] {
            // Invalid UTF-8 in a purchase string; a date that is not one; a flag that is not 0/1.
            var bad = payload(form, productID: "com.example.pro~")
            guard let tilde = bad.firstIndex(of: UInt8(ascii: "~")) else { Issue.record("no product id"); return }
            bad[tilde] = 0xFF  // a purchase's product id that is no longer UTF-8
            #expect(throws: ReceiptParseError.self) { try parse(bad) }
            #expect(throws: ReceiptParseError.self) { try parse(payload(form, purchaseDate: "2020-02-30T00:00:00Z")) }
            #expect(throws: ReceiptParseError.self) { try parse(payload(form, purchaseDate: "2020-03-08T09:59:5xZ")) }
        }
        // A type that is negative, and an attribute with a fourth field, whatever the form.
        let negative = tlv(0x31, tlv(0x30, [0x02, 0x01, 0xFF] + integer(1, .canonical) + tlv(0x04, [], .canonical), .canonical), .canonical)
        #expect(throws: ReceiptParseError.self) { try parse(negative) }
        let extra = tlv(0x31, tlv(0x30, integer(2, .canonical) + integer(1, .canonical) + tlv(0x04, [], .canonical) + [0x05, 0x00], .canonical), .canonical)
        #expect(throws: ReceiptParseError.self) { try parse(extra) }
    }

    @Test func byteWriterNumbersAndEscapes() throws {
        for value: Int64 in [0, 7, 10, 99, 100, 1_583_661_599_000, -1, -100, .max, .min] {
            var w = ByteWriter(capacity: 1)
            w.appendDecimal(value)
            #expect(String(decoding: try w.bytes(), as: UTF8.self) == String(value))
        }
        var w = ByteWriter(capacity: 1)  // grows from the smallest buffer
        let all = (0..<128).map { UInt8($0) }
        all.withUnsafeBytes { w.appendJSONString($0) }
        var reference = JSONWriter()
        reference.string(String(decoding: all, as: UTF8.self))
        #expect(try w.bytes() == reference.bytes)
        let c = try w.takeCString()
        defer { free(c) }
        #expect(String(cString: c) == String(decoding: reference.bytes, as: UTF8.self))
    }
}
