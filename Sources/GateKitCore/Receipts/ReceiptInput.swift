import GateKitSupport

/// Receipt input as devices and files deliver it: DER/BER bytes, or their base64 text
/// (what apps send to servers), detected by content.
enum ReceiptInput {
    /// True when `input` is DER (a SEQUENCE within the size limit), false when it may be base64
    /// text; empty and oversized input is refused.
    static func isDER(_ input: UnsafeRawBufferPointer) throws(GateKitError) -> Bool {
        guard input.count > 0 else { throw GateKitError(.ERECEIPT_MALFORMED, "the receipt is empty") }
        let limit = ReceiptValidator.maximumInputSize
        guard input.count <= limit / 3 * 4 + 4096 else {
            throw GateKitError(.ETOOLARGE, "the receipt is \(input.count) bytes; the limit is \(limit)")
        }
        guard input[0] == 0x30 else { return false }
        guard input.count <= limit else { throw GateKitError(.ETOOLARGE, "the receipt is \(input.count) bytes; the limit is \(limit)") }
        return true
    }

    static func decode(_ input: UnsafeRawBufferPointer) throws(GateKitError) -> [UInt8] {
        if try isDER(input) { return Array(input) }
        guard looksLikeBase64(input) else {
            throw GateKitError(.ERECEIPT_MALFORMED, "the input is neither DER (starts with 0x\(Hex.encode([input[0]]))) nor base64 text")
        }
        guard let decoded = Base64.decode(input, alphabet: .standard) else {
            throw GateKitError(.ERECEIPT_MALFORMED, "the input looks like base64 text but does not decode")
        }
        guard decoded.first == 0x30 else {
            throw GateKitError(.ERECEIPT_MALFORMED, "the base64 text does not decode to a DER SEQUENCE (not a PKCS#7 receipt)")
        }
        return decoded
    }

    static func looksLikeBase64(_ input: UnsafeRawBufferPointer) -> Bool {
        for c in input {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                 0x20, 0x09, 0x0A, 0x0D:
                continue
            default:
                return false
            }
        }
        return true
    }
}
