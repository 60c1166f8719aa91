/// The shape of every JSON document GateKit returns: an object whose "version" member says
/// which shape it is, so hosts can detect a change (members are only ever added within a
/// version). Lists come as `{"version":1,"<items>":[...]}`; verified data carries the version
/// in GateKit's own "gatekit" member, next to the signed members.
public enum JSONDocument {
    public static let version = 1

    /// `{"version":1,"<key>":[items]}`.
    public static func list(_ key: String, _ items: [JSONValue]) -> String {
        JSONWriter.serialize(.object([("version", .number(version)), (key, .array(items))]))
    }
}
