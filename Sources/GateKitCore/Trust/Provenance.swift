import GateKitSupport

/// How a piece of signed data was accepted, carried with everything decoded from it.
public struct Provenance: Sendable, Equatable {
    /// Accepted under the caller's test anchor: never App Store data.
    public let isTestSigned: Bool
    /// The bytes the signature covers as content: what the identity hashes (on demand: a
    /// verification that never asks for it does not pay for the digest).
    public let signedContent: [UInt8]

    public init(isTestSigned: Bool, signedContent: [UInt8]) {
        self.isTestSigned = isTestSigned
        self.signedContent = signedContent
    }

    public func identity() throws(GateKitError) -> ReplayIdentity {
        try ReplayIdentity(signedContent: signedContent)
    }

    /// The member GateKit adds to the JSON of verified data, last:
    /// `"gatekit":{"version":1,"identity":"<64 hex>","testSigned":false}`. A member of that name
    /// in the signed data itself is dropped, so the marking cannot be forged from inside.
    public static let jsonMember = "gatekit"

    /// `{"version":1,"identity":"<64 hex>","testSigned":bool}`.
    public func json(identity: ReplayIdentity) -> JSONValue {
        .object([("version", .number(JSONDocument.version)), ("identity", .string(identity.hex)),
                 ("testSigned", .bool(isTestSigned))])
    }

    public func marking(_ json: JSONValue, identity: ReplayIdentity) -> JSONValue {
        guard case var .object(members) = json else { return json }
        members.removeAll { $0.0 == Provenance.jsonMember }
        members.append((Provenance.jsonMember, self.json(identity: identity)))
        return .object(members)
    }
}
