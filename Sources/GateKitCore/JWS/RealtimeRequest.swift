import GateKitSupport
import GateKitTrust

/// A decoded, verified Retention Messaging API request (`DecodedRealtimeRequestBody`): the App
/// Store asks the app's server which message to show a customer. `json` keeps every member.
public struct RealtimeRequest: SignedPayload {
    public let json: JSONValue
    /// How it was verified (test-signed or not, replay identity); nil when decoded unverified.
    public internal(set) var provenance: Provenance?
    /// The members GateKit reads, declared once (unknown members stay in `json`).
    public let fields: Fields

    public struct Fields: Decodable, Sendable {
        public let originalTransactionId: String?
        public let appAppleId: Int64?
        public let productId: String?
        public let userLocale: String?
        public let requestIdentifier: String?
        public let environment: String?
        public let signedDate: Int64?
    }

    public init(json: JSONValue, path: String = "realtimeRequest") throws(GateKitError) {
        self.json = json
        fields = try PayloadDecoder.decode(Fields.self, from: json, path: path)
    }
}
