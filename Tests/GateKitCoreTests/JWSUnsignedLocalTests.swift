import Testing
@testable import GateKitJWS
@testable import GateKitSupport

/// Xcode and LocalTesting data read without a signature check, as Apple's verifier reads it in
/// those environments: only on request, only there, always marked test-signed.
@Suite struct JWSUnsignedLocalTests {
    static func unsigned(_ payload: String, header: String = #"{"alg":"ES256","typ":"JWT"}"#) -> [UInt8] {
        Array((Base64.encode(Array(header.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url) + ".c2ln").utf8)
    }

    static let transaction = #"{"transactionId":"23456","bundleId":"com.example","productId":"p","environment":"LocalTesting","signedDate":1698148900000}"#

    @Test func isReadOnlyWhenAskedForAndMarkedTestSigned() throws {
        let local = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .localTesting, readsUnsignedLocalData: true)
        let verified = try JWSVerifier.verify(Self.unsigned(Self.transaction), kind: .transaction, options: local)
        #expect(verified.isTestSigned && verified.json.contains(#""transactionId":"23456""#))
        // Without the request, the same data has no certificate chain: malformed, never read.
        let strict = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .localTesting)
        #expect(throws: GateKitError.self) { try JWSVerifier.verify(Self.unsigned(Self.transaction), kind: .transaction, options: strict) }
        // The bundle id and environment are still the caller's.
        let other = try JWSOptions(bundleID: "com.other", appAppleID: nil, environment: .localTesting, readsUnsignedLocalData: true)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verify(Self.unsigned(Self.transaction), kind: .transaction, options: other) } == .EJWS_BUNDLE_ID)
        let xcode = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .xcode, readsUnsignedLocalData: true)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verify(Self.unsigned(Self.transaction), kind: .transaction, options: xcode) } == .EJWS_ENVIRONMENT)
        // Shape is still checked: three parts, JSON objects.
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verify(Array("a.b".utf8), kind: .transaction, options: local) } == .EJWS_MALFORMED)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verify(Self.unsigned("[1]"), kind: .transaction, options: local) } == .EJWS_MALFORMED)
    }

    @Test func onlyForEnvironmentsTheAppStoreNeverSigns() {
        for environment in [AppStoreEnvironment.sandbox, .production] {
            #expect(throws: GateKitError.self) {
                try JWSOptions(bundleID: "com.example", appAppleID: 1, environment: environment, readsUnsignedLocalData: true)
            }
        }
        #expect(throws: GateKitError.self) {
            try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .xcode, testAnchorDER: [0x30], readsUnsignedLocalData: true)
        }
    }

    @Test func aNotificationsNestedMembersStayAsTheyAre() throws {
        let notification = #"{"notificationType":"SUBSCRIBED","notificationUUID":"u","version":"2.0","signedDate":1698148900000,"data":{"bundleId":"com.example","environment":"LocalTesting","signedTransactionInfo":"signed_transaction_info_value"}}"#
        let local = try JWSOptions(bundleID: "com.example", appAppleID: nil, environment: .localTesting, readsUnsignedLocalData: true)
        let n = try JWSVerifier.verifyNotification(Self.unsigned(notification), options: local)
        #expect(n.transaction == nil)
        #expect(JSONWriter.serialize(n.json).contains(#""signedTransactionInfo":"signed_transaction_info_value""#))
    }
}
