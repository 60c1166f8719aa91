import CGateKitHeader
import Glibc
import GateKitAppStoreSigning
import GateKitSupport

/// What a `gatekit_appstore_key *` points at: the key, and its bearer tokens per lifetime.
final class AppStoreKeyHandle {
    let key: SigningKey
    private let lock = Lock()
    private var tokens: [Int64: APIToken] = [:]

    init(_ key: SigningKey) { self.key = key }

    static func from(_ p: OpaquePointer?) throws(GateKitError) -> AppStoreKeyHandle {
        guard let p else { throw .invalid("key is NULL") }
        return Unmanaged<AppStoreKeyHandle>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    func token(lifetime: Int64) throws(GateKitError) -> String {
        let minter = try lock.withLock { () throws(GateKitError) -> APIToken in
            if let existing = tokens[lifetime] { return existing }
            let made = try APIToken(key: key, lifetime: lifetime)
            tokens[lifetime] = made
            return made
        }
        return try minter.token()
    }
}

private func give(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ name: String,
                  _ make: () throws(GateKitError) -> String) throws(GateKitError) -> Int32 {
    let out = try Arguments.out(out, name)
    out.pointee = nil
    out.pointee = try Owned.cString(try make())
    return GATEKIT_OK
}

@c(appstore_key_load)
public func appstoreKeyLoad(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ pem: UnsafeRawPointer?, _ pemLen: Int,
                            _ keyID: UnsafePointer<CChar>?, _ issuerID: UnsafePointer<CChar>?, _ bundleID: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("appstore_key_load") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        guard pemLen >= 0 else { throw GateKitError(.ETOOLARGE, "pem_len \(UInt(bitPattern: pemLen)) is beyond any key") }
        let key = try SigningKey(pem: try Arguments.buffer(pem, pemLen, "pem"), keyID: try Arguments.string(keyID, "key_id"),
                                 issuerID: try Arguments.optionalString(issuerID, "issuer_id"), bundleID: try Arguments.string(bundleID, "bundle_id"))
        out.pointee = OpaquePointer(Unmanaged.passRetained(AppStoreKeyHandle(key)).toOpaque())
        return GATEKIT_OK
    }
}

@c(appstore_key_free)
public func appstoreKeyFree(_ key: OpaquePointer?) {
    guard let key else { return }
    Unmanaged<AppStoreKeyHandle>.fromOpaque(UnsafeRawPointer(key)).release()
}

@c(appstore_promotional_offer_signature)
public func appstorePromotionalOfferSignature(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ key: OpaquePointer?,
                                              _ product: UnsafePointer<CChar>?, _ offer: UnsafePointer<CChar>?,
                                              _ username: UnsafePointer<CChar>?, _ nonce: UnsafePointer<CChar>?, _ timestamp: Int64) -> Int32 {
    exportBoundary("appstore_promotional_offer_signature") { () throws(GateKitError) in
        try give(out, "out_base64") { () throws(GateKitError) in
            try PromotionalOfferSignature.create(productIdentifier: try Arguments.string(product, "product_identifier"),
                                                 subscriptionOfferID: try Arguments.string(offer, "subscription_offer_id"),
                                                 applicationUsername: try Arguments.string(username, "application_username"),
                                                 nonce: try Arguments.string(nonce, "nonce"), timestamp: timestamp,
                                                 key: try AppStoreKeyHandle.from(key).key)
        }
    }
}

@c(appstore_promotional_offer_v2_signature)
public func appstorePromotionalOfferV2Signature(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ key: OpaquePointer?,
                                                _ product: UnsafePointer<CChar>?, _ offer: UnsafePointer<CChar>?,
                                                _ transaction: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("appstore_promotional_offer_v2_signature") { () throws(GateKitError) in
        try give(out, "out_jws") { () throws(GateKitError) in
            try RequestSignatureCreator.promotionalOfferV2(productID: try Arguments.string(product, "product_id"),
                                                           offerIdentifier: try Arguments.string(offer, "offer_identifier"),
                                                           transactionID: try Arguments.optionalString(transaction, "transaction_id"),
                                                           key: try AppStoreKeyHandle.from(key).key)
        }
    }
}

@c(appstore_intro_eligibility_signature)
public func appstoreIntroEligibilitySignature(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ key: OpaquePointer?,
                                              _ product: UnsafePointer<CChar>?, _ allow: Int32, _ transaction: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("appstore_intro_eligibility_signature") { () throws(GateKitError) in
        guard allow == 0 || allow == 1 else { throw .invalid("allow_introductory_offer must be 0 or 1, not \(allow)") }
        return try give(out, "out_jws") { () throws(GateKitError) in
            try RequestSignatureCreator.introductoryOfferEligibility(productID: try Arguments.string(product, "product_id"),
                                                                     allowIntroductoryOffer: allow == 1,
                                                                     transactionID: try Arguments.string(transaction, "transaction_id"),
                                                                     key: try AppStoreKeyHandle.from(key).key)
        }
    }
}

/// Longest Advanced Commerce request accepted (Apple's requests are a few KB).
private let maximumRequestLength = 1 << 20

@c(appstore_advanced_commerce_signature)
public func appstoreAdvancedCommerceSignature(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ key: OpaquePointer?,
                                              _ requestJSON: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("appstore_advanced_commerce_signature") { () throws(GateKitError) in
        try give(out, "out_jws") { () throws(GateKitError) in
            guard let requestJSON else { throw .invalid("request_json is NULL") }
            let n = strnlen(requestJSON, maximumRequestLength + 1)
            guard n <= maximumRequestLength else { throw GateKitError(.ETOOLARGE, "request_json is longer than \(maximumRequestLength) bytes") }
            return try RequestSignatureCreator.advancedCommerceInApp(requestJSON: Array(UnsafeRawBufferPointer(start: requestJSON, count: n)),
                                                                     key: try AppStoreKeyHandle.from(key).key)
        }
    }
}

@c(appstore_api_token)
public func appstoreAPIToken(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ key: OpaquePointer?, _ lifetime: Int32) -> Int32 {
    exportBoundary("appstore_api_token") { () throws(GateKitError) in
        try give(out, "out_jwt") { () throws(GateKitError) in try AppStoreKeyHandle.from(key).token(lifetime: Int64(lifetime)) }
    }
}
