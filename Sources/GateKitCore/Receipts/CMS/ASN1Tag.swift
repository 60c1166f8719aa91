/// Universal tag numbers (X.680 §8.4) by name, and the element tests the CMS and receipt
/// parsers use, so no parser compares against a bare 16, 17, 6, 2 or 4.
enum ASN1Tag {
    static let integer: UInt32 = 2
    static let octetString: UInt32 = 4
    static let objectIdentifier: UInt32 = 6
    static let utf8String: UInt32 = 12
    static let printableString: UInt32 = 19
    static let sequence: UInt32 = 16
    static let set: UInt32 = 17
    static let ia5String: UInt32 = 22
}

extension BERElement {
    var isSequence: Bool { isUniversal(ASN1Tag.sequence, constructed: true) }
    var isSet: Bool { isUniversal(ASN1Tag.set, constructed: true) }
    var isObjectIdentifier: Bool { isUniversal(ASN1Tag.objectIdentifier, constructed: false) }
    var isInteger: Bool { isUniversal(ASN1Tag.integer, constructed: false) }
    var isPrimitiveOctetString: Bool { isUniversal(ASN1Tag.octetString, constructed: false) }
    /// An OCTET STRING in either form (BER allows a constructed one made of segments).
    var isOctetString: Bool { tagClass == BERElement.universal && tagNumber == ASN1Tag.octetString }
}
