/// A BER/DER reader over borrowed bytes: definite and indefinite lengths, bounded nesting,
/// strict about truncation, stray end-of-contents and absurd lengths. It never reads outside
/// the buffer; every failure is a `ReceiptParseError` with the offset and the reason.

struct BERElement {
    static let universal: UInt8 = 0, application: UInt8 = 1, contextSpecific: UInt8 = 2, privateClass: UInt8 = 3

    let tagClass: UInt8
    let constructed: Bool
    let tagNumber: UInt32
    /// Offset of the identifier octet.
    let start: Int
    let contentStart: Int
    /// End of the content (before the end-of-contents octets when indefinite).
    let contentEnd: Int
    /// End of the whole element.
    let end: Int
    let indefinite: Bool

    var contentCount: Int { contentEnd - contentStart }

    func isUniversal(_ number: UInt32, constructed c: Bool) -> Bool {
        tagClass == BERElement.universal && tagNumber == number && constructed == c
    }

    func isContext(_ number: UInt32) -> Bool { tagClass == BERElement.contextSpecific && tagNumber == number }
}

struct BERReader {
    static let maximumDepth = 24

    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always) func byte(_ i: Int) -> UInt8 { bytes.load(fromByteOffset: i, as: UInt8.self) }

    /// Reads the element starting at `offset`, which must end by `limit`. The common shapes
    /// (low tag number; short, one- or two-octet definite length) are read inline; everything
    /// else, errors included, by `elementInFull`.
    @inline(__always)
    func element(at offset: Int, limit: Int, depth: Int = 0) throws(ReceiptParseError) -> BERElement {
        if depth <= BERReader.maximumDepth, offset >= 0, offset + 1 < limit, limit <= bytes.count {
            let identifier = byte(offset), first = byte(offset + 1)
            // Universal tag 0 (either form) is end-of-contents, which is never an element.
            if identifier & 0x1F != 0x1F && identifier & 0xDF != 0 {
                var contentStart = offset + 2
                var length = Int(first)
                if first == 0x81, contentStart < limit {
                    length = Int(byte(contentStart))
                    contentStart += 1
                } else if first == 0x82, contentStart + 1 < limit {
                    length = Int(byte(contentStart)) << 8 | Int(byte(contentStart + 1))
                    contentStart += 2
                }
                if first < 0x80 || contentStart > offset + 2, length <= limit - contentStart {
                    let end = contentStart + length
                    return BERElement(tagClass: identifier >> 6, constructed: identifier & 0x20 != 0,
                                      tagNumber: UInt32(identifier & 0x1F), start: offset, contentStart: contentStart,
                                      contentEnd: end, end: end, indefinite: false)
                }
            }
        }
        return try elementInFull(at: offset, limit: limit, depth: depth)
    }

    @inline(never)
    private func elementInFull(at offset: Int, limit: Int, depth: Int) throws(ReceiptParseError) -> BERElement {
        guard depth <= BERReader.maximumDepth else { throw ReceiptParseError("nesting deeper than \(BERReader.maximumDepth) levels at offset \(offset)") }
        guard limit <= bytes.count, offset < limit, offset >= 0 else { throw ReceiptParseError("truncated: element expected at offset \(offset)") }
        var i = offset
        let identifier = byte(i)
        i += 1
        let tagClass = identifier >> 6
        let constructed = identifier & 0x20 != 0
        var tagNumber = UInt32(identifier & 0x1F)
        if tagNumber == 0x1F {
            tagNumber = 0
            var count = 0
            while true {
                guard i < limit else { throw ReceiptParseError("truncated tag at offset \(offset)") }
                let b = byte(i)
                i += 1
                count += 1
                guard count <= 4, !(count == 1 && b == 0x80) else { throw ReceiptParseError("invalid long tag at offset \(offset)") }
                tagNumber = tagNumber << 7 | UInt32(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
        }
        guard i < limit else { throw ReceiptParseError("truncated length at offset \(offset)") }
        if tagClass == BERElement.universal && tagNumber == 0 {
            throw ReceiptParseError("unexpected end-of-contents at offset \(offset)")
        }
        let first = byte(i)
        i += 1
        if first == 0x80 {
            guard constructed else { throw ReceiptParseError("indefinite length on a primitive element at offset \(offset)") }
            let contentStart = i
            var cursor = i
            while true {
                guard cursor + 1 < limit else { throw ReceiptParseError("missing end-of-contents for the element at offset \(offset)") }
                if byte(cursor) == 0 && byte(cursor + 1) == 0 { break }
                let child = try element(at: cursor, limit: limit, depth: depth + 1)
                cursor = child.end
            }
            return BERElement(tagClass: tagClass, constructed: constructed, tagNumber: tagNumber, start: offset,
                              contentStart: contentStart, contentEnd: cursor, end: cursor + 2, indefinite: true)
        }
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            // Long form: BER allows leading zero octets; what remains must fit the input.
            let count = Int(first & 0x7F)
            guard count != 0x7F else { throw ReceiptParseError("reserved length octet 0xFF at offset \(offset)") }
            guard i + count <= limit else { throw ReceiptParseError("truncated length at offset \(offset)") }
            var k = 0
            while k < count && byte(i + k) == 0 { k += 1 }
            guard count - k <= 8 else { throw ReceiptParseError("absurd length field (\(count) octets) at offset \(offset)") }
            var value: UInt64 = 0
            while k < count {
                value = value << 8 | UInt64(byte(i + k))
                k += 1
            }
            i += count
            guard value <= UInt64(limit - i) else {
                throw ReceiptParseError("truncated: element at offset \(offset) declares \(value) bytes, \(limit - i) remain")
            }
            length = Int(value)
        }
        guard length <= limit - i else {
            throw ReceiptParseError("truncated: element at offset \(offset) declares \(length) bytes, \(limit - i) remain")
        }
        return BERElement(tagClass: tagClass, constructed: constructed, tagNumber: tagNumber, start: offset,
                          contentStart: i, contentEnd: i + length, end: i + length, indefinite: false)
    }

    /// The children of a constructed element, in order; every byte of the content must belong to one.
    func children(of parent: BERElement, depth: Int = 0) throws(ReceiptParseError) -> [BERElement] {
        guard parent.constructed else { throw ReceiptParseError("element at offset \(parent.start) is not constructed") }
        var result: [BERElement] = []
        var cursor = parent.contentStart
        while cursor < parent.contentEnd {
            let child = try element(at: cursor, limit: parent.contentEnd, depth: depth + 1)
            result.append(child)
            cursor = child.end
        }
        return result
    }

    /// The octets of an OCTET STRING, primitive or constructed (BER: concatenated primitive segments).
    func octets(_ e: BERElement, depth: Int = 0) throws(ReceiptParseError) -> [UInt8] {
        if !e.constructed {
            return Array(UnsafeRawBufferPointer(rebasing: bytes[e.contentStart..<e.contentEnd]))
        }
        var out: [UInt8] = []
        try appendOctets(e, into: &out, depth: depth)
        return out
    }

    private func appendOctets(_ e: BERElement, into out: inout [UInt8], depth: Int) throws(ReceiptParseError) {
        guard depth <= BERReader.maximumDepth else { throw ReceiptParseError("constructed OCTET STRING nested too deeply") }
        if !e.constructed {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[e.contentStart..<e.contentEnd]))
            return
        }
        for child in try children(of: e, depth: depth) {
            guard child.tagClass == BERElement.universal, child.tagNumber == 4 else {
                throw ReceiptParseError("constructed OCTET STRING at offset \(e.start) holds a non-OCTET STRING segment")
            }
            try appendOctets(child, into: &out, depth: depth + 1)
        }
    }

    /// The content bytes compared with `expected` (OIDs, fixed tags).
    func contentEquals(_ e: BERElement, _ expected: [UInt8]) -> Bool {
        guard e.contentCount == expected.count else { return false }
        for k in 0..<expected.count where byte(e.contentStart + k) != expected[k] { return false }
        return true
    }

    func raw(_ e: BERElement) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: bytes[e.start..<e.end]))
    }

    func content(_ e: BERElement) -> UnsafeRawBufferPointer {
        content(from: e.contentStart, to: e.contentEnd)
    }

    func content(from start: Int, to end: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A non-negative INTEGER that fits in Int64 (DER minimal or BER); nil when negative or too large.
    func int64(_ e: BERElement) -> Int64? {
        guard !e.constructed, e.contentCount > 0 else { return nil }
        var start = e.contentStart
        if byte(start) & 0x80 != 0 { return nil }
        while start < e.contentEnd - 1 && byte(start) == 0 { start += 1 }
        guard e.contentEnd - start <= 8 else { return nil }
        if e.contentEnd - start == 8 && byte(start) & 0x80 != 0 { return nil }
        var v: Int64 = 0
        for k in start..<e.contentEnd { v = v << 8 | Int64(byte(k)) }
        return v
    }

    /// The dotted text of an OBJECT IDENTIFIER (for messages).
    func oidText(_ e: BERElement) -> String {
        var parts: [String] = []
        var value: UInt64 = 0
        var first = true
        for k in e.contentStart..<e.contentEnd {
            let b = byte(k)
            guard value < (UInt64(1) << 56) else { return "(overlong OID)" }
            value = value << 7 | UInt64(b & 0x7F)
            if b & 0x80 == 0 {
                if first {
                    let a = min(value / 40, 2)
                    parts.append(String(a))
                    parts.append(String(value - a * 40))
                    first = false
                } else {
                    parts.append(String(value))
                }
                value = 0
                // Messages stay short whatever the input: Apple's OIDs have at most 11 arcs.
                if parts.count > 24 { return "(an OID of \(e.contentCount) bytes)" }
            }
        }
        return parts.joined(separator: ".")
    }
}
