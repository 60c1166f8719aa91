import GateKitSupport

/// Decodes signed-data payload models declared as plain `Decodable` structs of optional
/// members (each field name written once, as its property), strictly, through `PayloadFields`:
/// a repeated member anywhere is refused, a member of the wrong JSON type is
/// `.EJWS_PAYLOAD_FIELD` naming its path, `null` reads as absent, unknown members are ignored
/// (the model's `json` keeps them). Supported member types: `String`, `Int64` (a fractional
/// value — Xcode's milliseconds — truncates), `Bool`, `[String]`, `JSONValue` (an object kept as
/// JSON) and nested models.
enum PayloadDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue, path: String) throws(GateKitError) -> T {
        do {
            return try T(from: ObjectDecoder(fields: try PayloadFields(json, path: path)))
        } catch let error as GateKitError {
            throw error
        } catch {
            throw GateKitError(.EINTERNAL, "\(path): the payload model cannot be decoded (\(error))")
        }
    }
}

extension JSONValue: Decodable {
    /// Only PayloadDecoder decodes a JSONValue (it hands over the member as it is).
    public init(from decoder: Decoder) throws {
        throw GateKitError(.EINTERNAL, "JSONValue decodes only through PayloadDecoder")
    }
}

private struct ObjectDecoder: Decoder {
    let fields: PayloadFields
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Members<Key>(fields: fields))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        throw GateKitError(.EINTERNAL, "\(fields.path): a payload model is an object")
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        throw GateKitError(.EINTERNAL, "\(fields.path): a payload model is an object")
    }
}

private struct Members<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: PayloadFields
    var codingPath: [CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { (try? decodeNil(forKey: key)) == false }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let v = fields.object[key.stringValue] else { return true }
        return v == .null
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try fields.string(key.stringValue) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try fields.int(key.stringValue) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try fields.bool(key.stringValue) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let name = key.stringValue
        if T.self == [String].self { return try fields.strings(name) as? T }
        if T.self == JSONValue.self { return try fields.object(name) as? T }
        guard let nested = try fields.fields(name) else { return nil }
        return try T(from: ObjectDecoder(fields: nested))
    }

    // Every model member is optional; a required one is a declaration error, reported as such.
    private func required<T>(_ value: T?, _ key: Key) throws -> T {
        guard let value else { throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(fields.path).\(key.stringValue) is missing") }
        return value
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(decodeIfPresent(type, forKey: key), key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try required(decodeIfPresent(type, forKey: key), key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(decodeIfPresent(type, forKey: key), key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try required(decodeIfPresent(type, forKey: key), key) }

    private func unsupported(_ type: Any.Type, _ key: Key) -> GateKitError {
        GateKitError(.EINTERNAL, "\(fields.path).\(key.stringValue): payload models use String, Int64, Bool, [String], JSONValue or a model, not \(type)")
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw unsupported(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unsupported(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw unsupported(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw unsupported(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw unsupported(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw unsupported(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw unsupported(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unsupported(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unsupported(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unsupported(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unsupported(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard let nested = try fields.fields(key.stringValue) else { throw GateKitError(.EJWS_PAYLOAD_FIELD, "\(fields.path).\(key.stringValue) is missing") }
        return KeyedDecodingContainer(Members<NestedKey>(fields: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { throw unsupported(UnkeyedDecodingContainer.self, key) }
    func superDecoder() throws -> Decoder { ObjectDecoder(fields: fields) }
    func superDecoder(forKey key: Key) throws -> Decoder { throw unsupported(Decoder.self, key) }
}
