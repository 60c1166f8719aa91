/// RFC 3339 parsing: never traps; a parsed instant formats back to text that parses to the
/// same instant (years 0000-9999, the range the formatter writes as 4 digits).
@Sendable func fuzzDate(_ bytes: UnsafeRawBufferPointer) {
    guard let ms = Timestamp.parseRFC3339(bytes) else { return }
    let civil = Timestamp.civil(milliseconds: ms)
    _ = Timestamp.spaced(ms)
    _ = Timestamp.weekday(days: Int(ms / 86_400_000))
    guard (0...9999).contains(civil.year) else { return }
    let text = Timestamp.rfc3339Milliseconds(ms)
    guard let again = Timestamp.parseRFC3339(Array(text.utf8)) else { fuzzFail("formatted date does not parse: \(text)") }
    guard again == ms else { fuzzFail("date round trip: \(ms) -> \(text) -> \(again)") }
}
