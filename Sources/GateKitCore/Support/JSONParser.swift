/// JSON as a tree (`JSONValue`), read strictly by `JSONTape` (its rules are there): for readers
/// that walk most of a document or keep parts of it.
public enum JSONParser {
    /// `allowingRepeatedNames`: for a reader that refuses them itself with an error of its own
    /// (signed data: `.EJWS_PAYLOAD_FIELD`).
    public static func parse<C: Collection>(_ bytes: C, allowingRepeatedNames: Bool = false) throws(GateKitError) -> JSONValue where C.Element == UInt8 {
        try JSONTape(bytes, allowingRepeatedNames: allowingRepeatedNames).value(JSONTape.root)
    }
}
