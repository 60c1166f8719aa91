/* gatekit/receipt.h — App Store receipts.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_RECEIPT_H
#define GATEKIT_RECEIPT_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * App Store receipts
 *
 * receipt_validate() decides whether bytes are a genuine App Store receipt for your app:
 * PKCS#7 SignedData (DER or BER, raw or base64 text), RSA signature over the payload, chain
 * leaf (OID 1.2.840.113635.100.6.11.1) -> WWDR intermediate (1.2.840.113635.100.6.2.1) ->
 * Apple Inc. Root CA pinned by SHA-256 in the library, exactly three certificates, validity
 * checked at the receipt's creation date (attribute 12) unless verify_time says otherwise,
 * then bundle id, optional app version and device hash. Xcode (StoreKit testing) receipts
 * pass only when the caller supplies test_anchor_der, and never as App Store receipts.
 * The first failing check decides the code; gatekit_last_error() has the precise reason.
 * receipt_apple_status() maps a code onto verifyReceipt's status numbers.
 *
 * A gatekit_receipt is immutable: share it between threads freely; free it once.
 * Strings returned by accessors are owned by the receipt and valid until receipt_free().
 * Field ids are Apple's attribute type numbers (GATEKIT_RECEIPT_* / GATEKIT_IAP_* below).
 * ====================================================================================== */

#define GATEKIT_ERECEIPT_MALFORMED           (-100)  /* receipt is not a PKCS#7 SignedData receipt (malformed); Apple 21002 */
#define GATEKIT_ERECEIPT_PAYLOAD             (-101)  /* receipt payload is malformed; Apple 21002 */
#define GATEKIT_ERECEIPT_ALGORITHM           (-102)  /* receipt uses an unsupported algorithm; Apple 21002 */
#define GATEKIT_ERECEIPT_SIGNED_ATTRS        (-103)  /* receipt signer has signed attributes (not an Apple receipt); Apple 21003 */
#define GATEKIT_ERECEIPT_NO_SIGNER           (-104)  /* receipt signer certificate is not in the receipt; Apple 21003 */
#define GATEKIT_ERECEIPT_SIGNATURE           (-105)  /* receipt signature does not verify; Apple 21003 */
#define GATEKIT_ERECEIPT_UNTRUSTED           (-106)  /* receipt does not chain to the trusted root; Apple 21003 */
#define GATEKIT_ERECEIPT_CHAIN_LENGTH        (-107)  /* receipt certificate chain has the wrong length; Apple 21003 */
#define GATEKIT_ERECEIPT_LEAF_OID            (-108)  /* receipt signer certificate lacks Apple's receipt-signing OID; Apple 21003 */
#define GATEKIT_ERECEIPT_INTERMEDIATE_OID    (-109)  /* receipt intermediate certificate lacks Apple's WWDR OID; Apple 21003 */
#define GATEKIT_ERECEIPT_CERT_TIME           (-110)  /* receipt certificate not valid at the verification time; Apple 21003 */
#define GATEKIT_ERECEIPT_WEAK_DIGEST         (-111)  /* receipt uses SHA-1 where SHA-256 is required; Apple 21003 */
#define GATEKIT_ERECEIPT_CERT_SIGNATURE      (-112)  /* receipt certificate signature does not verify; Apple 21003 */
#define GATEKIT_ERECEIPT_CHAIN               (-113)  /* receipt certificate chain is invalid; Apple 21003 */
#define GATEKIT_ERECEIPT_BAD_CERT            (-114)  /* receipt contains an undecodable certificate; Apple 21003 */
#define GATEKIT_ERECEIPT_BUNDLE_ID           (-115)  /* receipt is for another bundle id; Apple 21003 */
#define GATEKIT_ERECEIPT_APP_VERSION         (-116)  /* receipt is for another app version; Apple 21003 */
#define GATEKIT_ERECEIPT_DEVICE_HASH         (-117)  /* receipt device hash does not match the device id; Apple 21003 */
#define GATEKIT_ERECEIPT_XCODE               (-118)  /* Xcode (StoreKit testing) receipt refused; Apple 21003 */
#define GATEKIT_ERECEIPT_SANDBOX             (-119)  /* sandbox receipt where production is required; Apple 21007 */
#define GATEKIT_ERECEIPT_PRODUCTION          (-120)  /* production receipt where sandbox is required; Apple 21008 */
#define GATEKIT_ERECEIPT_NO_CREATION_DATE    (-121)  /* receipt has no creation date; Apple 21002 */
#define GATEKIT_ERECEIPT_ENVIRONMENT         (-122)  /* receipt has an unknown environment; Apple 21003 */
#define GATEKIT_ERECEIPT_TEST_ANCHOR         (-123)  /* test anchor is not a DER certificate; Apple 21009 */

/* Options flags. */
#define GATEKIT_RECEIPT_REQUIRE_SHA256   0x1u  /* reject SHA-1 signatures and SHA-1 signed certificates */
#define GATEKIT_RECEIPT_PRODUCTION_ONLY  0x2u  /* sandbox receipts fail with GATEKIT_ERECEIPT_SANDBOX (21007) */
#define GATEKIT_RECEIPT_SANDBOX_ONLY     0x4u  /* production receipts fail with GATEKIT_ERECEIPT_PRODUCTION (21008) */

#define GATEKIT_RECEIPT_OPTIONS_VERSION 1u

typedef struct gatekit_receipt gatekit_receipt;

typedef struct gatekit_receipt_options {
    unsigned int version;                 /* set by receipt_options_init */
    const char *bundle_id;                /* required: must equal attribute 2 */
    const char *app_version;              /* NULL: not checked; else must equal attribute 3 */
    const unsigned char *device_id;       /* NULL: no device-hash check */
    size_t device_id_len;                 /* 16 (identifierForVendor UUID bytes) or 6 (MAC address) */
    long long verify_time;                /* Unix seconds (negative: before 1970); 0: the receipt's creation date */
    unsigned int flags;                   /* GATEKIT_RECEIPT_* flags above */
    const unsigned char *test_anchor_der; /* DER certificate trusted for Xcode receipts only */
    size_t test_anchor_len;
} gatekit_receipt_options;

/* Receipt attribute ids (Apple's type numbers). Strings: ENVIRONMENT, BUNDLE_ID, APP_VERSION,
 * AGE_RATING, ORIGINAL_APP_VERSION, and the dates as written. Integers: APP_ITEM_ID,
 * DOWNLOAD_ID, VERSION_EXTERNAL_ID. Dates: CREATION_DATE, ORIGINAL_PURCHASE_DATE,
 * EXPIRATION_DATE. Bytes: BUNDLE_ID (the DER value hashed by the device check), OPAQUE, HASH. */
#define GATEKIT_RECEIPT_ENVIRONMENT             0
#define GATEKIT_RECEIPT_APP_ITEM_ID             1
#define GATEKIT_RECEIPT_BUNDLE_ID               2
#define GATEKIT_RECEIPT_APP_VERSION             3
#define GATEKIT_RECEIPT_OPAQUE                  4
#define GATEKIT_RECEIPT_HASH                    5
#define GATEKIT_RECEIPT_AGE_RATING              10
#define GATEKIT_RECEIPT_CREATION_DATE           12
#define GATEKIT_RECEIPT_DOWNLOAD_ID             15
#define GATEKIT_RECEIPT_VERSION_EXTERNAL_ID     16
#define GATEKIT_RECEIPT_ORIGINAL_PURCHASE_DATE  18
#define GATEKIT_RECEIPT_ORIGINAL_APP_VERSION    19
#define GATEKIT_RECEIPT_EXPIRATION_DATE         21

/* In-app purchase field ids. Strings: PRODUCT_ID, TRANSACTION_ID, ORIGINAL_TRANSACTION_ID,
 * PROMOTIONAL_OFFER_ID and the dates as written. Integers: QUANTITY, PRODUCT_TYPE (0
 * non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable), WEB_ORDER_LINE_ITEM_ID,
 * IS_TRIAL_PERIOD and IS_IN_INTRO_OFFER_PERIOD (0/1). Dates: PURCHASE_DATE,
 * ORIGINAL_PURCHASE_DATE, EXPIRES_DATE, CANCELLATION_DATE. */
#define GATEKIT_IAP_QUANTITY                    1701
#define GATEKIT_IAP_PRODUCT_ID                  1702
#define GATEKIT_IAP_TRANSACTION_ID              1703
#define GATEKIT_IAP_PURCHASE_DATE               1704
#define GATEKIT_IAP_ORIGINAL_TRANSACTION_ID     1705
#define GATEKIT_IAP_ORIGINAL_PURCHASE_DATE      1706
#define GATEKIT_IAP_PRODUCT_TYPE                1707
#define GATEKIT_IAP_EXPIRES_DATE                1708
#define GATEKIT_IAP_WEB_ORDER_LINE_ITEM_ID      1711
#define GATEKIT_IAP_CANCELLATION_DATE           1712
#define GATEKIT_IAP_IS_TRIAL_PERIOD             1713
#define GATEKIT_IAP_IS_IN_INTRO_OFFER_PERIOD    1719
#define GATEKIT_IAP_PROMOTIONAL_OFFER_ID        1721

/* Static initialiser: gatekit_receipt_options o = GATEKIT_RECEIPT_OPTIONS_INIT; */
#define GATEKIT_RECEIPT_OPTIONS_INIT { .version = GATEKIT_RECEIPT_OPTIONS_VERSION }

/* Sets *options to the defaults of `version` (pass GATEKIT_RECEIPT_OPTIONS_VERSION, the
 * version of the header you compile with): zeroes exactly the members that version has
 * and sets options->version. A library newer than your header therefore never writes
 * past your struct. 0, GATEKIT_EINVAL (NULL), or GATEKIT_EVERSION (a version this library
 * does not know; nothing written). Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_options_init(gatekit_receipt_options *options, unsigned int version);

/* Validates a receipt: data is DER/BER bytes or their base64 text (detected), at most 16 MB.
 * On success *out is a new receipt (free with receipt_free) and 0 is returned; on failure
 * *out is NULL and the code is one of GATEKIT_ERECEIPT_* (first failing check), GATEKIT_EINVAL
 * (NULL out/data/options/bundle_id, device_id_len not 16 or 6, both environment flags),
 * GATEKIT_EVERSION, GATEKIT_ETOOLARGE, GATEKIT_ENOMEM. Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_validate(gatekit_receipt **out, const void *data, size_t len, const gatekit_receipt_options *options);

/* receipt_validate() on a file's contents (path "-" is not special). Also GATEKIT_ENOTFOUND,
 * GATEKIT_EIO for the file. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_validate_file(gatekit_receipt **out, const char *path, const gatekit_receipt_options *options);

/* Frees a receipt. NULL is a no-op. */
GATEKIT_API void receipt_free(gatekit_receipt *receipt);

/* The receipt as verifyReceipt's JSON body ({"status":0,"environment":...,"receipt":{...}}),
 * plus GateKit's member last: "gatekit":{"identity":"<receipt_identity()>","testSigned":bool}.
 * request_date is the time of validation. *out_json is freed with gatekit_free.
 * Errors: GATEKIT_EINVAL (NULL), GATEKIT_ENOMEM. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_to_json(char **out_json, const gatekit_receipt *receipt);

/* 1 when a non-cancelled purchase of product_id covers at_ms (epoch milliseconds; 0: now):
 * non-consumables from their purchase date on, subscriptions from purchase to expiry;
 * consumables and cancelled (refunded, upgraded) purchases never. 0 otherwise.
 * GATEKIT_EINVAL for NULL arguments. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_is_entitled(const gatekit_receipt *receipt, const char *product_id, long long at_ms);

/* The product ids entitled at at_ms (0: now) as {"version":1,"products":["id", ...]}, each once,
 * in receipt order; *out_json is freed with gatekit_free. Returns the number of ids (>= 0) or
 * GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_active_products(char **out_json, const gatekit_receipt *receipt, long long at_ms);

/* A receipt attribute as text (see the id list above), owned by the receipt; NULL when the
 * receipt has no value, the id is not a text attribute, or receipt is NULL. */
GATEKIT_API const char *receipt_string(const gatekit_receipt *receipt, int attribute);

/* An integer attribute into *out: 1 present, 0 absent (*out = 0), GATEKIT_EINVAL for NULL or
 * an id that is not an integer attribute. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_integer(long long *out, const gatekit_receipt *receipt, int attribute);

/* A date attribute as epoch milliseconds into *out: 1 present, 0 absent, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_date_ms(long long *out, const gatekit_receipt *receipt, int attribute);

/* Raw bytes of BUNDLE_ID (DER value), OPAQUE or HASH, owned by the receipt: 1 present
 * (*out, *out_len set), 0 absent, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_bytes(const unsigned char **out, size_t *out_len, const gatekit_receipt *receipt, int attribute);

/* 1 when the receipt was accepted under the caller's test anchor (Xcode), 0 for an App Store
 * receipt, GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_is_test_signed(const gatekit_receipt *receipt);

/* Since 0.2.0. 1 when the receipt's environment is a sandbox one (Sandbox, ProductionSandbox,
 * ProductionVPPSandbox), 0 otherwise (Production, ProductionVPP, Xcode, another name),
 * GATEKIT_EINVAL for NULL: the rule GATEKIT_RECEIPT_PRODUCTION_ONLY applies. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_is_sandbox(const gatekit_receipt *receipt);

/* The receipt's replay identity: SHA-256 of its signed payload as 64 lowercase hex digits,
 * owned by the receipt. Re-encodings of one genuine receipt (BER or DER, base64 with or
 * without white space, certificates reordered or added, unsigned attributes) all verify and
 * all have this same identity: hosts that dedupe receipts dedupe on it, never on the input
 * bytes. NULL for NULL (or when memory runs out). */
GATEKIT_API const char *receipt_identity(const gatekit_receipt *receipt);

/* Number of in-app purchases (attribute 17) in receipt order, or GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_count(const gatekit_receipt *receipt);

/* Purchase fields by index (0 … count-1) and GATEKIT_IAP_* id, as for the receipt accessors:
 * string (NULL when absent, out of range or not a text field), integer and date (1 present,
 * 0 absent, GATEKIT_EINVAL for NULL, an index out of range or a wrong id). */
GATEKIT_API const char *receipt_purchase_string(const gatekit_receipt *receipt, size_t index, int field);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_integer(long long *out, const gatekit_receipt *receipt, size_t index, int field);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_date_ms(long long *out, const gatekit_receipt *receipt, size_t index, int field);

#define GATEKIT_PURCHASE_VERSION 1u

/* One in-app purchase at once (what bindings use: one call instead of one per field).
 * Strings are owned by the receipt (valid until receipt_free), NULL when absent; numbers are 0
 * when absent; bit (field - 1701) of present is set for every field the receipt has, e.g.
 * present & (1u << (GATEKIT_IAP_EXPIRES_DATE - 1701)). Like every output struct: the caller
 * sets version to GATEKIT_PURCHASE_VERSION and the library fills that version's members
 * (members are only ever appended, under a new version). */
typedef struct gatekit_purchase {
    unsigned int version;     /* in: GATEKIT_PURCHASE_VERSION */
    unsigned int present;
    long long quantity;
    long long product_type;
    long long web_order_line_item_id;
    long long purchase_date_ms;
    long long original_purchase_date_ms;
    long long expires_date_ms;
    long long cancellation_date_ms;
    int is_trial_period;
    int is_in_intro_offer_period;
    const char *product_id;
    const char *transaction_id;
    const char *original_transaction_id;
    const char *promotional_offer_id;
} gatekit_purchase;

/* Fills *out (out->version set by the caller) with purchase `index`. 0 on success;
 * GATEKIT_EINVAL for NULL or an index out of range, GATEKIT_EVERSION for an unknown version. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase(gatekit_purchase *out, const gatekit_receipt *receipt, size_t index);

/* Parses a receipt WITHOUT deciding anything (no trust, no bundle check) and describes it as
 * JSON: container facts (encoding, digest, certificate subjects, signer found) and every
 * decoded field. Any SignedData that parses is shown; what receipt_validate() would refuse
 * before looking at trust (signed attributes, an algorithm Apple does not use, a malformed
 * payload) is listed in "refusals" as {"code":<GATEKIT_E*>,"reason":"..."}.
 * For diagnostics only. *out_json is freed with gatekit_free. Errors: GATEKIT_ERECEIPT_MALFORMED
 * (not a SignedData at all), GATEKIT_EINVAL, GATEKIT_ETOOLARGE. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_inspect(char **out_json, const void *data, size_t len);

/* verifyReceipt's status for a GateKit code: 0 for 0; 21002 malformed (MALFORMED, PAYLOAD,
 * ALGORITHM, NO_CREATION_DATE); 21007 SANDBOX; 21008 PRODUCTION; 21003 every other receipt
 * failure (authenticity, bundle, version, device, Xcode); 21009 anything else. Any thread. */
GATEKIT_API int receipt_apple_status(int code);

/* From a receipt alone (as TPInAppReceipt does): 1 when none of its purchases is of one of the
 * `count` product ids of a subscription group (so its introductory offer may be shown), 0
 * when one is, < 0 on error (GATEKIT_EINVAL: NULL receipt, NULL product_ids with count > 0,
 * a NULL or non-UTF-8 id). */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_intro_eligible(const gatekit_receipt *receipt, const char *const *product_ids, size_t count);

/* Apple's ReceiptUtility, WITHOUT validation: for calling the App Store Server API only, never
 * for an entitlement decision. receipt_transaction_id: the first in-app purchase's transaction
 * id (else its original transaction id) of an app receipt (DER, BER or base64, as
 * receipt_validate takes it): 1 with *out_transaction_id set, 0 with it NULL when there is no purchase,
 * GATEKIT_ERECEIPT_MALFORMED / _PAYLOAD when it does not parse. receipt_legacy_transaction_id:
 * the transaction-id of a legacy transaction receipt (base64 of an old-style plist with
 * "purchase-info"): 1 / 0 likewise, GATEKIT_ERECEIPT_MALFORMED when it is not base64. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_transaction_id(char **out_transaction_id, const void *data, size_t len);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_legacy_transaction_id(char **out_transaction_id, const char *transaction_receipt);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_RECEIPT_H */
