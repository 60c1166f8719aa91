import GateKitSupport

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but not yet trusted:
/// `base64url(header) "." base64url(payload) "." base64url(signature)`.
///
/// Shape rules, each failure `.EJWS_MALFORMED` unless said otherwise: exactly three parts,
/// strict unpadded base64url, header and payload JSON objects, no `crit` header, `alg`
/// present (any value but "ES256" is `.EJWS_ALGORITHM`), `x5c` a non-empty array of
/// standard-base64 DER certificates.
public struct CompactJWS {
    /// Largest accepted input: a notification with two nested JWS is ~15 KB.
    public static let maximumLength = 1 << 20

    /// The ASCII bytes `header.payload`: what the signature covers.
    public let signingInput: [UInt8]
    public let header: JSONValue
    public let payload: JSONValue
    /// The payload's bytes as signed (base64url-decoded): what the replay identity hashes.
    public let payloadBytes: [UInt8]
    /// The x5c certificates as DER, leaf first.
    public let certificates: [[UInt8]]
    /// The decoded signature bytes (64 for a well-formed ES256 signature).
    public let signature: [UInt8]

    public static func parse<C: Collection>(_ text: C) throws(GateKitError) -> CompactJWS where C.Element == UInt8 {
        let (bytes, dots) = try split(text)
        let headerPart = bytes[0..<dots[0]]
        let payloadPart = bytes[(dots[0] + 1)..<dots[1]]
        let signaturePart = bytes[(dots[1] + 1)...]
        let key = SampledBytesKey(bytes: Array(headerPart))
        let parsed: JWSHeaderMemo.Entry
        if let memo = JWSHeaderMemo.shared.lookup(key) {
            parsed = memo
        } else {
            parsed = try parseHeader(headerPart)
            JWSHeaderMemo.shared.insert(key, parsed)
        }
        let (payload, payloadBytes) = try decodeObject(payloadPart, "payload")
        guard !signaturePart.isEmpty, let signature = Base64.decode(signaturePart, alphabet: .url) else {
            throw GateKitError(.EJWS_MALFORMED, signaturePart.isEmpty ? "the signature part is empty" : "the signature part is not strict base64url")
        }
        return CompactJWS(signingInput: Array(bytes[0..<dots[1]]), header: parsed.header, payload: payload, payloadBytes: payloadBytes,
                          certificates: parsed.certificates, signature: signature)
    }

    /// Data the App Store never signs (Xcode, LocalTesting) as Apple's verifier reads it in
    /// those environments: three parts, header and payload JSON objects; neither `alg`, `x5c`
    /// nor the signature is looked at. The payload and its bytes.
    public static func parseUnverified<C: Collection>(_ text: C) throws(GateKitError) -> (payload: JSONValue, payloadBytes: [UInt8]) where C.Element == UInt8 {
        let (bytes, dots) = try split(text)
        _ = try decodeObject(bytes[0..<dots[0]], "header")
        return try decodeObject(bytes[(dots[0] + 1)..<dots[1]], "payload")
    }

    /// The text's bytes and the offsets of its two dots.
    private static func split<C: Collection>(_ text: C) throws(GateKitError) -> ([UInt8], [Int]) where C.Element == UInt8 {
        guard text.count <= maximumLength else {
            throw GateKitError(.ETOOLARGE, "signed data is \(text.count) bytes; the limit is \(maximumLength)")
        }
        let bytes = Array(text)
        guard !bytes.isEmpty else { throw GateKitError(.EJWS_MALFORMED, "signed data is empty") }
        if let wrapper = wrappingMember(bytes) {
            throw GateKitError(.EJWS_MALFORMED, wrapper.isEmpty
                ? "this is a JSON document, not signed data (a compact JWS: three base64url parts joined by dots)"
                : "this is a JSON document holding signed data, not the signed data: pass the value of its \"\(wrapper)\" member (for a notification, the POST body's signedPayload)")
        }
        var dots: [Int] = []
        for (i, c) in bytes.enumerated() where c == UInt8(ascii: ".") {
            dots.append(i)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else {
            throw GateKitError(.EJWS_MALFORMED, dots.count < 2
                ? "not a compact JWS: expected 3 dot-separated parts, found \(dots.count + 1)"
                : "not a compact JWS: more than 3 dot-separated parts")
        }
        return (bytes, dots)
    }

    /// For a text that is a JSON object rather than a JWS: the member it carries signed data in
    /// — Apple's notification POST body {"signedPayload": …}, an API answer's
    /// signedTransactionInfo — or "" when it names none. nil: not JSON.
    private static func wrappingMember(_ bytes: [UInt8]) -> String? {
        guard bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else { return nil }
        let head = Array(bytes.prefix(4096))
        func holds(_ member: String) -> Bool {
            let quoted = Array("\"\(member)\"".utf8)
            return head.count >= quoted.count && (0...(head.count - quoted.count)).contains { head[$0..<($0 + quoted.count)].elementsEqual(quoted) }
        }
        return ["signedPayload", "signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo", "signedTransactions"]
            .first(where: holds) ?? ""
    }

    /// The header's shape rules; what passes is memoized by its exact text.
    private static func parseHeader(_ headerPart: ArraySlice<UInt8>) throws(GateKitError) -> JWSHeaderMemo.Entry {
        let (header, _) = try decodeObject(headerPart, "header")
        // The payloads' rule for the header too: a repeated member ("alg" twice) is refused.
        _ = try PayloadFields(header, path: "the header")
        if header["crit"] != nil { throw GateKitError(.EJWS_MALFORMED, "the header has a \"crit\" member, which is not supported") }
        guard let algMember = header["alg"] else { throw GateKitError(.EJWS_MALFORMED, "the header has no \"alg\"") }
        guard case let .string(alg) = algMember else { throw GateKitError(.EJWS_MALFORMED, "the header's \"alg\" is not a string") }
        guard alg == "ES256" else {
            throw GateKitError(.EJWS_ALGORITHM, "the header's alg is \(Quoted.text(alg)); only \"ES256\" is accepted")
        }
        guard let x5cMember = header["x5c"] else { throw GateKitError(.EJWS_MALFORMED, "the header has no \"x5c\" certificate chain") }
        guard case let .array(items) = x5cMember, !items.isEmpty else {
            throw GateKitError(.EJWS_MALFORMED, "the header's \"x5c\" is not a non-empty array")
        }
        guard items.count <= 8 else { throw GateKitError(.EJWS_CHAIN_LENGTH, "x5c has \(items.count) certificates; exactly 3 are required") }
        var certificates: [[UInt8]] = []
        certificates.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case let .string(text) = item, !text.isEmpty,
                  let der = Base64.decode(text.utf8, alphabet: .standard), !der.isEmpty else {
                throw GateKitError(.EJWS_MALFORMED, "x5c[\(i)] is not a base64 certificate")
            }
            certificates.append(der)
        }
        return JWSHeaderMemo.Entry(header: header, certificates: certificates)
    }

    private static func decodeObject(_ part: ArraySlice<UInt8>, _ name: String) throws(GateKitError) -> (JSONValue, [UInt8]) {
        guard !part.isEmpty else { throw GateKitError(.EJWS_MALFORMED, "the \(name) part is empty") }
        guard let json = Base64.decode(part, alphabet: .url) else {
            throw GateKitError(.EJWS_MALFORMED, "the \(name) part is not strict base64url")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(json, allowingRepeatedNames: true)  // refused by PayloadFields, as .EJWS_PAYLOAD_FIELD
        } catch {
            throw GateKitError(.EJWS_MALFORMED, "the \(name) is not JSON (\(error.message))")
        }
        guard case .object = value else { throw GateKitError(.EJWS_MALFORMED, "the \(name) is not a JSON object") }
        return (value, json)
    }
}
