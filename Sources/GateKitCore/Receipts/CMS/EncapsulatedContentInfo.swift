/// RFC 5652 §5.2:
///
///     EncapsulatedContentInfo ::= SEQUENCE {
///       eContentType ContentType,                         -- here id-data
///       eContent [0] EXPLICIT OCTET STRING OPTIONAL }     -- here present: the receipt payload
///
/// The OCTET STRING may be primitive or (BER, Xcode) constructed of segments.
enum EncapsulatedContentInfo {
    /// The signed payload: eContent's octets.
    static func payload(_ p: inout CMSParse, _ element: BERElement) throws(ReceiptParseError) -> [UInt8] {
        try p.expect(element, element.isSequence, "encapContentInfo SEQUENCE")
        let fields = try p.children(element)
        guard fields.count == 2 else { throw ReceiptParseError("the receipt has no embedded payload (detached signature)") }
        try p.expect(fields[0], fields[0].isObjectIdentifier, "eContentType OID")
        guard p.reader.contentEquals(fields[0], CMSObjectIdentifier.data) else {
            throw ReceiptParseError("eContentType is \(p.reader.oidText(fields[0])), not data (1.2.840.113549.1.7.1)")
        }
        guard fields[1].isContext(0), fields[1].constructed else { throw ReceiptParseError("[0] eContent expected") }
        let eContent = try p.children(fields[1])
        guard eContent.count == 1, eContent[0].isOctetString else { throw ReceiptParseError("eContent must be one OCTET STRING") }
        if eContent[0].indefinite { p.usesIndefiniteLength = true }
        return try p.reader.octets(eContent[0])
    }
}
