import COpenSSL
import GateKitCrypto
import GateKitJWS
import GateKitSupport

/// Signs App Store data with a test PKI (`TestPKI`): a compact JWS whose header is
/// `{"alg":"ES256","x5c":[leaf, intermediate, root]}` as Apple's are, over the caller's
/// payload exactly as given. Before it is returned the result is verified as `kind` under the
/// PKI's root, with the bundle id, app Apple id and environment the payload itself names, so
/// what a test signs is what GateKit accepts in test mode — and only there: it is test-signed.
public enum TestSigner {
    /// Largest payload signed (a notification with nested signed data is a few KiB).
    public static let maximumPayloadLength = 1 << 20

    public static func sign<C: Collection>(payload: C, kind: JWSVerifier.Kind, pki directory: String) throws(GateKitError) -> String where C.Element == UInt8 {
        guard payload.count <= maximumPayloadLength else {
            throw GateKitError(.ETOOLARGE, "the payload is \(payload.count) bytes; at most \(maximumPayloadLength) are signed")
        }
        let bytes = Array(payload)
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw GateKitError(.EJWS_MALFORMED, "the payload is not JSON: \(error.message)")
        }
        guard case .object = json else { throw GateKitError(.EJWS_PAYLOAD_FIELD, "the payload is not a JSON object") }
        try requireShape(of: json, kind: kind)
        let files = try TestPKI.load(from: directory)
        let key: OpaquePointer
        switch files.keyPEM.withUnsafeBytes({ ES256.privateKey(pem: $0) }) {
        case let .success(loaded): key = loaded
        case .failure:
            throw GateKitError.invalid("\(Quoted.path(directory + "/" + TestPKI.keyFile)) is not the PKCS#8 PEM P-256 key a test PKI holds")
        }
        defer { EVP_PKEY_free(key) }

        let header = JSONValue.object([
            ("alg", .string("ES256")),
            ("x5c", .array([files.leaf, files.intermediate, files.root].map { .string(Base64.encode($0)) })),
        ])
        let input = Base64.encode(Array(JSONWriter.serialize(header).utf8), alphabet: .url) + "." + Base64.encode(bytes, alphabet: .url)
        let signature = try ES256.signRaw(Array(input.utf8), key: key)
        let jws = input + "." + Base64.encode(signature, alphabet: .url)

        do {
            _ = try JWSVerifier.verify(Array(jws.utf8), kind: kind, options: try options(for: json, kind: kind, anchor: files.root))
        } catch {
            throw GateKitError(error.code, "the signed \(kind.rawValue) would not verify under the test PKI: \(error.message)")
        }
        return jws
    }

    /// Members every payload of the kind carries (Apple's decoded payloads, and what the ledger
    /// needs), so a payload of one kind is not signed as another.
    static let requiredMembers: [JWSVerifier.Kind: [String]] = [
        .transaction: ["transactionId", "originalTransactionId", "bundleId", "productId", "purchaseDate", "type", "signedDate", "environment"],
        .notification: ["notificationType", "notificationUUID", "signedDate"],
        .appTransaction: ["bundleId", "receiptType", "originalApplicationVersion"],
        .realtimeRequest: ["requestIdentifier", "environment"],
    ]

    private static func requireShape(of json: JSONValue, kind: JWSVerifier.Kind) throws(GateKitError) {
        if kind == .renewalInfo { return try SignedKind.requireRenewalInfo(json, path: "the payload") }
        for member in requiredMembers[kind] ?? [] where json[member] == nil || json[member] == .null {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "the payload lacks \(member), which every \(kind.rawValue) has")
        }
    }

    /// What the payload says it is: its bundle id, app Apple id and environment.
    private static func options(for json: JSONValue, kind: JWSVerifier.Kind, anchor: [UInt8]) throws(GateKitError) -> JWSOptions {
        let subject: (bundleId: String?, appAppleId: Int64?, environment: String?)
        switch kind {
        case .notification: subject = try JWSNotification(json: json).subject
        case .appTransaction: subject = (json["bundleId"]?.stringValue, json["appAppleId"]?.int64Value, json["receiptType"]?.stringValue)
        default: subject = (json["bundleId"]?.stringValue, json["appAppleId"]?.int64Value, json["environment"]?.stringValue)
        }
        guard let name = subject.environment else {
            let member = kind == .appTransaction ? "receiptType" : kind == .notification ? "data.environment" : "environment"
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "the payload names no \(member) (Production, Sandbox, Xcode or LocalTesting)")
        }
        guard let environment = AppStoreEnvironment(rawValue: name) else {
            throw GateKitError(.EJWS_PAYLOAD_FIELD, "the payload's environment is \(Quoted.text(name)); Apple spells it Production, Sandbox, Xcode or LocalTesting")
        }
        // A renewal info and a realtime request name no bundle id, and transactions no app id:
        // the verifier does not compare what the kind does not carry.
        let bundleID = subject.bundleId ?? "test.payload.without.bundle.id"
        let appAppleID = subject.appAppleId ?? (environment == .production ? 1 : nil)
        return try JWSOptions(bundleID: bundleID, appAppleID: appAppleID, environment: environment, testAnchorDER: anchor,
                              allowTestSignedProduction: true)
    }
}
