/* gatekit/webhooks.h — Standard Webhooks: signing what GateKit sends, verifying what it sent.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_WEBHOOKS_H
#define GATEKIT_WEBHOOKS_H

#include <stddef.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Standard Webhooks 1.0.0 (since 0.3.0)
 *
 * A delivery GateKit sends to a team's backend carries three headers: webhook-id (the event's
 * id: the same on every retry, the receiver's de-duplication key), webhook-timestamp (the
 * attempt's Unix seconds) and webhook-signature, a space-separated list of "v1,<base64>", each
 * the HMAC-SHA256 of id "." timestamp "." body under one of the endpoint's secrets (two while a
 * secret is rolled). A secret is "whsec_" and the base64 of 24 to 64 random bytes; the key is
 * those bytes. The receiver checks a delivery in one call, webhook_verify; any Standard
 * Webhooks library (Svix's, the spec's reference library) verifies it too. docs/webhooks.md
 * says it in prose.
 * ====================================================================================== */

/* Standard Webhooks (-900 … -999). */
#define GATEKIT_EWEBHOOK_HEADER    (-910)  /* webhook-id, webhook-timestamp or webhook-signature is missing or malformed, or the signature lists no v1 entry */
#define GATEKIT_EWEBHOOK_SIGNATURE (-911)  /* no v1 entry is the body's HMAC under any of the secrets: another endpoint's secret, or a body changed on the way */
#define GATEKIT_EWEBHOOK_TIMESTAMP (-912)  /* the delivery was signed longer ago than the tolerance (a replay), or that far ahead of this host's clock */
#define GATEKIT_EWEBHOOK_DELIVERY  (-913)  /* a webhook delivery got no answer, or one too long to read (an attempt's error, in gatekit/ledger_webhooks.h) */

/* Since 0.3.0. A new secret for an endpoint in *out_secret ("whsec_" and the base64 of 32
 * random bytes from OpenSSL's generator; free with gatekit_free). Keep it as a password. */
GATEKIT_API GATEKIT_WARN_UNUSED int webhook_secret_generate(char **out_secret);

/* Since 0.3.0. The webhook-signature value for body (body_len bytes, at most 4 MiB) sent as
 * msg_id (1 to 255 printable ASCII bytes without "." or spaces) at timestamp_s (Unix seconds,
 * the attempt's), one "v1,…" per secret (1 to 8, in the order given), in *out_signature (free
 * with gatekit_free). GATEKIT_EINVAL: arguments, a secret that is not "whsec_" and the base64
 * of 24 to 64 bytes (never echoed). Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int webhook_sign(char **out_signature, const char *msg_id, long long timestamp_s, const void *body,
                                                 size_t body_len, const char *const *secrets, size_t secret_count);

/* Since 0.3.0. Verifies one delivery as received: msg_id, timestamp and signature the values of
 * its webhook-id, webhook-timestamp and webhook-signature headers (NULL when absent:
 * GATEKIT_EWEBHOOK_HEADER), body its bytes exactly as received (never re-serialized JSON);
 * secrets the endpoint's (1 to 8); tolerance_s how far from this host's clock the timestamp may
 * lie, in either direction (0: 300 s; else 1 to 86400); now_s the clock to judge by (0: this
 * host's; for tests). Returns GATEKIT_OK, with *out_secret_index (may be NULL) the secret that
 * signed it; or GATEKIT_EWEBHOOK_* above with the reason in gatekit_last_error() (never a
 * secret), GATEKIT_EINVAL, GATEKIT_ETOOLARGE. Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int webhook_verify(size_t *out_secret_index, const char *msg_id, const char *timestamp, const char *signature,
                                                   const void *body, size_t body_len, const char *const *secrets, size_t secret_count,
                                                   int tolerance_s, long long now_s);

#ifdef __cplusplus
}
#endif

#endif
