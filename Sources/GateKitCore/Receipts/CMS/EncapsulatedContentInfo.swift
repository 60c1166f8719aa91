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
        let eContent = try p.typedContent(fields, type: CMSObjectIdentifier.data, "data (1.2.840.113549.1.7.1)", "encapContentInfo")
        guard eContent.isOctetString else { throw ReceiptParseError("eContent must be one OCTET STRING") }
        if eContent.indefinite { p.usesIndefiniteLength = true }
        return try p.reader.octets(eContent)
    }
}
