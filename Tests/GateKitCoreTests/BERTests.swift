import Testing
@testable import GateKitReceipts

@Suite struct BERTests {
    func read(_ bytes: [UInt8]) throws(ReceiptParseError) -> (BERElement, [BERElement]) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(ReceiptParseError) in
                let r = BERReader(raw)
                let e = try r.element(at: 0, limit: raw.count)
                return (e, e.constructed ? try r.children(of: e) : [])
            }
        }.get()
    }

    func octets(_ bytes: [UInt8]) throws(ReceiptParseError) -> [UInt8] {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(ReceiptParseError) in
                let r = BERReader(raw)
                return try r.octets(try r.element(at: 0, limit: raw.count))
            }
        }.get()
    }

    @Test func definiteAndIndefiniteLengths() throws {
        let (definite, kids) = try read([0x30, 0x06, 0x02, 0x01, 0x05, 0x04, 0x01, 0xAA])
        #expect(definite.end == 8 && kids.count == 2 && !definite.indefinite)
        let (indefinite, inner) = try read([0x30, 0x80, 0x02, 0x01, 0x05, 0x30, 0x80, 0x00, 0x00, 0x00, 0x00])
        #expect(indefinite.indefinite && indefinite.end == 11 && inner.count == 2)
        let (long, _) = try read([0x04, 0x82, 0x01, 0x00] + [UInt8](repeating: 7, count: 256))
        #expect(long.contentCount == 256)
        // BER lets a long-form length start with zero octets (OpenSSL agrees: ber-differential).
        let (padded, _) = try read([0x04, 0x85, 0x00, 0x00, 0x00, 0x00, 0x01, 0x41])
        #expect(padded.contentCount == 1 && padded.end == 8)
        let (empty, _) = try read([0x04, 0x81, 0x00])
        #expect(empty.contentCount == 0 && empty.end == 3)
    }

    @Test func constructedOctetStringsConcatenate() throws {
        #expect(try octets([0x24, 0x80, 0x04, 0x02, 1, 2, 0x04, 0x01, 3, 0x00, 0x00]) == [1, 2, 3])
        #expect(try octets([0x24, 0x08, 0x04, 0x01, 1, 0x24, 0x03, 0x04, 0x01, 2]) == [1, 2])
        #expect(throws: ReceiptParseError.self) { try octets([0x24, 0x03, 0x02, 0x01, 1]) }  // INTEGER segment
    }

    @Test func hostileEncodingsFail() {
        let cases: [[UInt8]] = [
            [],                                          // nothing
            [0x30],                                      // no length
            [0x30, 0x05, 0x02, 0x01],                    // truncated content
            [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF],        // length beyond the input
            [0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9],     // absurd length field
            [0x04, 0x80, 0x00, 0x00],                    // indefinite primitive
            [0x30, 0x80, 0x02, 0x01, 0x05],              // missing end-of-contents
            [0x30, 0x02, 0x00, 0x00],                    // stray end-of-contents
            [0x1F, 0x80, 0x01, 0x00],                    // long tag with a leading 0x80
            [0x20, 0x00],                                // end-of-contents with the constructed bit
            [0x20, 0x80, 0x00, 0x00],                    // ... and an indefinite length
            [0x30, 0x04, 0x20, 0x00, 0x05, 0x00],        // ... as a child (ber-differential regression)
            [0x04, 0xFF] + [UInt8](repeating: 0, count: 130),  // reserved length octet 0xFF
            [UInt8](repeating: 0, count: 0) + Array(repeating: [0x30, 0x80], count: 40).flatMap { $0 },  // nesting bomb
        ]
        for bytes in cases {
            #expect(throws: ReceiptParseError.self, "\(bytes.prefix(8))") { try read(bytes) }
        }
    }

    @Test func integersAndOIDs() throws {
        let bytes: [UInt8] = [0x02, 0x09, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0]
        let tooBig = bytes.withUnsafeBytes { raw in (try? BERReader(raw).element(at: 0, limit: raw.count)).flatMap { BERReader(raw).int64($0) } }
        #expect(tooBig == nil)
        let ok: [UInt8] = [0x02, 0x08, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let max = ok.withUnsafeBytes { raw in (try? BERReader(raw).element(at: 0, limit: raw.count)).flatMap { BERReader(raw).int64($0) } }
        #expect(max == Int64.max)
        let oid: [UInt8] = [0x06, 0x0A, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01]
        let text = oid.withUnsafeBytes { raw in (try? BERReader(raw).element(at: 0, limit: raw.count)).map { BERReader(raw).oidText($0) } }
        #expect(text == "1.2.840.113635.100.6.11.1")
    }

    @Test func receiptDatesInEveryObservedForm() {
        func ms(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBytes { ReceiptDateText.milliseconds($0) } }
        #expect(ms("2020-07-22T17:33:15Z") == 1_595_439_195_000)
        #expect(ms("2020-07-22T18:33:15+0100") == 1_595_439_195_000)
        #expect(ms("2020-07-22T18:33:15+01:00") == 1_595_439_195_000)
        #expect(ms("2020-02-30T00:00:00Z") == nil)
        #expect(ms("2020-07-22 17:33:15") == nil)
    }
}
