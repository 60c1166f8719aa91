import GateKitSupport

/// What a caller expects of a piece of signed data, checked after the signature.
public struct JWSOptions: Sendable {
    /// The app's bundle id; required.
    public var bundleID: String
    /// The app's Apple id; required in Production (nil: none).
    public var appAppleID: Int64?
    public var environment: AppStoreEnvironment
    /// Unix seconds at which to check the certificates (before 1970 when negative, as for
    /// receipts); nil: the payload's own signing date.
    public var verifyTime: Int64?
    /// DER of an extra trust anchor (Apple's test root, or the StoreKit Testing in Xcode
    /// certificate): test mode. Nil: only Apple Root CA - G3 is trusted.
    public var testAnchorDER: [UInt8]?
    /// Test only: accept test-signed data whose environment is Production. Without it such
    /// data fails with `.EJWS_TEST_SIGNED`, so test-signed data never passes as App Store data.
    public var allowTestSignedProduction: Bool
    /// Xcode and LocalTesting only: read the data without checking its signature, as Apple's
    /// verifier does in those environments (the App Store never signs such data). The bundle
    /// id and environment are still checked, and the result is marked test-signed, so it can
    /// never count as App Store data.
    public var readsUnsignedLocalData: Bool

    public init(bundleID: String, appAppleID: Int64?, environment: AppStoreEnvironment,
                verifyTime: Int64? = nil, testAnchorDER: [UInt8]? = nil,
                allowTestSignedProduction: Bool = false, readsUnsignedLocalData: Bool = false) throws(GateKitError) {
        guard !bundleID.isEmpty else { throw .invalid("bundle_id is empty") }
        if environment == .production && appAppleID == nil {
            throw .invalid("Production data is checked against the app's Apple ID: it is required (app_apple_id in Python and C, --app-apple-id in the tool)")
        }
        if let appAppleID, appAppleID <= 0 { throw .invalid("app_apple_id must be positive (0 means none)") }
        if let testAnchorDER, testAnchorDER.isEmpty { throw .invalid("test_anchor_der is empty") }
        if readsUnsignedLocalData {
            guard environment == .xcode || environment == .localTesting else {
                throw .invalid("unsigned local data is read in the Xcode and LocalTesting environments only, not \(environment.rawValue)")
            }
            guard testAnchorDER == nil else { throw .invalid("a test anchor and unsigned local data exclude each other: nothing would be verified against the anchor") }
        }
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.verifyTime = verifyTime
        self.testAnchorDER = testAnchorDER
        self.allowTestSignedProduction = allowTestSignedProduction
        self.readsUnsignedLocalData = readsUnsignedLocalData
    }
}
