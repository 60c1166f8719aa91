import GateKitSupport

/// What Apple's `ReceiptUtility` does: find a transaction id in a receipt **without validating
/// it**, only to call the App Store Server API with (which then answers with signed data that
/// is verified). Never an entitlement decision.
public enum ReceiptUtility {
    /// The first in-app purchase's transaction id (its original transaction id when it has
    /// none) of an app receipt — DER, BER (Xcode) or base64 — or nil when it has no purchases.
    /// Malformed input is `GATEKIT_ERECEIPT_MALFORMED` / `_PAYLOAD`; no signature or trust check.
    public static func transactionID(appReceipt input: UnsafeRawBufferPointer) throws(GateKitError) -> String? {
        let der = try ReceiptInput.decode(input)
        let receipt = try der.withUnsafeBytes { raw in
            Result { () throws(GateKitError) -> Receipt in
                try ReceiptValidator.parsePayload(try ReceiptValidator.parseContainer(raw, lenient: true))
            }
        }.get()
        guard let first = receipt.purchases.first else { return nil }
        return first.transactionID ?? first.originalTransactionID
    }

    public static let maximumTransactionReceiptLength = 1 << 20

    /// The `transaction-id` of a legacy transaction receipt (iOS 6 style: base64 of an
    /// old-style plist whose `"purchase-info"` is itself base64 of a plist), or nil when it
    /// names none. Not validated: such receipts cannot be verified locally at all.
    public static func transactionID(transactionReceipt text: [UInt8]) throws(GateKitError) -> String? {
        guard text.count <= maximumTransactionReceiptLength else {
            throw GateKitError(.ETOOLARGE, "the transaction receipt is \(text.count) bytes; the limit is \(maximumTransactionReceiptLength)")
        }
        guard let outer = Base64.decode(text.filter { !isWhiteSpace($0) }, alphabet: .standard) else {
            throw GateKitError(.ERECEIPT_MALFORMED, "the transaction receipt is not base64 text")
        }
        guard let purchaseInfo = quotedValue(of: "purchase-info", in: outer) else { return nil }
        guard let inner = Base64.decode(purchaseInfo, alphabet: .standard) else { return nil }
        return quotedValue(of: "transaction-id", in: inner).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isWhiteSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The value in `"key" = "value";` (white space around `=` allowed, at least one as Apple's
    /// pattern requires), when the value is made of base64 characters only, as Apple matches it.
    static func quotedValue(of key: String, in text: [UInt8]) -> [UInt8]? {
        let needle = Array(("\"" + key + "\"").utf8)
        var i = 0
        while i + needle.count <= text.count {
            defer { i += 1 }
            guard text[i..<(i + needle.count)].elementsEqual(needle) else { continue }
            var j = i + needle.count
            let spacesBefore = j
            while j < text.count, isWhiteSpace(text[j]) { j += 1 }
            guard j > spacesBefore, j < text.count, text[j] == UInt8(ascii: "=") else { continue }
            j += 1
            let spacesAfter = j
            while j < text.count, isWhiteSpace(text[j]) { j += 1 }
            guard j > spacesAfter, j < text.count, text[j] == UInt8(ascii: "\"") else { continue }
            j += 1
            let start = j
            while j < text.count, isBase64(text[j]) { j += 1 }
            guard j > start, j + 1 < text.count, text[j] == UInt8(ascii: "\""), text[j + 1] == UInt8(ascii: ";") else { continue }
            return Array(text[start..<j])
        }
        return nil
    }

    private static func isBase64(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}
