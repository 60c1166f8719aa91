/* gatekit/jws.h — StoreKit 2 and App Store Server signed data, and test data.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_JWS_H
#define GATEKIT_JWS_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Signed data (StoreKit 2 / App Store Server JWS)
 *
 * Apple signs StoreKit 2 data as compact JWS: Transaction and AppTransaction on the device,
 * App Store Server Notifications V2 and App Store Server API responses on servers. These
 * functions do what Apple's SignedDataVerifier does, offline:
 *   1. shape: three base64url parts (no padding, no white space), header "alg" exactly
 *      "ES256", "x5c" with exactly three certificates (leaf, intermediate, root);
 *   2. chain: x5c[0] -> x5c[1] -> Apple Root CA - G3 (pinned by SHA-256 fingerprint, built
 *      in; x5c[2] is never trusted), RFC 5280 path validation, leaf extension
 *      1.2.840.113635.100.6.11.1, intermediate extension 1.2.840.113635.100.6.2.1;
 *   3. time: certificates are checked at options->verify_time, or by default at the
 *      payload's own signedDate (AppTransaction: receiptCreationDate; now if absent);
 *   4. the ES256 signature (raw r||s) over "header.payload" with the leaf's key;
 *   5. the payload's bundle id, app Apple id (Production only) and environment against
 *      the options. Notifications take them from data, else summary, else
 *      externalPurchaseToken (Sandbox iff externalPurchaseId starts with "SANDBOX", else
 *      Production), else appData. Nested signed data in a notification
 *      (data.signedTransactionInfo, data.signedRenewalInfo, appData.signedAppTransactionInfo)
 *      is verified the same way and returned decoded.
 * OCSP revocation checking is not done: verification is offline (see docs/jws.md).
 *
 * Test mode: options->test_anchor_der names the one anchor trusted for that call instead
 * of Apple Root CA - G3: Apple's test root (their test chains, same length and OID rules),
 * or the certificate of StoreKit Testing in Xcode (x5c holds that one self-signed
 * certificate; pass exactly it). Without a test anchor, Xcode-signed data fails with
 * GATEKIT_EJWS_TEST_SIGNED: nothing is returned unverified unless the caller asks for
 * Xcode or LocalTesting data with GATEKIT_JWS_UNSIGNED_LOCAL (and it is marked test-signed). The shape rules are those
 * of production: three x5c certificates must be leaf -> intermediate -> test anchor with
 * Apple's OIDs (the anchor is never accepted as x5c[0] of three). Data accepted under a test
 * anchor is marked ("testSigned":true below, jws_is_test_signed()) and is refused as
 * Production data unless options->flags has the test-only GATEKIT_JWS_TEST_PRODUCTION.
 *
 * Output: *out_json is the payload exactly as signed (every member kept, unknown ones
 * included, numbers as their exact text: Xcode writes fractional milliseconds such as
 * 1697679936049.7297), plus, in notifications, the decoded nested payloads inserted as
 * "transactionInfo", "renewalInfo" and "appTransactionInfo" right after the signed strings,
 * plus one member GateKit adds last to every decoded object (nested ones included):
 *   "gatekit":{"identity":"<SHA-256 of the signed payload, 64 hex>","testSigned":false}
 * A member named "gatekit" in the signed payload itself is dropped. Hosts dedupe on
 * "identity" (see jws_identity()).
 *
 * Threads: every function may be called from any thread at once. Verified chains are
 * cached process-wide by their exact certificate bytes (bounded), so a repeated signer
 * costs one ES256 verification.
 * ====================================================================================== */

/* Signed data, JWS (-300 … -399). Each failure has its own code; gatekit_last_error()
 * names the field or certificate. Failures in nested signed data carry the nested code,
 * with the path (e.g. "data.signedTransactionInfo: ...") in the message. */
#define GATEKIT_EJWS_MALFORMED        (-300)  /* not 3 base64url parts / not JSON objects / no alg or x5c */
#define GATEKIT_EJWS_ALGORITHM        (-301)  /* header alg is not exactly "ES256" (none, HS256, RS256, ...) */
#define GATEKIT_EJWS_CHAIN_LENGTH     (-302)  /* x5c (or the built chain) is not exactly 3 certificates */
#define GATEKIT_EJWS_UNTRUSTED        (-303)  /* the chain does not lead to Apple Root CA - G3 (or the test anchor) */
#define GATEKIT_EJWS_LEAF_OID         (-304)  /* the leaf lacks extension 1.2.840.113635.100.6.11.1 */
#define GATEKIT_EJWS_INTERMEDIATE_OID (-305)  /* the intermediate lacks extension 1.2.840.113635.100.6.2.1 */
#define GATEKIT_EJWS_CERT_TIME        (-306)  /* a certificate is expired / not yet valid at the verification time */
#define GATEKIT_EJWS_SIGNATURE        (-307)  /* the ES256 signature does not verify (or is not 64 bytes) */
#define GATEKIT_EJWS_BUNDLE_ID        (-308)  /* the payload's bundle id is not options->bundle_id */
#define GATEKIT_EJWS_APP_APPLE_ID     (-309)  /* Production: the payload's appAppleId is not options->app_apple_id */
#define GATEKIT_EJWS_ENVIRONMENT      (-310)  /* the payload's environment / receiptType is not options->environment */
#define GATEKIT_EJWS_TEST_SIGNED      (-311)  /* test-signed where genuine data is required: Xcode-signed without a test anchor, or test-anchored data for Production */
#define GATEKIT_EJWS_CERTIFICATE      (-312)  /* an x5c certificate is not DER X.509 */
#define GATEKIT_EJWS_PAYLOAD_FIELD    (-313)  /* a known payload field has the wrong JSON type, or a header or payload member repeats */

#define GATEKIT_JWS_OPTIONS_VERSION 2u

/* Options flags (version 2). */
#define GATEKIT_JWS_TEST_PRODUCTION 0x1u  /* TEST ONLY: accept data signed under the test anchor
                                           * whose environment is Production. Without it such data
                                           * fails with GATEKIT_EJWS_TEST_SIGNED: test-signed data
                                           * never passes as App Store data by accident. */
#define GATEKIT_JWS_UNSIGNED_LOCAL  0x2u  /* environment Xcode or LocalTesting only (else
                                           * GATEKIT_EINVAL; not with a test anchor): read the
                                           * data without checking alg, x5c or the signature, as
                                           * Apple's verifier does in those environments, whose
                                           * data the App Store never signs. Bundle id and
                                           * environment are still checked; the result is marked
                                           * testSigned, so it never counts as App Store data. A
                                           * notification's nested signed members are left as
                                           * they are (not decoded), as Apple's verifier leaves them. */

/* What the caller expects of the signed data. Initialise with jws_options_init(), then set
 * the members; the struct is read during the call only (not retained). */
typedef struct gatekit_jws_options {
    unsigned int version;                 /* set by jws_options_init; GATEKIT_EVERSION if unknown */
    const char *bundle_id;                /* required: the app's bundle id */
    long long app_apple_id;               /* required for Production (checked there only); 0: none */
    const char *environment;              /* required: "Production", "Sandbox", "Xcode", "LocalTesting" */
    long long verify_time;                /* Unix seconds (negative: before 1970); 0: the payload's signedDate */
    const unsigned char *test_anchor_der; /* test mode only: DER of the test root or Xcode certificate; NULL: none */
    size_t test_anchor_len;               /* bytes at test_anchor_der (at most 65536) */
    unsigned int flags;                   /* version 2: GATEKIT_JWS_* flags above; 0: none */
} gatekit_jws_options;

/* Static initialiser: gatekit_jws_options o = GATEKIT_JWS_OPTIONS_INIT; */
#define GATEKIT_JWS_OPTIONS_INIT { .version = GATEKIT_JWS_OPTIONS_VERSION }

/* Sets *options to the defaults of `version` (pass GATEKIT_JWS_OPTIONS_VERSION): zeroes
 * exactly the members that version has and sets options->version, so a newer library never
 * writes past an older caller's struct. The library reads version 1 and 2 structs.
 * 0, GATEKIT_EINVAL (NULL) or GATEKIT_EVERSION (unknown version; nothing written). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_options_init(gatekit_jws_options *options, unsigned int version);

/* sizeof(gatekit_jws_options) of the newest version, for FFI hosts that build the struct. */
GATEKIT_API size_t jws_options_size(void);

/* Verify and decode one signed datum. jws: NUL-terminated compact JWS (at most 1 MiB,
 * else GATEKIT_ETOOLARGE). On success returns 0 and *out_json is the decoded payload (see
 * "Output" above), freed with gatekit_free(); on failure *out_json is NULL.
 * Errors: GATEKIT_EINVAL (NULL argument, bad options: missing bundle_id or environment,
 * unknown environment, Production without app_apple_id, test anchor not one DER
 * certificate), GATEKIT_EVERSION, GATEKIT_ETOOLARGE, GATEKIT_ENOMEM, GATEKIT_EJWS_*.
 *   transaction:     JWSTransactionDecodedPayload; checks bundleId and environment.
 *   renewal info:    JWSRenewalInfoDecodedPayload; checks environment.
 *   notification:    ResponseBodyV2DecodedPayload; checks bundle id, app Apple id
 *                    (Production) and environment as described above; nested data too.
 *   app transaction: AppTransaction; checks bundleId, appAppleId (Production) and
 *                    receiptType as the environment. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_transaction(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_renewal_info(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_notification(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_app_transaction(char **out_json, const char *jws, const gatekit_jws_options *options);

/* A Retention Messaging API realtime request (the `signedPayload` the App Store posts to the
 * app's server): verified as the others, then checked as Apple's
 * verify_and_decode_realtime_request does — appAppleId in Production, the environment (the
 * payload carries no bundle id, so options->bundle_id is not compared). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_realtime_request(char **out_json, const char *jws, const gatekit_jws_options *options);

/* Verified signed data with how it was accepted: one object for any of the five kinds.
 * Immutable; share it between threads; free it once with jws_free(). */
typedef struct gatekit_jws gatekit_jws;

#define GATEKIT_JWS_TRANSACTION      1
#define GATEKIT_JWS_RENEWAL_INFO     2
#define GATEKIT_JWS_NOTIFICATION     3
#define GATEKIT_JWS_APP_TRANSACTION  4
#define GATEKIT_JWS_REALTIME_REQUEST 5

/* Since 0.2.0. The app and environment a notification is about, from its decoded payload (payload_json:
 * a notification's JSON, as jws_verify_notification returns it, or as read before
 * verification to choose which app's options to verify it with — the verification then
 * checks it): *out_json = {"bundleId":…,"appAppleId":…,"environment":…} (null where the
 * payload has none), taken as Apple's verifier takes it: from data, else summary, else
 * externalPurchaseToken (Sandbox when its externalPurchaseId starts with "SANDBOX", else
 * Production), else appData. Errors: GATEKIT_EJWS_MALFORMED (not a JSON object),
 * GATEKIT_EJWS_PAYLOAD_FIELD (a known member of the wrong type), GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_notification_subject(char **out_json, const char *payload_json);

/* Since 0.2.0. Checks an x5c certificate chain on its own, by the rules of signed data: x5c_json is a
 * JSON array of standard-base64 DER certificates, leaf first ("x5c" of a JWS header); it must
 * chain leaf -> intermediate -> Apple Root CA - G3, or, with test_anchor_der, that test anchor
 * (the anchor as the single certificate too, as for Xcode), with Apple's OIDs, valid at
 * verify_time (Unix seconds; 0: now). On success *out_public_key_pem is the leaf's public key
 * ("-----BEGIN PUBLIC KEY-----", freed with gatekit_free). Errors: the GATEKIT_EJWS_* codes of
 * the chain (a certificate or test anchor that does not decode: GATEKIT_EJWS_CERTIFICATE;
 * not a JSON array: GATEKIT_EJWS_MALFORMED), GATEKIT_EINVAL for NULL arguments. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_chain(char **out_public_key_pem, const char *x5c_json,
                                                      const unsigned char *test_anchor_der, size_t test_anchor_len,
                                                      long long verify_time);

/* Verifies jws as `kind` (GATEKIT_JWS_TRANSACTION …) exactly as jws_verify_*() do. On success
 * *out is a new object (free with jws_free); on failure *out is NULL and the code is as for
 * jws_verify_*(), or GATEKIT_EINVAL for an unknown kind. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify(gatekit_jws **out, int kind, const char *jws, const gatekit_jws_options *options);

/* The decoded JSON, as jws_verify_*() return it; owned by the object. NULL for NULL. */
GATEKIT_API const char *jws_json(const gatekit_jws *signed_data);

/* The replay identity: SHA-256 of the signed payload bytes, 64 lowercase hex digits; owned
 * by the object. No change outside the signed payload (a high-S twin of the ECDSA signature,
 * another certificate chain) alters it: hosts dedupe signed data on it. NULL for NULL. */
GATEKIT_API const char *jws_identity(const gatekit_jws *signed_data);

/* 1 when accepted under options->test_anchor_der (never App Store data), 0 for data Apple
 * signed, GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_is_test_signed(const gatekit_jws *signed_data);

/* Frees the object. NULL is a no-op. */
GATEKIT_API void jws_free(gatekit_jws *signed_data);

/* Verifies a signed transaction exactly like jws_verify_transaction() and answers whether
 * it entitles the user at at_ms (Unix milliseconds; 0: now): 1 yes, 0 no, <0 an error
 * (nothing is entitled on error). No when: revoked (revocationDate or revocationReason set:
 * refunded or revoked purchases count as never made), upgraded away (isUpgraded), at_ms
 * before purchaseDate, at_ms at or after expiresDate, a consumable (type "Consumable"), a
 * transaction without productId or purchaseDate (it proves no purchase). Purchases without an
 * expiry (non-consumables) entitle from purchaseDate on. product_id: NULL for any product,
 * else the transaction's productId must equal it (0 otherwise). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_transaction_is_entitled(const char *jws, const gatekit_jws_options *options, const char *product_id, long long at_ms);

/* The same rule over a transaction the host verified before and kept decoded: payload_json is
 * a JWSTransactionDecodedPayload (the JSON jws_verify_transaction() or jws_json() gave; members
 * beyond Apple's are ignored). It VERIFIES NOTHING: it answers again, at another instant, from
 * data already verified; never pass it text a client sent. 1 yes, 0 no, <0 an error:
 * GATEKIT_EINVAL (NULL, over 16 MiB, not JSON, not UTF-8, at_ms negative),
 * GATEKIT_EJWS_PAYLOAD_FIELD (not an object, or a member of the wrong type). Since 0.1.0. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_transaction_payload_is_entitled(const char *payload_json, const char *product_id, long long at_ms);

/* Test data, for a host's own tests (docs/testing.md). jws_test_pki_create() makes a test PKI
 * shaped like Apple's StoreKit 2 chain in `directory` (created 0700 when absent; an existing
 * one must be this user's and writable by no one else): root.der (the test anchor),
 * intermediate.der and leaf.der with Apple's marker OIDs, leaf.key (PKCS#8 PEM), each 0600,
 * never over an existing file. Certificates are valid 2000-01-01 to 2100-01-01.
 * jws_test_sign() signs payload_json (a JSON object with Apple's field names, signed exactly as
 * given) as `kind` (GATEKIT_JWS_*) with that PKI: *out_jws is a compact JWS with x5c
 * [leaf, intermediate, root], freed with gatekit_free. It is first verified as `kind` under the
 * PKI's root with the bundle id, app Apple id and environment the payload names, so a payload
 * GateKit would refuse fails here with that reason (GATEKIT_EJWS_*). What these sign is
 * test-signed: it verifies only with root.der as options->test_anchor_der, is marked
 * "testSigned":true, and is refused as Production data. Errors: GATEKIT_EINVAL, GATEKIT_EIO
 * (a file exists, cannot be written or read), GATEKIT_EUNSAFE (another user could write the
 * folder or a file), GATEKIT_ENOTFOUND (no PKI there), GATEKIT_ETOOLARGE (payload over 1 MiB). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_test_pki_create(const char *directory);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_test_sign(char **out_jws, const char *pki_directory, int kind, const char *payload_json);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_JWS_H */
