/// A UUID as text: 8-4-4-4-12 hexadecimal digits (either case), as Apple's APIs spell
/// nonces and identifiers.
package enum UUIDText {
    package static func isValid(_ text: String) -> Bool {
        var count = 0
        for b in text.utf8 {
            let dash = count == 8 || count == 13 || count == 18 || count == 23
            guard dash ? b == UInt8(ascii: "-") : Hex.value(b) != nil else { return false }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
    }
}
