import GateKitCrypto
import GateKitSupport

/// A `Stripe-Signature` header as Stripe writes it (docs/stripe.md, "Webhook verification"):
/// `t=<Unix seconds>,v1=<hex>[,v1=<hex>…]`, one `v1` per signing secret while a secret rolls.
/// Other schemes are ignored: `v0` is the fake signature of Stripe's test events, and only `v1`
/// is trusted (no downgrade).
public struct StripeSignatureHeader: Sendable, Equatable {
    /// When Stripe signed this delivery (each attempt, retries included, is signed anew).
    public let timestamp: Int64
    /// Each `v1` signature's 32 bytes, one after another (one allocation for them all).
    let signatureBytes: [UInt8]

    /// Each `v1` signature's 32 bytes.
    public var signatures: [[UInt8]] {
        stride(from: 0, to: signatureBytes.count, by: 32).map { Array(signatureBytes[$0..<($0 + 32)]) }
    }

    public static let maximumLength = 8192
    public static let maximumSignatures = 16

    public init(_ header: String) throws(GateKitError) {
        var copy = header
        self = try copy.withUTF8 { bytes in
            Result { () throws(GateKitError) in try StripeSignatureHeader(bytes: UnsafeRawBufferPointer(bytes)) }
        }.get()
    }

    /// The header's bytes as received (a C caller's string, read in place).
    public init(bytes: UnsafeRawBufferPointer) throws(GateKitError) {
        func refused(_ why: String) -> GateKitError { GateKitError(.ESTRIPE_SIGNATURE_HEADER, "the Stripe-Signature header \(why)") }
        guard !bytes.isEmpty else { throw refused("is empty") }
        guard bytes.count <= StripeSignatureHeader.maximumLength else {
            throw refused("is over \(StripeSignatureHeader.maximumLength) bytes (Stripe's is about 150 per secret)")
        }
        var timestamp: Int64?
        var signatures: [UInt8] = []
        var sawV0 = false
        // Byte by byte: no String, no Set per delivery (verification is on every webhook's path).
        var itemStart = 0
        while itemStart <= bytes.count {
            let itemEnd = bytes[itemStart...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            let item = bytes[itemStart..<itemEnd]
            itemStart = itemEnd + 1
            guard let equals = item.firstIndex(of: UInt8(ascii: "=")), equals != item.startIndex else {
                throw refused("has \(Quoted.text(String(decoding: item.prefix(40), as: UTF8.self))), not a key=value pair")
            }
            let key = item[item.startIndex..<equals], value = item[(equals + 1)...]
            if key.elementsEqual("t".utf8) {
                guard timestamp == nil else { throw refused("names t= twice") }
                guard !value.isEmpty, value.count <= 12, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                    throw refused("has t=\(Quoted.text(String(decoding: value.prefix(40), as: UTF8.self))), not Unix seconds")
                }
                timestamp = value.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
            } else if key.elementsEqual("v1".utf8) {
                guard signatures.count < StripeSignatureHeader.maximumSignatures * 32 else {
                    throw refused("has more than \(StripeSignatureHeader.maximumSignatures) v1 signatures")
                }
                guard value.count == 64, Hex.decode(digits: value, appendingTo: &signatures) else {
                    throw refused("has a v1 that is not 64 hex digits (an HMAC-SHA256)")
                }
            } else if key.elementsEqual("v0".utf8) {
                sawV0 = true
            }
        }
        guard let timestamp else { throw refused("has no t= (when Stripe signed)") }
        guard !signatures.isEmpty else {
            throw refused(sawV0 ? "has only v0, the fake signature of Stripe's test events: GateKit trusts v1 only"
                                                 : "has no v1 signature")
        }
        self.timestamp = timestamp
        self.signatureBytes = signatures
    }

    /// Whether one of the `v1` signatures is `mac` (32 bytes), compared in constant time.
    func lists(_ mac: UnsafeRawBufferPointer) -> Bool {
        signatureBytes.withUnsafeBytes { all in
            var found = false
            for start in stride(from: 0, to: all.count, by: 32) where ConstantTime.equal(UnsafeRawBufferPointer(rebasing: all[start..<(start + 32)]), mac) {
                found = true
            }
            return found
        }
    }
}
