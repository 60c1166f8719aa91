/// Base64 and base64url: decoding any bytes never traps; whatever decodes re-encodes to text
/// that decodes to the same bytes; the input bytes themselves round-trip through encode.
@Sendable func fuzzBase64(_ bytes: UnsafeRawBufferPointer) {
    for alphabet in [Base64.Alphabet.standard, .url] {
        if let decoded = Base64.decode(bytes, alphabet: alphabet) {
            let text = Base64.encode(decoded, alphabet: alphabet)
            guard Base64.decode(Array(text.utf8), alphabet: alphabet) == decoded else {
                fuzzFail("base64 re-encoding does not decode to the same bytes")
            }
        }
        let encoded = Base64.encode(bytes, alphabet: alphabet)
        guard let back = Base64.decode(Array(encoded.utf8), alphabet: alphabet), back.elementsEqual(bytes) else {
            fuzzFail("base64 encode/decode lost bytes (\(bytes.count) bytes)")
        }
    }
    if let hex = String(validating: bytes, as: UTF8.self) { _ = Hex.decode(hex) }
    _ = Hex.encode(bytes)
}
