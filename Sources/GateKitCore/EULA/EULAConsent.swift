import Glibc
import GateKitSupport

/// How a decision was given, as the host tells it (GDPR Art. 7(1): the controller must be able
/// to show how consent was obtained). Stored with the decision in the append-only history and
/// never interpreted: GateKit only checks that each part is well-formed and bounded.
public struct EULAConsent: Equatable, Sendable {
    public enum Method: Int64, CaseIterable, Sendable {
        case clickThrough = 1
        case cliFlag = 2
        case environment = 3
        case api = 4
        case admin = 5

        public var name: String {
            switch self {
            case .clickThrough: "click-through"
            case .cliFlag: "cli-flag"
            case .environment: "environment"
            case .api: "api"
            case .admin: "admin"
            }
        }

        public init?(name: String) {
            guard let method = Method.allCases.first(where: { $0.name == name }) else { return nil }
            self = method
        }
    }

    public static let maximumUserAgentBytes = 1024
    public static let maximumLocaleBytes = 35
    public static let maximumMetadataPairs = 32
    public static let maximumKeyBytes = 64
    public static let maximumValueBytes = 1024

    public var method: Method?
    /// An IPv4 or IPv6 address, kept in its canonical text (inet_ntop).
    public var clientAddress: String?
    public var userAgent: String?
    /// A BCP 47 language tag as the host gave it ("de-AT").
    public var locale: String?
    /// Free key/value pairs in the host's order; keys unique.
    public var metadata: [(key: String, value: String)]

    public init(method: Method? = nil, clientAddress: String? = nil, userAgent: String? = nil, locale: String? = nil,
                metadata: [(key: String, value: String)] = []) {
        self.method = method
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.locale = locale
        self.metadata = metadata
    }

    public static let none = EULAConsent()

    public static func == (a: EULAConsent, b: EULAConsent) -> Bool {
        a.method == b.method && a.clientAddress == b.clientAddress && a.userAgent == b.userAgent && a.locale == b.locale
            && a.metadata.elementsEqual(b.metadata) { $0.key == $1.key && $0.value == $1.value }
    }

    /// The consent as stored: every part checked, the address in canonical form. Errors name
    /// the part that is wrong.
    public func validated() throws(GateKitError) -> EULAConsent {
        var out = self
        if let clientAddress { out.clientAddress = try EULAConsent.canonicalAddress(clientAddress) }
        if let userAgent {
            guard !userAgent.isEmpty else { throw .invalid("user_agent is empty (NULL: not known)") }
            guard userAgent.utf8.count <= EULAConsent.maximumUserAgentBytes else {
                throw GateKitError(.ETOOLARGE, "user_agent is \(userAgent.utf8.count) bytes; at most \(EULAConsent.maximumUserAgentBytes)")
            }
        }
        if let locale { try EULAConsent.validate(locale: locale) }
        guard metadata.count <= EULAConsent.maximumMetadataPairs else {
            throw GateKitError(.ETOOLARGE, "metadata has \(metadata.count) pairs; at most \(EULAConsent.maximumMetadataPairs)")
        }
        var keys = Set<String>()
        for (key, value) in metadata {
            guard !key.isEmpty else { throw .invalid("a metadata key is empty") }
            guard key.utf8.count <= EULAConsent.maximumKeyBytes else {
                throw GateKitError(.ETOOLARGE, "metadata key \(Quoted.text(key)) is \(key.utf8.count) bytes; at most \(EULAConsent.maximumKeyBytes)")
            }
            guard value.utf8.count <= EULAConsent.maximumValueBytes else {
                throw GateKitError(.ETOOLARGE, "metadata \(Quoted.text(key)) is \(value.utf8.count) bytes; at most \(EULAConsent.maximumValueBytes)")
            }
            guard keys.insert(key).inserted else { throw .invalid("metadata key \(Quoted.text(key)) is given twice") }
        }
        return out
    }

    /// An IPv4 or IPv6 literal in inet_ntop's canonical spelling; anything else is refused (a
    /// host name or "unknown" is not an address a record can rely on).
    static func canonicalAddress(_ text: String) throws(GateKitError) -> String {
        guard !text.utf8.contains(0) else { throw .invalid("client_address holds a NUL byte") }
        // in6_addr is large enough for either family's binary form.
        var binary = in6_addr()
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        for family in [AF_INET, AF_INET6] where inet_pton(family, text, &binary) == 1 {
            guard inet_ntop(family, &binary, &buffer, socklen_t(buffer.count)) != nil else { break }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        throw .invalid("client_address \(Quoted.text(text)) is not an IPv4 or IPv6 address")
    }

    /// BCP 47's shape: a 2-8 letter language subtag, then subtags of 1-8 letters or digits.
    static func validate(locale: String) throws(GateKitError) {
        let subtags = locale.split(separator: "-", omittingEmptySubsequences: false)
        let wellFormed = locale.utf8.count <= maximumLocaleBytes
            && (subtags.first.map { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isLetter } } ?? false)
            && subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        guard wellFormed else { throw .invalid("locale \(Quoted.text(locale)) is not a BCP 47 language tag (like \"de-AT\")") }
    }

    /// The metadata as a JSON object in the host's order.
    var metadataObject: JSONValue { .object(metadata.map { ($0.key, .string($0.value)) }) }

    /// The metadata as stored.
    var metadataJSON: String? { metadata.isEmpty ? nil : JSONWriter.serialize(metadataObject) }

    /// Reads what `metadataJSON` wrote.
    static func metadata(fromJSON text: String?) -> [(key: String, value: String)] {
        guard let text, case let .object(members)? = try? JSONParser.parse(Array(text.utf8)) else { return [] }
        return members.compactMap { key, value in
            if case let .string(s) = value { (key, s) } else { nil }
        }
    }

    /// The history entry's members for the parts that were given.
    var jsonMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let method { members.append(("method", .string(method.name))) }
        if let clientAddress { members.append(("client_address", .string(clientAddress))) }
        if let userAgent { members.append(("user_agent", .string(userAgent))) }
        if let locale { members.append(("locale", .string(locale))) }
        if !metadata.isEmpty { members.append(("metadata", metadataObject)) }
        return members
    }
}
