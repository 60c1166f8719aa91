import GateKitSupport
import GateKitTrust

/// What every decoded payload of signed data is: the JSON exactly as signed, how it was
/// accepted, and the members GateKit reads, declared once as a `Decodable` `Fields` struct.
/// `payload.productId` reads `payload.fields.productId`.
@dynamicMemberLookup
public protocol SignedPayload: Sendable {
    associatedtype Fields: Decodable, Sendable
    var json: JSONValue { get }
    var provenance: Provenance? { get }
    var fields: Fields { get }
}

extension SignedPayload {
    public subscript<T>(dynamicMember member: KeyPath<Fields, T>) -> T { fields[keyPath: member] }
}
