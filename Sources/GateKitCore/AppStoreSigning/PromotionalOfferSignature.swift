import GateKitSupport

/// The promotional offer signature of StoreKit's original API ("version 1"): ECDSA P-256 /
/// SHA-256 over bundle id, key id, product id, offer id, application username (lowercased),
/// nonce (lowercased) and timestamp (ms), joined by U+2063 INVISIBLE SEPARATOR — base64 DER,
/// as Apple's `PromotionalOfferSignatureCreator` returns it.
public enum PromotionalOfferSignature {
    public static func create(productIdentifier: String, subscriptionOfferID: String, applicationUsername: String,
                              nonce: String, timestamp: Int64, key: SigningKey) throws(GateKitError) -> String {
        try RequestSignatureCreator.validate(productIdentifier, "product_identifier")
        try RequestSignatureCreator.validate(subscriptionOfferID, "subscription_offer_id")
        guard applicationUsername.utf8.count <= 1024 else { throw .invalid("application_username is longer than 1024 bytes") }
        guard UUIDText.isValid(nonce) else { throw .invalid("nonce must be a UUID (8-4-4-4-12 hex digits); make a new one for every signature") }
        guard timestamp > 0 else { throw .invalid("timestamp must be Unix milliseconds") }
        let separator = "\u{2063}"
        // A field holding the separator would shift the fields Apple reads: another offer signed.
        for (name, field) in [("product_identifier", productIdentifier), ("subscription_offer_id", subscriptionOfferID),
                              ("application_username", applicationUsername)] where field.unicodeScalars.contains("\u{2063}") {
            throw .invalid("\(name) contains U+2063 INVISIBLE SEPARATOR, which separates the signed fields")
        }
        let message = [key.bundleID, key.keyID, productIdentifier, subscriptionOfferID, applicationUsername.lowercased(),
                       nonce.lowercased(), String(timestamp)].joined(separator: separator)
        return Base64.encode(try key.signDER(Array(message.utf8)))
    }
}
