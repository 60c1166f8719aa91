/* gatekit/play.h — Google Play: the Play Developer API client and real-time developer
 * notification (RTDN) push verification.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_PLAY_H
#define GATEKIT_PLAY_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Google Play (since 0.2.0)
 *
 * Play purchase data is not signed as Apple's is: what is true is what the Play Developer API
 * (Android Publisher v3) answers to an authenticated request over TLS. A real-time developer
 * notification is only a signal to ask: verify the push (play_verify_push), then ask the API
 * (play_subscription_get) and believe the answer. docs/play.md says it all in prose.
 *
 * Requests go over HTTPS with libcurl (loaded on the first client; Debian libcurl4): the
 * server's certificate and name are always verified, only https:// is spoken, redirects are not
 * followed, answers are bounded to 16 MiB. A client or verifier may be shared between threads;
 * each call blocks its thread until the answer (or the timeout). Strings returned are freed
 * with gatekit_free.
 * ====================================================================================== */

#define GATEKIT_EPLAY_API        (-700)  /* Google answered with an error status; *out_json describes it (below) */
#define GATEKIT_EPLAY_TRANSPORT  (-701)  /* no answer: DNS, connection, TLS (an untrusted or misnamed server), timeout; or libcurl missing */
#define GATEKIT_EPLAY_RESPONSE   (-702)  /* a success answer that is not a JSON object (or empty where one is due), or over 16 MiB */
#define GATEKIT_EPLAY_AUTH       (-703)  /* the token endpoint refused the service account (invalid_grant, ...) or answered without a usable Bearer token */
#define GATEKIT_EPLAY_KEY        (-704)  /* the key file is not a service account key: type, client_email, token_uri or an unencrypted RSA private key missing */
#define GATEKIT_EPUSH_TOKEN      (-710)  /* the push has no "Bearer" token, or it is not a compact JWT with a JSON header and claims */
#define GATEKIT_EPUSH_ALGORITHM  (-711)  /* the token's alg is not RS256 (none, HS256 and every other are refused) */
#define GATEKIT_EPUSH_KEY        (-712)  /* the token's kid is in none of the issuer's published keys, even after fetching them again */
#define GATEKIT_EPUSH_SIGNATURE  (-713)  /* the RS256 signature does not verify with the issuer's key */
#define GATEKIT_EPUSH_CLAIMS     (-714)  /* iss, aud, email or email_verified is not what the options require */
#define GATEKIT_EPUSH_EXPIRED    (-715)  /* exp has passed, iat is in the future, or the token lives longer than max_token_age_s */
#define GATEKIT_EPUSH_KEYSET     (-716)  /* the issuer's key set could not be fetched, or is not a JSON Web Key Set of RSA keys */
#define GATEKIT_EPUSH_MESSAGE    (-717)  /* the body is not a Pub/Sub push envelope holding one DeveloperNotification */
#define GATEKIT_EPUSH_PACKAGE    (-718)  /* the notification is for another package than options->package_name */

/* ---- The Play Developer API client ----------------------------------------------------
 *
 * Authenticated as a service account (its JSON key file, from Google Cloud, added in Play
 * Console > Users and permissions): the client signs a JWT bearer grant (RS256, scope
 * androidpublisher, one hour, aud https://oauth2.googleapis.com/token as Google documents it
 * and its libraries send it), exchanges it at the key's token_uri for an access token (a
 * token endpoint answering 429, 5xx or internal_failure is asked again, as the API is), keeps
 * that token until a minute before it expires, and fetches a new one once when the API
 * answers 401. The key's private key is never in an error, a log or an answer.
 *
 * Every endpoint function takes its output first, then the client, then the request's
 * arguments; it returns 0 on success and writes *out_json: Google's answer body as sent
 * (NULL when the answer has none: acknowledge, consume, revoke, cancel); *out_json may be NULL
 * when not wanted. When Google answers with an error, the call returns GATEKIT_EPLAY_API and
 * *out_json (when given) is {"httpStatus":404,"code":404,"status":"NOT_FOUND","message":"...",
 * "reason":"notFound","retryable":false,"retryAfter":null} (members null when the body lacks
 * them); the same when the token endpoint keeps failing (5xx, 429, internal_failure: an
 * outage, not bad credentials; "reason" is its OAuth error). 429, 408, 409 (concurrentUpdate) and 5xx are retried up to options->max_retries
 * times, after Retry-After or 0.5 s, 1 s, 2 s ..., inside the call's one deadline; a request
 * that got no answer (GATEKIT_EPLAY_TRANSPORT) is never retried, as it may have been done.
 * Path arguments are percent-encoded; request_json is Google's request object, sent as given
 * (one object, at most 1 MiB). */

#define GATEKIT_PLAY_CLIENT_OPTIONS_VERSION 1u

typedef struct gatekit_play_client_options {
    unsigned int version;              /* set by play_client_options_init */
    const char *package_name;          /* required: the app's package name, e.g. "com.example.app" */
    const char *service_account_file;  /* the service account's JSON key file, read once by play_client_new (a regular file of this user or root, not a symbolic link, that no other user can read or write, in folders no other user can write); NULL: service_account_json, else the file GOOGLE_APPLICATION_CREDENTIALS names (checked the same way), as Google's client libraries read it */
    const char *base_url;              /* NULL: https://androidpublisher.googleapis.com; else an https:// URL (a stand-in, a proxy) */
    const char *ca_file;               /* NULL: the system's CAs; else a PEM file to trust instead (for the API and the token endpoint), read once as service_account_file is */
    int timeout_ms;                    /* the whole call, token exchange, retries and their waits included, 1 to 600000; init: 30000 */
    int connect_timeout_ms;            /* 1 to 600000; init: 10000 */
    int max_retries;                   /* 0 to 10; init: 3 */
    int max_retry_wait_ms;             /* longest wait before a retry, 0 to 600000; init: 30000 */
    const char *user_agent;            /* NULL: "gatekit/<version>"; else 1 to 256 printable ASCII characters */
    const char *service_account_json;  /* NULL, or the JSON key's contents (a secret manager's, google-auth's from_service_account_info habit) instead of service_account_file (not both) */
    int metadata_server;               /* 1: no key; access tokens from the machine's metadata server (Compute Engine, GKE workload identity, Cloud Run: Application Default Credentials), asked over plain HTTP at 169.254.169.254 or where GCE_METADATA_HOST says (only the metadata server's names or a loopback address are taken); init: 0 */
} gatekit_play_client_options;

typedef struct gatekit_play_client gatekit_play_client;

/* Static initialiser with the same defaults: gatekit_play_client_options o =
 * GATEKIT_PLAY_CLIENT_OPTIONS_INIT; then set o.package_name and o.service_account_file (or _json). */
#define GATEKIT_PLAY_CLIENT_OPTIONS_INIT \
    { .version = GATEKIT_PLAY_CLIENT_OPTIONS_VERSION, .timeout_ms = 30000, .connect_timeout_ms = 10000, \
      .max_retries = 3, .max_retry_wait_ms = 30000 }

/* Since 0.2.0. Sets version and the defaults above (package_name and the key NULL). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_client_options_init(gatekit_play_client_options *options, unsigned int version);

/* Since 0.2.0. Makes a client. Errors: GATEKIT_EINVAL (a bad option, credentials in base_url, both
 * service_account_file and _json, or no key given anywhere),
 * GATEKIT_ENOTFOUND / GATEKIT_EIO / GATEKIT_EUNSAFE / GATEKIT_ETOOLARGE (the key file or
 * ca_file), GATEKIT_EPLAY_KEY, GATEKIT_EPLAY_TRANSPORT (libcurl cannot be loaded). No request
 * is made here: the first call fetches the access token. *out is freed with play_client_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int play_client_new(gatekit_play_client **out, const gatekit_play_client_options *options);

/* Since 0.2.0. Frees a client (no call may be running on it). NULL is a no-op. */
GATEKIT_API void play_client_free(gatekit_play_client *client);

/* Since 0.2.0. Subscriptions (purchase_token: the token the device received; it names the subscription
 * across its renewals). get: purchases.subscriptionsv2.get, a SubscriptionPurchaseV2.
 * revoke: subscriptionsv2.revoke, request_json {"revocationContext":{"fullRefund":{}}} or
 * "proratedRefund":{} or "itemBasedRefund":{"productId":"..."}. cancel: subscriptionsv2.cancel,
 * {"cancellationContext":{"cancellationType":"USER_REQUESTED_STOP_RENEWALS"}}. defer:
 * subscriptionsv2.defer, Google's request as given. acknowledge: purchases.subscriptions.
 * acknowledge (subscription_id: the product id; request_json NULL sends {}). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_subscription_get(char **out_json, gatekit_play_client *client, const char *purchase_token);
GATEKIT_API GATEKIT_WARN_UNUSED int play_subscription_revoke(char **out_json, gatekit_play_client *client, const char *purchase_token, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int play_subscription_cancel(char **out_json, gatekit_play_client *client, const char *purchase_token, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int play_subscription_defer(char **out_json, gatekit_play_client *client, const char *purchase_token, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int play_subscription_acknowledge(char **out_json, gatekit_play_client *client, const char *subscription_id, const char *purchase_token, const char *request_json);

/* Since 0.2.0. One-time products. get: purchases.products.get, a ProductPurchase; get_v2:
 * purchases.productsv2.getproductpurchasev2, a ProductPurchaseV2 (no product id needed);
 * acknowledge (request_json NULL sends {}); consume (consumables; it acknowledges too). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_product_get(char **out_json, gatekit_play_client *client, const char *product_id, const char *purchase_token);
GATEKIT_API GATEKIT_WARN_UNUSED int play_product_get_v2(char **out_json, gatekit_play_client *client, const char *purchase_token);
GATEKIT_API GATEKIT_WARN_UNUSED int play_product_acknowledge(char **out_json, gatekit_play_client *client, const char *product_id, const char *purchase_token, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int play_product_consume(char **out_json, gatekit_play_client *client, const char *product_id, const char *purchase_token);

/* Since 0.2.0. Voided purchases: one page of purchases.voidedpurchases.list. query_json (NULL: none) holds
 * the query as JSON: {"startTime":ms,"endTime":ms,"type":1,"maxResults":1000,
 * "token":"<tokenPagination.nextPageToken>","includeQuantityBasedPartialRefund":true}, sent as
 * query parameters (any other member is GATEKIT_EINVAL). The next page: the answer's
 * tokenPagination.nextPageToken as "token". */
GATEKIT_API GATEKIT_WARN_UNUSED int play_voided_purchases_list(char **out_json, gatekit_play_client *client, const char *query_json);

/* Since 0.2.0. Orders (revenue, refunds, tax): orders.get, and orders.batchget for 1 to 1000 distinct ids. */
GATEKIT_API GATEKIT_WARN_UNUSED int play_order_get(char **out_json, gatekit_play_client *client, const char *order_id);
GATEKIT_API GATEKIT_WARN_UNUSED int play_orders_batch_get(char **out_json, gatekit_play_client *client, const char *const *order_ids, size_t count);

/* Google's subscription notification types (a subscriptionNotification's notificationType). */
/* developer.android.com/google/play/billing/rtdn-reference; "notificationTypeName" below is the
 * name after GATEKIT_PLAY_. A number not here is newer than GateKit: kept, with no name. */
#define GATEKIT_PLAY_SUBSCRIPTION_RECOVERED                   1
#define GATEKIT_PLAY_SUBSCRIPTION_RENEWED                     2
#define GATEKIT_PLAY_SUBSCRIPTION_CANCELED                    3
#define GATEKIT_PLAY_SUBSCRIPTION_PURCHASED                   4
#define GATEKIT_PLAY_SUBSCRIPTION_ON_HOLD                     5
#define GATEKIT_PLAY_SUBSCRIPTION_IN_GRACE_PERIOD             6
#define GATEKIT_PLAY_SUBSCRIPTION_RESTARTED                   7
#define GATEKIT_PLAY_SUBSCRIPTION_PRICE_CHANGE_CONFIRMED      8
#define GATEKIT_PLAY_SUBSCRIPTION_DEFERRED                    9
#define GATEKIT_PLAY_SUBSCRIPTION_PAUSED                      10
#define GATEKIT_PLAY_SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED      11
#define GATEKIT_PLAY_SUBSCRIPTION_REVOKED                     12  /* has Google's voided list read for the token */
#define GATEKIT_PLAY_SUBSCRIPTION_EXPIRED                     13
#define GATEKIT_PLAY_SUBSCRIPTION_ITEMS_CHANGED               17
#define GATEKIT_PLAY_SUBSCRIPTION_CANCELLATION_SCHEDULED      18
#define GATEKIT_PLAY_SUBSCRIPTION_PRICE_CHANGE_UPDATED        19
#define GATEKIT_PLAY_SUBSCRIPTION_PENDING_PURCHASE_CANCELED   20
#define GATEKIT_PLAY_SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED 22

/* Google's one-time product notification types (a oneTimeProductNotification's notificationType). */
#define GATEKIT_PLAY_ONE_TIME_PRODUCT_PURCHASED 1
#define GATEKIT_PLAY_ONE_TIME_PRODUCT_CANCELED  2

/* The Play Developer API's purchase resources, for play_purchase_is_test. */
#define GATEKIT_PLAY_RESOURCE_SUBSCRIPTION_V2 1  /* purchases.subscriptionsv2.get: SubscriptionPurchaseV2 */
#define GATEKIT_PLAY_RESOURCE_PRODUCT_V2      2  /* purchases.productsv2.getproductpurchasev2: ProductPurchaseV2 */
#define GATEKIT_PLAY_RESOURCE_PRODUCT         3  /* purchases.products.get: ProductPurchase */

/* Since 0.3.0. Whether an answer of the Play Developer API (json, len bytes, the resource named
 * by a GATEKIT_PLAY_RESOURCE_*) is a license tester's purchase, which is never a sale: 1 yes,
 * 0 no, the rule the ledger applies (a SubscriptionPurchaseV2 with testPurchase, a
 * ProductPurchaseV2 with testPurchaseContext, a ProductPurchase of purchaseType 0). Errors:
 * GATEKIT_EINVAL (json NULL, an unknown resource), GATEKIT_EPLAY_RESPONSE (not that resource's
 * JSON: not an object, a member of the wrong type, another kind). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_purchase_is_test(const void *json, size_t len, int resource);

/* ---- RTDN push verification --------------------------------------------------------------
 *
 * A Pub/Sub push request is believed only when its Authorization header carries a valid
 * OpenID Connect token signed by Google for this push subscription: RS256 with a key from
 * Google's published key set (fetched from keys_url, cached for its Cache-Control max-age,
 * fetched again when a token names an unknown kid, never taken from the request); iss Google's;
 * aud options->audience; email options->service_account_email with email_verified true; exp
 * not passed and iat not in the future (clock_skew_s either way); at most max_token_age_s
 * between iat and exp. Then the body: a Pub/Sub envelope {"message":{"data":base64,
 * "messageId":...,"attributes":{...},"publishTime":...},"subscription":...} whose data is
 * one DeveloperNotification of options->package_name.
 *
 * play_verify_push writes *out_json:
 *   {"version":1,"messageId":"...","subscription":"projects/.../subscriptions/...",
 *    "publishTime":"..."|null,"developerNotification":{...the decoded data, as sent...},
 *    "gatekit":{"kind":"subscription"|"oneTimeProduct"|"voidedPurchase"|"pendingRefundReview"|
 *    "test"|"unknown","notificationTypeName":"SUBSCRIPTION_RENEWED"|null,"eventTimeMillis":N,
 *    "duplicate":false,"issuer":"https://accounts.google.com","testSigned":false}}
 * "kind":"unknown" is a notification none of whose members GateKit knows: reported, not
 * guessed; notificationTypeName is null for a type number GateKit does not know. "testSigned"
 * is true when the issuer is options->issuer and not Google's (a test issuer), and when the
 * keys come from anywhere but Google's key URL (keys_url, keys_json) while options->issuer is
 * NULL: whoever holds those keys signs (name Google's issuer to vouch for a mirror of its keys).
 * "duplicate" is true when the verifier saw this messageId with this notification before
 * (within its last duplicate_window message ids): acknowledge it, do not process it again. */

#define GATEKIT_PLAY_PUSH_OPTIONS_VERSION 1u

typedef struct gatekit_play_push_options {
    unsigned int version;              /* set by play_push_options_init */
    const char *package_name;          /* required: notifications for any other package are refused */
    const char *audience;              /* required: the push subscription's audience (its push endpoint URL when none was set) */
    const char *service_account_email; /* required: the service account the push subscription authenticates as */
    const char *issuer;                /* NULL: Google's ("https://accounts.google.com" or "accounts.google.com"); else this issuer only (a test issuer: test data never passes as Google's) */
    const char *keys_url;              /* NULL: https://www.googleapis.com/oauth2/v3/certs; else an https:// URL serving the issuer's JWKS */
    const char *keys_json;             /* NULL: fetch keys_url; else this JWKS, used instead (offline, tests) */
    const char *ca_file;               /* NULL: the system's CAs; else a PEM file to trust for keys_url, read once */
    int timeout_ms;                    /* one key-set fetch, 1 to 600000; init: 10000 */
    int max_token_age_s;               /* longest exp - iat accepted, 1 to 86400; init: 3600 (Pub/Sub's tokens live an hour) */
    int clock_skew_s;                  /* tolerance for exp and iat, 0 to 3600; init: 60 */
    int key_refresh_interval_ms;       /* least time between fetches that unknown kids cause, and before a failed fetch is tried again, 0 to 3600000; init: 30000 */
    int duplicate_window;              /* message ids remembered, 0 to 1000000; init: 10000 */
} gatekit_play_push_options;

typedef struct gatekit_play_push_verifier gatekit_play_push_verifier;

#define GATEKIT_PLAY_PUSH_OPTIONS_INIT \
    { .version = GATEKIT_PLAY_PUSH_OPTIONS_VERSION, .timeout_ms = 10000, .max_token_age_s = 3600, .clock_skew_s = 60, \
      .key_refresh_interval_ms = 30000, .duplicate_window = 10000 }

/* Since 0.2.0. Sets version and the defaults above. */
GATEKIT_API GATEKIT_WARN_UNUSED int play_push_options_init(gatekit_play_push_options *options, unsigned int version);

/* Since 0.2.0. Makes a verifier. No request is made here: the first push fetches the key set. Errors:
 * GATEKIT_EINVAL, GATEKIT_EPUSH_KEYSET (keys_json), the ca_file errors, GATEKIT_EPLAY_TRANSPORT
 * (libcurl). *out is freed with play_push_verifier_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int play_push_verifier_new(gatekit_play_push_verifier **out, const gatekit_play_push_options *options);

/* Since 0.2.0. Frees a verifier. NULL is a no-op. */
GATEKIT_API void play_push_verifier_free(gatekit_play_push_verifier *verifier);

/* Since 0.2.0. Verifies one push: authorization is the request's Authorization header value ("Bearer
 * <JWT>"), body its bytes (at most 1 MiB). 0 and *out_json (above) when it is Google's push
 * for this app; else GATEKIT_EPUSH_* (answer the push with 401 or 403 so that Pub/Sub retries
 * a push your endpoint could not yet verify, or drop it) and nothing is written. */
GATEKIT_API GATEKIT_WARN_UNUSED int play_verify_push(char **out_json, gatekit_play_push_verifier *verifier, const char *authorization, const void *body, size_t body_len);

/* ---- Test data -----------------------------------------------------------------------------
 *
 * For a host's own tests (docs/play.md, "Testing"): a service account key file and an OIDC
 * issuer of GateKit's own, both with fresh RSA-2048 keys. Nothing they make passes as Google's:
 * a verifier accepts the test issuer's pushes only when its options name that issuer and its
 * key set. */

/* Since 0.2.0. A service account key file (JSON text, as Google issues them) for client_email, whose
 * token_uri is the given https:// URL (a stand-in's token endpoint). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_test_service_account(char **out_json, const char *client_email, const char *token_uri);

typedef struct gatekit_play_test_issuer gatekit_play_test_issuer;

/* Since 0.2.0. An issuer with one fresh key. issuer NULL: "https://oidc.test.gatekit.invalid". */
GATEKIT_API GATEKIT_WARN_UNUSED int play_test_issuer_new(gatekit_play_test_issuer **out, const char *issuer);
GATEKIT_API void play_test_issuer_free(gatekit_play_test_issuer *issuer);

/* Since 0.2.0. Its key set as JWKS JSON (for options->keys_json, or to serve at keys_url). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_test_issuer_keys(char **out_json, const gatekit_play_test_issuer *issuer);

/* Since 0.2.0. "Bearer <JWT>" as Pub/Sub sends it: claims iss, aud, email, email_verified true, iat now,
 * exp now + lifetime_s (1 to 86400). */
GATEKIT_API GATEKIT_WARN_UNUSED int play_test_issuer_sign_push(char **out_authorization, const gatekit_play_test_issuer *issuer, const char *audience, const char *email, int lifetime_s);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_PLAY_H */
