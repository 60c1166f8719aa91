/* gatekit/stripe.h — Stripe: webhook verification (the first part of Stripe Billing as a store).
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
 * (events arrive out of order and twice). docs/stripe.md says it in prose.
 * ====================================================================================== */

/* Stripe (-800 … -899). */
#define GATEKIT_ESTRIPE_SIGNATURE_HEADER (-810)  /* the Stripe-Signature header is missing, malformed, or has no v1 (a v0 alone is a test event's fake signature) */
#define GATEKIT_ESTRIPE_SIGNATURE        (-811)  /* no v1 is the body's HMAC under any of the secrets: another endpoint's secret, or a body changed on the way */
#define GATEKIT_ESTRIPE_TIMESTAMP        (-812)  /* the delivery was signed longer ago than the tolerance (a replay), or that far ahead of this host's clock */
#define GATEKIT_ESTRIPE_EVENT            (-813)  /* the verified body is not a snapshot event (JSON with object "event", id, type, created, livemode, data.object with id and object) */

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

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_STRIPE_H */
