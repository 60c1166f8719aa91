/// RFC 5652 §3:
///
///     ContentInfo ::= SEQUENCE {
///       contentType ContentType,                          -- here id-signedData
///       content [0] EXPLICIT ANY DEFINED BY contentType }
///
/// The receipt is exactly one ContentInfo: bytes after it are refused.
enum ContentInfo {
    /// The SignedData element inside the ContentInfo that fills the input.
    static func signedData(_ p: inout CMSParse, inputCount: Int) throws(ReceiptParseError) -> BERElement {
        guard inputCount > 0 else { throw ReceiptParseError("empty input") }
        let contentInfo = try p.reader.element(at: 0, limit: inputCount)
        try p.expect(contentInfo, contentInfo.isSequence, "ContentInfo SEQUENCE")
        guard contentInfo.end == inputCount else {
            throw ReceiptParseError("\(inputCount - contentInfo.end) bytes of trailing garbage after the SignedData")
        }
        let fields = try p.children(contentInfo)
        guard fields.count == 2 else { throw ReceiptParseError("ContentInfo has \(fields.count) fields, expected 2") }
        return try p.typedContent(fields, type: CMSObjectIdentifier.signedData, "signedData (1.2.840.113549.1.7.2)", "ContentInfo")
    }
}
