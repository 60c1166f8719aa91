import COpenSSL
import Glibc

/// Differential: GateKit's BER reader against OpenSSL's ASN.1 parser (`ASN1_get_object`) on
/// the same bytes. Both must refuse, or both must see the same tree: every element's class,
/// constructed bit, tag number, offsets, lengths and definite/indefinite form.
///
/// OpenSSL parses one header at a time; the walk around it applies X.690's structural rules
/// (children fill their parent exactly, end-of-contents only closes an indefinite length)
/// and GateKit's documented limits: nesting at most `BERReader.maximumDepth`, tag numbers of
/// at most four octets. Two X.690 rules OpenSSL does not check are added to the walk: no
/// 0x80 as the first octet of a long tag (8.1.2.4.2), no 0xFF length octet (8.1.3.5). And
/// OpenSSL wants one byte after long-form length octets even when the content is empty, so
/// it parses a copy with one byte of padding, and the walk checks every bound itself.
///
/// With $GATEKIT_FUZZ_EXPECT_PARSE set (the replay over real receipts and certificates),
/// an input both parsers refuse is a failure too: the comparison must not pass vacuously.
@Sendable func fuzzBERDifferential(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0 else { return }
    let ours = BERTree.ours(bytes)
    let theirs = BERTree.openssl(bytes)
    guard ours == theirs else {
        fuzzFail("BER reader and OpenSSL disagree: GateKit \(ours.map { $0.summary } ?? "refuses"), OpenSSL \(theirs.map { $0.summary } ?? "refuses")")
    }
    if ours == nil && BERTree.expectParse { fuzzFail("a real receipt or certificate that neither parser reads") }
}

/// One element as both parsers must see it.
struct BERTree: Equatable {
    var tagClass: UInt8
    var constructed: Bool
    var tagNumber: UInt32
    var start: Int
    var contentStart: Int
    var contentEnd: Int
    var end: Int
    var indefinite: Bool
    var children: [BERTree]

    static let expectParse = getenv("GATEKIT_FUZZ_EXPECT_PARSE") != nil

    var summary: String {
        "[\(tagClass)/\(tagNumber)\(constructed ? "c" : "p") \(start)..<\(end)\(indefinite ? " indefinite" : "") \(children.count) children]"
    }

    /// GateKit's reader: the top element and, recursively, the children of constructed ones.
    static func ours(_ bytes: UnsafeRawBufferPointer) -> BERTree? {
        let reader = BERReader(bytes)
        func walk(_ e: BERElement, _ depth: Int) throws(ReceiptParseError) -> BERTree {
            var node = BERTree(tagClass: e.tagClass, constructed: e.constructed, tagNumber: e.tagNumber, start: e.start,
                               contentStart: e.contentStart, contentEnd: e.contentEnd, end: e.end,
                               indefinite: e.indefinite, children: [])
            if e.constructed {
                for child in try reader.children(of: e, depth: depth) { node.children.append(try walk(child, depth + 1)) }
            }
            return node
        }
        do {
            let top = try reader.element(at: 0, limit: bytes.count)
            return try walk(top, 0)
        } catch {
            return nil
        }
    }

    /// OpenSSL's header parser, walked with X.690's rules.
    static func openssl(_ bytes: UnsafeRawBufferPointer) -> BERTree? {
        let padded = Array(bytes) + [0]
        return padded.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return opensslWalk(base, count: bytes.count)
        }
    }

    private static func opensslWalk(_ base: UnsafePointer<UInt8>, count: Int) -> BERTree? {
        func element(at offset: Int, limit: Int, depth: Int) -> BERTree? {
            guard depth <= BERReader.maximumDepth, offset < limit else { return nil }
            var tagEnd = offset + 1
            if base[offset] & 0x1F == 0x1F {
                // X.690 long-form tags: never a leading 0x80; GateKit reads at most 4 octets.
                guard tagEnd < limit, base[tagEnd] != 0x80 else { return nil }
                while tagEnd < limit && base[tagEnd] & 0x80 != 0 { tagEnd += 1 }
                tagEnd += 1
                guard tagEnd - offset - 1 <= 4 else { return nil }
            }
            guard tagEnd < limit, base[tagEnd] != 0xFF else { return nil }
            var p: UnsafePointer<UInt8>? = base + offset
            var length = 0, tag: Int32 = 0, cls: Int32 = 0
            let flags = ASN1_get_object(&p, &length, &tag, &cls, limit - offset + 1)
            ERR_clear_error()
            guard flags & 0x80 == 0, let after = p else { return nil }
            let contentStart = base.distance(to: after)
            guard contentStart <= limit else { return nil }
            let constructed = flags & 0x20 != 0
            let indefinite = flags & 0x01 != 0
            if cls == 0 && tag == 0 { return nil }  // end-of-contents outside an indefinite length
            var node = BERTree(tagClass: UInt8(cls >> 6), constructed: constructed, tagNumber: UInt32(tag), start: offset,
                               contentStart: contentStart, contentEnd: contentStart, end: contentStart,
                               indefinite: indefinite, children: [])
            if indefinite {
                var cursor = contentStart
                while true {
                    guard cursor + 1 < limit else { return nil }
                    if base[cursor] == 0 && base[cursor + 1] == 0 { break }
                    guard let child = element(at: cursor, limit: limit, depth: depth + 1) else { return nil }
                    node.children.append(child)
                    cursor = child.end
                }
                node.contentEnd = cursor
                node.end = cursor + 2
                return node
            }
            guard length >= 0, length <= limit - contentStart else { return nil }
            node.contentEnd = contentStart + length
            node.end = node.contentEnd
            if constructed {
                var cursor = contentStart
                while cursor < node.contentEnd {
                    guard let child = element(at: cursor, limit: node.contentEnd, depth: depth + 1) else { return nil }
                    node.children.append(child)
                    cursor = child.end
                }
            }
            return node
        }
        return element(at: 0, limit: count, depth: 0)
    }
}
