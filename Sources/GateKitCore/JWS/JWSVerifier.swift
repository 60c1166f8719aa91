import GateKitCrypto
import GateKitSupport
import GateKitTrust

/// Verifies App Store signed data (StoreKit 2 / App Store Server JWS) and decodes it.
///
/// Steps, each failure its own code: compact JWS shape and `alg` ES256 (`CompactJWS`);
/// chain x5c[0] → x5c[1] → Apple Root CA - G3 (or the caller's test anchor) at the
/// verification time, with Apple's marker OIDs (`X5CChain`); the ES256 signature over
/// `header.payload` with the leaf key; then the bundle id / app Apple id / environment the
/// caller expects, per payload type as Apple's `SignedDataVerifier` checks them.
/// OCSP revocation checking is not done (offline verification, see docs/jws.md).
public enum JWSVerifier {
    public enum Kind: String, Sendable {
        case transaction, renewalInfo, notification, appTransaction, realtimeRequest
    }

    /// A verified notification with its nested signed data, each verified and decoded too.
    public struct VerifiedNotification: Sendable {
        public let notification: JWSNotification
        public let transaction: JWSTransaction?
        public let renewalInfo: JWSRenewalInfo?
        public let appTransaction: AppTransaction?
        /// The payload with `transactionInfo` / `renewalInfo` / `appTransactionInfo` (the decoded
        /// nested payloads) inserted after the signed strings they come from, each marked.
        public let json: JSONValue
        public let identity: ReplayIdentity
    }

    public static func verifyTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> JWSTransaction where C.Element == UInt8 {
        let (payload, provenance) = try verifiedPayload(text, kind: .transaction, options: options)
        var t = try JWSTransaction(json: payload)
        t.provenance = provenance
        try expect(bundleID: t.bundleId, options)
        try expect(environment: t.environment, options, field: "environment")
        try refuseTestSignedProduction(t.provenance, options)
        return t
    }

    public static func verifyRenewalInfo<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> JWSRenewalInfo where C.Element == UInt8 {
        let (payload, provenance) = try verifiedPayload(text, kind: .renewalInfo, options: options)
        var r = try JWSRenewalInfo(json: payload)
        r.provenance = provenance
        try expect(environment: r.environment, options, field: "environment")
        try refuseTestSignedProduction(r.provenance, options)
        return r
    }

    public static func verifyAppTransaction<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> AppTransaction where C.Element == UInt8 {
        let (payload, provenance) = try verifiedPayload(text, kind: .appTransaction, options: options)
        var a = try AppTransaction(json: payload)
        a.provenance = provenance
        try expect(bundleID: a.bundleId, options)
        try expect(appAppleID: a.appAppleId, options)
        try expect(environment: a.receiptType, options, field: "receiptType")
        try refuseTestSignedProduction(a.provenance, options)
        return a
    }

    /// A Retention Messaging realtime request: checked as Apple's
    /// `verify_and_decode_realtime_request` does — the app Apple id in Production, the
    /// environment (the payload names no bundle id).
    public static func verifyRealtimeRequest<C: Collection>(_ text: C, options: JWSOptions) throws(GateKitError) -> RealtimeRequest where C.Element == UInt8 {
        let (payload, provenance) = try verifiedPayload(text, kind: .realtimeRequest, options: options)
        var r = try RealtimeRequest(json: payload)
        r.provenance = provenance
        try expect(appAppleID: r.appAppleId, options)
        try expect(environment: r.environment, options, field: "environment")
        try refuseTestSignedProduction(r.provenance, options)
        return r
    }

    /// `withJSON` false: `json` is the payload as signed, without the decoded nested data and
    /// the marking (the ledger reads the typed values only, and skips building that tree).
    public static func verifyNotification<C: Collection>(_ text: C, options: JWSOptions, withJSON: Bool = true) throws(GateKitError) -> VerifiedNotification where C.Element == UInt8 {
        let (payload, provenance) = try verifiedPayload(text, kind: .notification, options: options)
        var n = try JWSNotification(json: payload)
        n.provenance = provenance
        let subject = n.subject
        try expect(bundleID: subject.bundleId, options)
        try expect(appAppleID: subject.appAppleId, options)
        try expect(environment: subject.environment, options, field: "environment")
        try refuseTestSignedProduction(provenance, options)

        var transaction: JWSTransaction?
        var renewal: JWSRenewalInfo?
        var appTransaction: AppTransaction?
        var json = payload
        // Unsigned local data (Xcode, LocalTesting) is read as Apple's verifier reads it: the
        // nested signed members stay as they are, for the caller to read one by one.
        if options.readsUnsignedLocalData {
            let identity = try provenance.identity()
            return VerifiedNotification(notification: n, transaction: nil, renewalInfo: nil, appTransaction: nil,
                                        json: withJSON ? provenance.marking(json, identity: identity) : json, identity: identity)
        }
        if let data = n.data {
            var dataJSON = payload["data"] ?? .null
            if let signed = data.signedTransactionInfo {
                let t = try nested("data.signedTransactionInfo") { () throws(GateKitError) in
                    try verifyTransaction(signed.utf8, options: options)
                }
                transaction = t
                if withJSON { dataJSON = inserting("transactionInfo", try marked(t.json, t.provenance), after: "signedTransactionInfo", in: dataJSON) }
            }
            if let signed = data.signedRenewalInfo {
                let r = try nested("data.signedRenewalInfo") { () throws(GateKitError) in
                    try verifyRenewalInfo(signed.utf8, options: options)
                }
                renewal = r
                if withJSON { dataJSON = inserting("renewalInfo", try marked(r.json, r.provenance), after: "signedRenewalInfo", in: dataJSON) }
            }
            if withJSON { json = replacing("data", with: dataJSON, in: json) }
        }
        if let appData = n.appData, let signed = appData.signedAppTransactionInfo {
            let a = try nested("appData.signedAppTransactionInfo") { () throws(GateKitError) in
                try verifyAppTransaction(signed.utf8, options: options)
            }
            appTransaction = a
            if withJSON {
                let appJSON = inserting("appTransactionInfo", try marked(a.json, a.provenance), after: "signedAppTransactionInfo", in: payload["appData"] ?? .null)
                json = replacing("appData", with: appJSON, in: json)
            }
        }
        let identity = try provenance.identity()
        return VerifiedNotification(notification: n, transaction: transaction, renewalInfo: renewal, appTransaction: appTransaction,
                                    json: withJSON ? provenance.marking(json, identity: identity) : json, identity: identity)
    }

    /// Any of the four kinds, verified: its JSON output (the payload plus GateKit's marking)
    /// and how it was accepted.
    public struct Verified: Sendable {
        /// The payload with GateKit's marking, as a value (answers that embed it use it as is).
        public let value: JSONValue
        public let isTestSigned: Bool
        public let identity: ReplayIdentity
        /// The same as compact JSON text.
        public var json: String { JSONWriter.serialize(value) }
    }

    public static func verify<C: Collection>(_ text: C, kind: Kind, options: JWSOptions) throws(GateKitError) -> Verified where C.Element == UInt8 {
        switch kind {
        case .transaction: return try verified(try verifyTransaction(text, options: options))
        case .renewalInfo: return try verified(try verifyRenewalInfo(text, options: options))
        case .appTransaction: return try verified(try verifyAppTransaction(text, options: options))
        case .realtimeRequest: return try verified(try verifyRealtimeRequest(text, options: options))
        case .notification:
            let n = try verifyNotification(text, options: options)  // its JSON is marked already
            guard let provenance = n.notification.provenance else { throw .internalError("verified data without provenance") }
            return Verified(value: n.json, isTestSigned: provenance.isTestSigned, identity: n.identity)
        }
    }

    private static func verified(_ payload: some SignedPayload) throws(GateKitError) -> Verified {
        guard let provenance = payload.provenance else { throw .internalError("verified data without provenance") }
        let identity = try provenance.identity()
        return Verified(value: provenance.marking(payload.json, identity: identity), isTestSigned: provenance.isTestSigned,
                        identity: identity)
    }

    /// Verifies any of the four kinds and returns the decoded payload as compact JSON text.
    public static func verifiedJSON<C: Collection>(_ text: C, kind: Kind, options: JWSOptions) throws(GateKitError) -> String where C.Element == UInt8 {
        try verify(text, kind: kind, options: options).json
    }

    private static func marked(_ json: JSONValue, _ provenance: Provenance?) throws(GateKitError) -> JSONValue {
        guard let provenance else { return json }
        return provenance.marking(json, identity: try provenance.identity())
    }

    // MARK: steps

    /// Shape, chain and signature: returns the payload only once Apple (or the test anchor)
    /// signed it, with how it was accepted.
    static func verifiedPayload<C: Collection>(_ text: C, kind: Kind, options: JWSOptions) throws(GateKitError) -> (JSONValue, Provenance) where C.Element == UInt8 {
        if options.readsUnsignedLocalData {  // Xcode / LocalTesting only (JWSOptions): never App Store data
            let (payload, bytes) = try CompactJWS.parseUnverified(text)
            try SignedKind.require(kind, payload)
            return (payload, Provenance(isTestSigned: true, signedContent: bytes))
        }
        let jws = try CompactJWS.parse(text)
        let time = verificationTime(jws.payload, options)
        let chain = try X5CChain.verifiedChain(jws.certificates, at: time, testAnchor: options.testAnchorDER)
        guard jws.signature.count == ES256.signatureLength, let der = ES256.derSignature(raw: jws.signature) else {
            throw GateKitError(.EJWS_SIGNATURE, "the signature is \(jws.signature.count) bytes; ES256 needs 64 (raw r‖s)")
        }
        guard chain.keyType == .ec, chain.isP256 else {
            throw GateKitError(.EJWS_SIGNATURE, "the signing certificate's key is not an EC P-256 key, so it cannot make ES256 signatures")
        }
        let ok = der.withUnsafeBytes { sig in
            jws.signingInput.withUnsafeBytes { message in
                chain.verifySignature(sig, over: message, digest: .sha256)
            }
        }
        guard ok else { throw GateKitError(.EJWS_SIGNATURE, "the ES256 signature does not verify with the key of \(Quoted.text(chain.leafSubject))") }
        try SignedKind.require(kind, jws.payload)
        return (jws.payload, Provenance(isTestSigned: chain.isTestAnchored, signedContent: jws.payloadBytes))
    }

    /// Test-signed data never passes as genuine: Production is App Store data by definition.
    /// Checked last, after the bundle id, app Apple id and environment, so data for another app
    /// or environment gets the same verdict Apple's verifier gives it.
    static func refuseTestSignedProduction(_ provenance: Provenance?, _ options: JWSOptions) throws(GateKitError) {
        guard let provenance, provenance.isTestSigned, options.environment == .production, !options.allowTestSignedProduction else { return }
        throw GateKitError(.EJWS_TEST_SIGNED, "the data is signed under the test anchor, so it cannot be accepted as Production data (a test that needs this says so: test_production=True in Python, --test-production in the tool, GATEKIT_JWS_TEST_PRODUCTION in C)")
    }

    /// The caller's time, else the payload's `signedDate` (`receiptCreationDate` for an
    /// AppTransaction), else now — the order Apple's verifier uses with online checks off.
    /// Read leniently: the payload is not verified yet, so a field of the wrong type must not
    /// pre-empt the signature's verdict (the typed decoding after the signature refuses it).
    static func verificationTime(_ payload: JSONValue, _ options: JWSOptions) -> Int64 {
        if let t = options.verifyTime { return t }
        guard let ms = payload["signedDate"]?.int64Value ?? payload["receiptCreationDate"]?.int64Value else {
            return Clock.nowMilliseconds() / 1000
        }
        // Floor to whole seconds (a negative date rounds down, never up into validity).
        return ms >= 0 ? ms / 1000 : -((-(ms &+ 1)) / 1000) &- 1
    }

    // MARK: expectations

    private static func expect(bundleID: String?, _ options: JWSOptions) throws(GateKitError) {
        guard bundleID == options.bundleID else {
            throw GateKitError(.EJWS_BUNDLE_ID, "bundleId is \(Quoted.text(bundleID)); expected \(Quoted.text(options.bundleID))")
        }
    }

    /// Apple checks the app Apple id only in Production (Sandbox data carries other ids).
    private static func expect(appAppleID: Int64?, _ options: JWSOptions) throws(GateKitError) {
        guard options.environment == .production else { return }
        guard appAppleID == options.appAppleID else {
            let got = appAppleID.map { String($0) } ?? "absent"
            let want = options.appAppleID.map { String($0) } ?? "none"
            throw GateKitError(.EJWS_APP_APPLE_ID, "appAppleId is \(got); expected \(want)")
        }
    }

    private static func expect(environment: String?, _ options: JWSOptions, field: String) throws(GateKitError) {
        guard environment == options.environment.rawValue else {
            throw GateKitError(.EJWS_ENVIRONMENT, "\(field) is \(Quoted.text(environment)); expected \"\(options.environment.rawValue)\"")
        }
    }

    private static func nested<T>(_ path: String, _ body: () throws(GateKitError) -> T) throws(GateKitError) -> T {
        do {
            return try body()
        } catch {
            throw GateKitError(error.code, "\(path): \(error.message)")
        }
    }

    // MARK: JSON output

    static func inserting(_ key: String, _ value: JSONValue, after anchor: String, in object: JSONValue) -> JSONValue {
        guard case var .object(members) = object else { return object }
        members.removeAll { $0.0 == key }
        let index = members.firstIndex { $0.0 == anchor }.map { $0 + 1 } ?? members.count
        members.insert((key, value), at: index)
        return .object(members)
    }

    static func replacing(_ key: String, with value: JSONValue, in object: JSONValue) -> JSONValue {
        guard case var .object(members) = object else { return object }
        for i in members.indices where members[i].0 == key {
            members[i].1 = value
        }
        return .object(members)
    }
}
