/* gatekit/appstore_sign.h — App Store signing (offline).
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_APPSTORE_SIGN_H
#define GATEKIT_APPSTORE_SIGN_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * App Store signing (offline)
 *
 * What Apple's App Store Server Library signs, with an App Store Connect private key (the .p8
 * file: PKCS#8 PEM, EC P-256), in C: the promotional offer signature of StoreKit's original
 * API, the signed requests of StoreKit (promotional offer V2, introductory-offer eligibility,
 * Advanced Commerce in-app requests) and the App Store Server API bearer token. Everything is
 * ES256 by OpenSSL; nothing leaves the machine. Details and Apple's matching names:
 * docs/appstore.md.
 *
 * A gatekit_appstore_key is immutable apart from its token cache: share it between threads.
 * Strings returned are freed with gatekit_free.
 * ====================================================================================== */

#define GATEKIT_EAPPSTORE_KEY       (-400)  /* the key is not a PKCS#8 PEM private key (encrypted keys are refused) */
#define GATEKIT_EAPPSTORE_KEY_TYPE  (-401)  /* a private key, but not EC P-256 */

typedef struct gatekit_appstore_key gatekit_appstore_key;

/* Loads a key: pem is the .p8 file's bytes (at most 64 KiB); key_id its id in App Store
 * Connect; issuer_id the issuer id of App Store Connect's Keys page (NULL when only
 * promotional offers V1 are signed); bundle_id the app's. *out is freed with
 * appstore_key_free. Errors: GATEKIT_EAPPSTORE_KEY, GATEKIT_EAPPSTORE_KEY_TYPE, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_key_load(gatekit_appstore_key **out, const void *pem, size_t pem_len, const char *key_id, const char *issuer_id, const char *bundle_id);

/* Frees a key. NULL is a no-op. */
GATEKIT_API void appstore_key_free(gatekit_appstore_key *key);

/* The promotional offer signature (StoreKit's original API, Apple's
 * PromotionalOfferSignatureCreator): base64 of the DER ECDSA signature over bundle id, key id,
 * product_identifier, subscription_offer_id, application_username (lowercased; "" allowed),
 * nonce (a UUID, lowercased) and timestamp_ms, joined by U+2063. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_promotional_offer_signature(char **out_base64, const gatekit_appstore_key *key, const char *product_identifier, const char *subscription_offer_id, const char *application_username, const char *nonce, long long timestamp_ms);

/* Signed requests (compact JWS, header {"alg":"ES256","kid":key id,"typ":"JWT"}; claims the
 * feature's own plus bid, iss, aud, iat and a fresh random nonce), as Apple's
 * PromotionalOfferV2SignatureCreator (aud "promotional-offer"; transaction_id may be NULL),
 * IntroductoryOfferEligibilitySignatureCreator (aud "introductory-offer-eligibility";
 * allow_introductory_offer 0 or 1) and AdvancedCommerceAPIInAppSignatureCreator (aud
 * "advanced-commerce-api"; request_json one JSON object, sent as the base64 of that text as given).
 * They need the key's issuer_id (GATEKIT_EINVAL without). */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_promotional_offer_v2_signature(char **out_jws, const gatekit_appstore_key *key, const char *product_id, const char *offer_identifier, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_intro_eligibility_signature(char **out_jws, const gatekit_appstore_key *key, const char *product_id, int allow_introductory_offer, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_advanced_commerce_signature(char **out_jws, const gatekit_appstore_key *key, const char *request_json);

/* The App Store Server API bearer token: an ES256 JWT with iss, iat, exp (iat + lifetime_s,
 * 1 to 3600; Apple refuses longer), aud "appstoreconnect-v1", bid; kid in the header. A token is
 * reused (per key and lifetime) until a quarter of its lifetime is left, so a busy client signs
 * about once per lifetime. Needs the key's issuer_id. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_api_token(char **out_jwt, const gatekit_appstore_key *key, int lifetime_s);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_APPSTORE_SIGN_H */
