/// The strict JSON parser: any bytes either fail with a GateKitError or give a value that
/// survives serialize → parse unchanged; a tape of them finds each member the tree holds.
@Sendable func fuzzJSON(_ bytes: UnsafeRawBufferPointer) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    let text = JSONWriter.serialize(value)
    guard let again = try? JSONParser.parse(Array(text.utf8)) else { fuzzFail("serialized JSON does not parse: \(text.prefix(200))") }
    guard again == value else { fuzzFail("JSON round trip changed the value: \(text.prefix(200))") }
    guard let tape = try? JSONTape(bytes) else { fuzzFail("a document the parser took is refused as a tape") }
    // Accessors used on untrusted payloads must not trap either.
    if case let .object(members) = value {
        for (key, member) in members {
            guard let at = tape.member(key), tape.value(at) == member else { fuzzFail("the tape's member \(key.prefix(80)) is not the tree's") }
            _ = (tape.string(at), tape.int64(at), tape.bool(at), tape.stringBytes(at), tape.member(key, of: at))
            _ = value[key]
            _ = member.int64Value
            _ = member.doubleValue
            _ = member.stringValue
            _ = member.boolValue
        }
    }
}
