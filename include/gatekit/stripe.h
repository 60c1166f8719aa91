/* gatekit/stripe.h — Stripe: webhook verification and Stripe's API client.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_STRIPE_H
#define GATEKIT_STRIPE_H

#include <stddef.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Stripe webhooks (since 0.3.0)
 *
 * Stripe signs each delivery to an endpoint with the endpoint's signing secret ("whsec_…"):
 * the Stripe-Signature header is t=<Unix seconds>,v1=<hex>[,v1=<hex>…], each v1 the
 * HMAC-SHA256 of t, ".", and the body's bytes, one per secret while a secret is rolled. A
 * verified delivery says which event happened to which object — whom to ask, never a verdict
 * (events arrive out of order and twice). docs/stripe.md says it in prose. Stripe's API client
 * follows below; the ledger's use of both is <gatekit/ledger_stripe.h>.
 * ====================================================================================== */

/* Stripe (-800 … -899). */
#define GATEKIT_ESTRIPE_SIGNATURE_HEADER (-810)  /* the Stripe-Signature header is missing, malformed, or has no v1 (a v0 alone is a test event's fake signature) */
#define GATEKIT_ESTRIPE_SIGNATURE        (-811)  /* no v1 is the body's HMAC under any of the secrets: another endpoint's secret, or a body changed on the way */
#define GATEKIT_ESTRIPE_TIMESTAMP        (-812)  /* the delivery was signed longer ago than the tolerance (a replay), or that far ahead of this host's clock */
#define GATEKIT_ESTRIPE_EVENT            (-813)  /* the verified body is not a snapshot event (JSON with object "event", id, type, created, livemode, data.object with id and object) */
#define GATEKIT_ESTRIPE_API              (-815)  /* Stripe answered with an error status; *out_json describes it (below) */
#define GATEKIT_ESTRIPE_TRANSPORT        (-816)  /* no answer: DNS, connection, TLS (an untrusted or misnamed server), timeout; or libcurl missing */
#define GATEKIT_ESTRIPE_RESPONSE         (-817)  /* an answer that is not a JSON object (a list page that is not a list), over 16 MiB, or of the other mode than the key's (a live answer to a test key) */

/* Since 0.3.0. Verifies one delivery: signature_header is the Stripe-Signature header's
 * value; body the request's bytes exactly as received (body_len bytes, at most 4 MiB);
 * secrets the endpoint's signing secrets ("whsec_…", 1 to 8: the old and the new while one
 * is rolled); tolerance_s how far from this host's clock the signing instant may lie, in
 * either direction (0: 300 s, Stripe's default; else 1 to 86400); now_s the clock to judge by
 * (0: this host's; for tests). Returns GATEKIT_OK, with in *out_json (may be NULL; free with
 * gatekit_free) {"version":1,"id":"evt_…","type":"customer.subscription.updated",
 * "livemode":false,"created":s,"apiVersion":"…"|null,"object":{"id":"sub_…",
 * "object":"subscription"},"signedAt":s,"secretIndex":0}; or GATEKIT_ESTRIPE_* above with the
 * reason in gatekit_last_error() (never a secret), GATEKIT_EINVAL (arguments, a secret that is
 * not "whsec_…"), GATEKIT_ETOOLARGE. Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_verify_webhook(char **out_json, const char *signature_header, const void *body, size_t body_len,
                                                          const char *const *secrets, size_t secret_count, int tolerance_s,
                                                          long long now_s);

/* ---- Stripe's API client (since 0.3.0) ------------------------------------------------
 *
 * Reads what an entitlement needs from Stripe's API (v1) with the merchant's secret key
 * (sk_live_…, sk_test_…) or a restricted key (rk_…) that may read subscriptions, Checkout
 * Sessions and invoices. Every request sends the key as a Bearer credential and the pinned
 * Stripe-Version (stripe_api_version(): a 2025+ version, where a subscription's period lives
 * on its items; create the webhook endpoint with it too); every POST an Idempotency-Key that
 * its retries repeat. A test key reads test mode, a live key live data, and an answer of the
 * other mode is refused (GATEKIT_ESTRIPE_RESPONSE). The key is never in an error, a log or an
 * answer.
 *
 * Every function takes its output first, then the client, then the request's arguments; it
 * returns 0 and writes *out_json (may be NULL; free with gatekit_free): Stripe's answer body
 * as sent. When Stripe answers with an error, it returns GATEKIT_ESTRIPE_API and *out_json
 * (when given) is {"httpStatus":404,"type":"invalid_request_error","code":"resource_missing",
 * "declineCode":null,"message":"...","param":"id","retryable":false,"retryAfter":null}. 409
 * (an idempotent request in flight), 429 and 5xx are retried up to options->max_retries times,
 * after Retry-After or 0.5 s, 1 s, 2 s ..., inside the call's one deadline; a request that got
 * no answer (GATEKIT_ESTRIPE_TRANSPORT) is never retried, as it may have been done. */

#define GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION 1u

typedef struct gatekit_stripe_client_options {
    unsigned int version;      /* set by stripe_client_options_init */
    const char *api_key_file;  /* a file holding the key (a newline after it is fine), read once by stripe_client_new: a regular file of this user or root, not a symbolic link, that no other user can read or write, in folders no other user can write */
    const char *api_key;       /* or the key itself (a secret manager's); exactly one of the two */
    const char *base_url;      /* NULL: https://api.stripe.com; else an https:// URL (a stand-in, a proxy) */
    const char *ca_file;       /* NULL: the system's CAs; else a PEM file to trust instead, read once as api_key_file is */
    int timeout_ms;            /* the whole call, retries and their waits included, 1 to 600000; init: 30000 */
    int connect_timeout_ms;    /* 1 to 600000; init: 10000 */
    int max_retries;           /* 0 to 10; init: 2 (as Stripe's own libraries) */
    int max_retry_wait_ms;     /* longest wait before a retry, 0 to 600000; init: 30000 */
    const char *user_agent;    /* NULL: "gatekit/<version>"; else 1 to 256 printable ASCII characters */
} gatekit_stripe_client_options;

typedef struct gatekit_stripe_client gatekit_stripe_client;

/* Static initialiser with the same defaults: gatekit_stripe_client_options o =
 * GATEKIT_STRIPE_CLIENT_OPTIONS_INIT; then set o.api_key_file (or o.api_key). */
#define GATEKIT_STRIPE_CLIENT_OPTIONS_INIT \
    { .version = GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION, .timeout_ms = 30000, .connect_timeout_ms = 10000, \
      .max_retries = 2, .max_retry_wait_ms = 30000 }

/* Since 0.3.0. Sets version and the defaults above (the key NULL). NULL: GATEKIT_EINVAL; an
 * unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_client_options_init(gatekit_stripe_client_options *options, unsigned int version);

/* Since 0.3.0. Makes a client. Errors: GATEKIT_EINVAL (a bad option, credentials in base_url,
 * both or neither of api_key_file and api_key, a key that is not sk_/rk_ live or test — a
 * publishable pk_ key and a whsec_ signing secret are refused by name), GATEKIT_ENOTFOUND /
 * GATEKIT_EIO / GATEKIT_EUNSAFE / GATEKIT_ETOOLARGE (the key file or ca_file),
 * GATEKIT_ESTRIPE_TRANSPORT (libcurl cannot be loaded). No request is made here. *out is freed
 * with stripe_client_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_client_new(gatekit_stripe_client **out, const gatekit_stripe_client_options *options);

/* Since 0.3.0. Frees a client (no call may be running on it). NULL is a no-op. */
GATEKIT_API void stripe_client_free(gatekit_stripe_client *client);

/* Since 0.3.0. 1 when the client's key is a test-mode key (sk_test_, rk_test_), 0 for a live
 * key, GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_client_is_test(const gatekit_stripe_client *client);

/* Since 0.3.0. The Stripe-Version every request sends ("2026-06-24.dahlia"). Static. */
GATEKIT_API const char *stripe_api_version(void);

/* Since 0.3.0. GET path (below /v1/, e.g. "/v1/subscriptions/sub_123"; no query there) with
 * query (NULL or form-encoded: "expand[]=line_items" as "expand%5B%5D=line_items", printable
 * ASCII without spaces or #). */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_get(char **out_json, gatekit_stripe_client *client, const char *path, const char *query);

/* Since 0.3.0. POST path with form (NULL or form-encoded as query above, at most 1 MiB) under
 * a fresh idempotency key. */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_post(char **out_json, gatekit_stripe_client *client, const char *path, const char *form);

/* Since 0.3.0. Every page of a list (GET path with query, limit=100, starting_after the last
 * object's id while has_more), at most max_pages (1 to 10000) pages: *out_json is
 * {"object":"list","data":[every object, in Stripe's order],"has_more":true|false} — has_more
 * true when max_pages stopped it before the end (narrow the query, e.g. created[gte]=…, to read
 * the rest; query may not name limit or starting_after, which the list sets). */
GATEKIT_API GATEKIT_WARN_UNUSED int stripe_list(char **out_json, gatekit_stripe_client *client, const char *path, const char *query, int max_pages);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_STRIPE_H */
