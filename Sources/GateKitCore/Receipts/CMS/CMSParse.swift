/// The state of one SignedData parse shared by the per-type parsers: the reader, whether any
/// element used BER's indefinite length, and — in a lenient parse, for inspection only — what
/// validation would refuse, recorded instead of thrown.
struct CMSParse {
    let reader: BERReader
    let lenient: Bool
    var usesIndefiniteLength = false
    var refusals: [ReceiptParseError] = []

    init(_ bytes: UnsafeRawBufferPointer, lenient: Bool) {
        reader = BERReader(bytes)
        self.lenient = lenient
    }

    /// Checks that `element` passes `test` (it is what `what` names).
    mutating func expect(_ element: BERElement, _ test: Bool, _ what: String) throws(ReceiptParseError) {
        guard test else { throw ReceiptParseError("\(what) expected at offset \(element.start)") }
        if element.indefinite { usesIndefiniteLength = true }
    }

    mutating func children(_ element: BERElement) throws(ReceiptParseError) -> [BERElement] {
        if element.indefinite { usesIndefiniteLength = true }
        return try reader.children(of: element)
    }

    /// The one element inside `SEQUENCE { contentType OBJECT IDENTIFIER, [0] EXPLICIT content }`,
    /// the shape ContentInfo and EncapsulatedContentInfo share, after checking the type.
    mutating func typedContent(_ fields: [BERElement], type expected: [UInt8], _ typeName: String,
                               _ what: String) throws(ReceiptParseError) -> BERElement {
        try expect(fields[0], fields[0].isObjectIdentifier, "\(what) type OID")
        guard reader.contentEquals(fields[0], expected) else {
            throw ReceiptParseError("\(what) type is \(reader.oidText(fields[0])), not \(typeName)")
        }
        guard fields[1].isContext(0), fields[1].constructed else { throw ReceiptParseError("[0] \(what) content expected") }
        let inner = try children(fields[1])
        guard inner.count == 1 else { throw ReceiptParseError("[0] \(what) content must hold one element") }
        return inner[0]
    }

    /// A reason to refuse that does not stop parsing: thrown, or recorded when lenient.
    mutating func refuse(_ error: ReceiptParseError) throws(ReceiptParseError) {
        guard lenient else { throw error }
        refusals.append(error)
    }
}
