/* gatekit/appstore_api.h — the App Store Server API client.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_APPSTORE_API_H
#define GATEKIT_APPSTORE_API_H

#include "appstore_sign.h"
#include "jws.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * App Store Server API client
 *
 * Every endpoint of Apple's AppStoreServerAPIClient, one function each, with Apple's paths
 * and semantics (developer.apple.com/documentation/appstoreserverapi). Requests carry a bearer
 * token from the key (appstore_api_token, reused until near expiry) and go over HTTPS with
 * libcurl (loaded on the first appstore_client_new; Debian libcurl4): the server's certificate
 * and name are always verified, only https:// is spoken, redirects are not followed.
 *
 * Every endpoint function takes its outputs first, then the client, then the request's
 * arguments; it returns 0 on success and writes:
 *   *out_json     Apple's answer body as sent (NULL when the answer has none); may be NULL
 *                 when not wanted;
 *   *out_decoded  with options->verify set: the same document with every signed member
 *                 (signedTransactionInfo, signedTransactions[], signedRenewalInfo,
 *                 signedAppTransactionInfo, signedPayload, at any depth) replaced by its
 *                 verified payload (as jws_verify_* gives it); NULL in raw mode; may be NULL.
 * With options->verify set, every signed member is verified before anything is returned,
 * whether or not out_decoded is asked for: one that fails fails the call with its
 * GATEKIT_EJWS_* code and its path in gatekit_last_error() ("signedTransactions[2]: ...").
 * When Apple answers with an error, the call returns GATEKIT_EAPPSTORE_API and *out_json
 * (when given) is {"httpStatus":404,"errorCode":4040010,"errorMessage":"...",
 * "retryable":false,"retryAfter":null} (errorCode / errorMessage null when the body has none;
 * Apple's codes: developer.apple.com/documentation/appstoreserverapi/error_codes).
 * A 429 or one of Apple's retryable errors is retried up to options->max_retries times, after
 * Retry-After (or 0.5 s, 1 s, ...) when that is at most options->max_retry_wait_ms; a request
 * that got no answer (GATEKIT_EAPPSTORE_TRANSPORT) is never retried, as it may have been done.
 *
 * Request bodies (request_json) are Apple's request objects as JSON text, sent as given (one
 * object, at most 1 MiB). Path arguments are percent-encoded. A client may be shared between
 * threads; each call blocks its thread until the answer (or the timeout). Strings returned
 * are freed with gatekit_free.
 * ====================================================================================== */

#define GATEKIT_EAPPSTORE_API        (-402)  /* Apple answered with an error status; *out_json describes it (above) */
#define GATEKIT_EAPPSTORE_TRANSPORT  (-403)  /* no answer: DNS, connection, TLS (an untrusted or misnamed server), timeout; or libcurl missing */
#define GATEKIT_EAPPSTORE_RESPONSE   (-404)  /* a success answer that is not a JSON object, a signed member that is not a string, or over 16 MiB */

#define GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION 2u

typedef struct gatekit_appstore_client_options {
    unsigned int version;               /* set by appstore_client_options_init */
    const char *environment;            /* required: "Production", "Sandbox" or "LocalTesting" */
    const char *base_url;               /* NULL: Apple's for the environment; else an https:// URL (a stand-in, a proxy) */
    const char *ca_file;                /* NULL: the system's CAs; else a PEM file to trust instead, read once by appstore_client_new (a regular file, not a symbolic link, in folders no other user can write) */
    int timeout_ms;                     /* the whole call, retries and their waits included, 1 to 600000; init: 30000 */
    int connect_timeout_ms;             /* 1 to 600000; init: 10000 */
    int max_retries;                    /* 0 to 10; init: 2 */
    int max_retry_wait_ms;              /* longest wait before a retry, 0 to 600000; init: 30000 */
    const gatekit_jws_options *verify;  /* NULL: raw mode; else how signed members are verified (its environment must be the client's) */
    /* version 2 */
    const char *user_agent;             /* NULL: "gatekit/<version>"; else 1 to 256 printable ASCII characters sent as User-Agent */
} gatekit_appstore_client_options;

typedef struct gatekit_appstore_client gatekit_appstore_client;

/* Static initialiser with the same defaults: gatekit_appstore_client_options o =
 * GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT; then set o.environment. */
#define GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT \
    { .version = GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION, .timeout_ms = 30000, .connect_timeout_ms = 10000, \
      .max_retries = 2, .max_retry_wait_ms = 30000 }

/* Sets version and the defaults above (environment NULL: the caller sets it). */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_client_options_init(gatekit_appstore_client_options *options, unsigned int version);

/* Makes a client for the key (which needs its issuer_id; the client keeps its own reference,
 * so the key may be freed after). Errors: GATEKIT_EINVAL (Xcode, a bad option, no issuer_id),
 * GATEKIT_ENOTFOUND / GATEKIT_EIO / GATEKIT_EUNSAFE (ca_file), GATEKIT_EAPPSTORE_TRANSPORT
 * (libcurl cannot be loaded). *out is freed with appstore_client_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_client_new(gatekit_appstore_client **out, const gatekit_appstore_key *key, const gatekit_appstore_client_options *options);

/* Frees a client (no call may be running on it). NULL is a no-op. */
GATEKIT_API void appstore_client_free(gatekit_appstore_client *client);

/* Transactions and subscriptions. transaction_id: any transactionId, originalTransactionId or
 * appTransactionId of the customer. revision / pagination_token: NULL on the first page.
 * history_request_json: Apple's TransactionHistoryRequest ({"startDate":ms,"endDate":ms,
 * "productIds":[...],"productTypes":[...],"sort":"ASCENDING","subscriptionGroupIdentifiers":
 * [...],"inAppOwnershipType":"PURCHASED","revoked":false}; NULL: none), sent as query
 * parameters ("revoked" may also be the string "True"/"False", sent as written, as Apple's
 * Python client sends it); version 1 or 2 (Apple recommends 2). statuses: Apple's Status numbers (1 active,
 * 2 expired, 3 billing retry, 4 grace period, 5 revoked); count 0: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_transaction_info(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_transaction_history(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *transaction_id, const char *revision, const char *history_request_json, int version);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_all_subscription_statuses(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *transaction_id, const int *statuses, size_t count);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_refund_history(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *transaction_id, const char *revision);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_look_up_order_id(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *order_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_app_transaction_info(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_finish_transaction(char **out_json, gatekit_appstore_client *client, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_send_consumption_information(char **out_json, gatekit_appstore_client *client, const char *transaction_id, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_send_consumption_data(char **out_json, gatekit_appstore_client *client, const char *transaction_id, const char *request_json);
/* request_json NULL: the PUT goes without a body (as Apple's clients send it); the server's
 * error answer is the result. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_set_app_account_token(char **out_json, gatekit_appstore_client *client, const char *original_transaction_id, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_extend_subscription_renewal_date(char **out_json, gatekit_appstore_client *client, const char *original_transaction_id, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_extend_renewal_date_for_all_active_subscribers(char **out_json, gatekit_appstore_client *client, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_status_of_subscription_renewal_date_extensions(char **out_json, gatekit_appstore_client *client, const char *request_identifier, const char *product_id);

/* Notifications. notification_history_request_json: Apple's NotificationHistoryRequest. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_notification_history(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *pagination_token, const char *notification_history_request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_request_test_notification(char **out_json, gatekit_appstore_client *client);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_test_notification_status(char **out_json, char **out_decoded, gatekit_appstore_client *client, const char *test_notification_token);

/* Retention messaging. Identifiers are UUIDs. image: PNG bytes (1 byte to 16 MiB);
 * image_size "FULL_SIZE", "BULLET_POINT" or NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_upload_image(char **out_json, gatekit_appstore_client *client, const char *image_identifier, const void *image, size_t image_len, const char *image_size);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_image(char **out_json, gatekit_appstore_client *client, const char *image_identifier);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_image_list(char **out_json, gatekit_appstore_client *client);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_upload_message(char **out_json, gatekit_appstore_client *client, const char *message_identifier, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_message(char **out_json, gatekit_appstore_client *client, const char *message_identifier);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_message_list(char **out_json, gatekit_appstore_client *client);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_configure_default_message(char **out_json, gatekit_appstore_client *client, const char *product_id, const char *locale, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_default_message(char **out_json, gatekit_appstore_client *client, const char *product_id, const char *locale);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_default_message(char **out_json, gatekit_appstore_client *client, const char *product_id, const char *locale);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_configure_realtime_url(char **out_json, gatekit_appstore_client *client, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_realtime_url(char **out_json, gatekit_appstore_client *client);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_realtime_url(char **out_json, gatekit_appstore_client *client);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_initiate_performance_test(char **out_json, gatekit_appstore_client *client, const char *request_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_performance_test_results(char **out_json, gatekit_appstore_client *client, const char *request_id);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_APPSTORE_API_H */
