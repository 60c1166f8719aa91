import GateKitSupport

/// Google's timestamps (protobuf Timestamp in JSON): RFC 3339 in UTC, "Z", with 0 to 9
/// fractional digits ("2026-01-01T00:00:00.123456789Z"), read as Unix milliseconds (the
/// digits past the millisecond are dropped toward the past). Nil for anything else: a
/// timestamp GateKit cannot read exactly is not guessed at. The one RFC 3339 reader
/// (`Timestamp.parseRFC3339`) reads it, after the form Google writes is checked: no offset, no
/// lower-case or space separator, no leap second, no more than nanoseconds.
package enum PlayTime {
    package static func milliseconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 30, b.last == UInt8(ascii: "Z"), b[10] == UInt8(ascii: "T"),
              !(b[17] == UInt8(ascii: "6") && b[18] == UInt8(ascii: "0")) else { return nil }
        return Timestamp.parseRFC3339(b)
    }
}
