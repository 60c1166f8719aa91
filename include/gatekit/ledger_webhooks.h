/* gatekit/ledger_webhooks.h — the ledger's changes delivered to a team's backend as signed
 * webhooks. Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_WEBHOOKS_H
#define GATEKIT_LEDGER_WEBHOOKS_H

#include <stddef.h>

#include "ledger.h"
#include "webhooks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Webhooks to a team's backend (since 0.3.0)
 *
 * A team registers endpoints in the store: an https:// URL, the event types it wants (none:
 * every type) and a secret GateKit makes. Every change the ledger's feed records becomes, in
 * the same transaction, one pending delivery for each endpoint enabled then (the outbox): a
 * change is never recorded without its deliveries. A worker — ledger_webhook_deliver called in
 * a loop, or the thread ledger_webhook_delivery_start runs — sends each as a Standard Webhooks
 * POST (gatekit/webhooks.h) of {"type":"renewal","timestamp":"…","data":{"id":"evt_42",…}},
 * counts only a 2xx answer as delivered, retries with growing waits and jitter (5 s fourfold
 * to 10 h, never sooner than a Retry-After) for give_up_after_ms (3 days), then marks it dead
 * with every attempt kept; an endpoint that has answered nothing but failures for
 * disable_after_ms (5 days) is disabled. A later event of a purchase waits while an earlier one
 * to the same endpoint is pending; other purchases' events flow. Workers on several hosts share
 * the work through leases. docs/webhooks.md lists the event types and says it in prose.
 * ====================================================================================== */

/* Deliver to private, loopback and link-local addresses too (a receiver inside the host's
 * network, a test's on 127.0.0.1); without it such an endpoint is refused when registered and
 * every connection is checked at its address. */
#define GATEKIT_WEBHOOK_ALLOW_PRIVATE 1
/* Since 0.3.0. Plain http:// to a loopback address (127.0.0.0/8, [::1], localhost): a test's
 * receiver without TLS. Registering such an endpoint needs it, and so does delivering to one: a
 * worker without it fails those attempts and says why; with it, each connection is checked to be
 * to loopback. Never for a receiver off this machine. */
#define GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP 2

/* Since 0.3.0. Registers an endpoint: url (https://, no credentials, query or fragment),
 * event_types (event_type_count names from docs/webhooks.md; 0: every type), description (NULL
 * or up to 256 bytes), flags (0 or GATEKIT_WEBHOOK_ALLOW_PRIVATE | GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP,
 * each as the URL needs). *out_json is the endpoint,
 * {"id":"ep_…","url":…,"eventTypes":[…],"description":…,"enabled":true,"created":ms,
 * "secret":"whsec_…"} — the only answer that shows the secret. GATEKIT_EINVAL: a URL refused
 * (its reason in gatekit_last_error()), an unknown event type (with the nearest name), more
 * than 64 endpoints. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_endpoint_add(char **out_json, gatekit_store *store, const char *url,
                                                                const char *const *event_types, size_t event_type_count,
                                                                const char *description, int flags);

/* Since 0.3.0. Changes endpoint id: change_json is {"url":…,"eventTypes":[…],"description":…,
 * "enabled":true|false}, each member optional. Enabling an endpoint GateKit disabled clears its
 * reason; its dead deliveries stay dead (replay them). *out_json: the endpoint, without its
 * secret. flags as ledger_webhook_endpoint_add's, for a new url. GATEKIT_ENOTFOUND: no such
 * endpoint. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_endpoint_update(char **out_json, gatekit_store *store, const char *id,
                                                                   const char *change_json, int flags);

/* Since 0.3.0. A new secret for endpoint id; the old one keeps signing for overlap_ms more (0
 * to 7 days; 0: not at all), every delivery then carrying both signatures, so the receiver can
 * switch without refusing one. *out_json: the endpoint with its new "secret". */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_secret_roll(char **out_json, gatekit_store *store, const char *id, long long overlap_ms);

/* Since 0.3.0. Every endpoint with how its deliveries stand: {"endpoints":[{…the endpoint…,
 * "deliveries":{"pending":n,"oldestPendingAgeMs":ms,"delivered":n,"dead":n,"notWanted":n,
 * "attempts":n,"lastSuccess":ms,"lastFailure":"…"}}]} (members that do not apply absent). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_report(char **out_json, gatekit_store *store);

/* Since 0.3.0. The same as the Prometheus text exposition (format 0.0.4): gatekit_webhook_pending,
 * _oldest_pending_age_seconds, _delivered_total, _dead_total, _attempts_total,
 * _last_success_timestamp_seconds and _endpoint_enabled, labelled by endpoint id. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_metrics(char **out_text, gatekit_store *store);

/* Since 0.3.0. Queues again to endpoint id the events of the changes numbered from_seq to
 * to_seq and recorded from_ms to to_ms (inclusive; 0 and LLONG_MAX for open ends), whatever
 * became of them — delivered, dead, not wanted, or from before the endpoint existed — each
 * with its own id, so a receiver drops those it has. Returns how many were queued (>= 0). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_replay(gatekit_store *store, const char *id, long long from_seq, long long to_seq,
                                                          long long from_ms, long long to_ms);

/* Since 0.3.0. Endpoint id's deliveries after seq after_seq, oldest first, at most limit (1 to
 * 1000), with every attempt: {"deliveries":[{"seq":…,"eventId":"evt_…","type":…,"state":
 * "pending"|"delivered"|"dead"|"not-wanted","nextAttempt":ms,"attempts":[{"at":ms,"status":200,
 * "durationMs":…,"error":…,"excerpt":…}]}],"last":seq}. state NULL: every state; else one of
 * those names. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_deliveries(char **out_json, gatekit_store *store, const char *id, const char *state,
                                                              long long after_seq, int limit);

#define GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION 1u

typedef struct gatekit_webhook_delivery_options {
    unsigned int version;          /* set by ledger_webhook_delivery_options_init */
    const char *ca_file;           /* NULL: the system's CAs; else a PEM file to trust instead (a test receiver's) */
    int attempt_timeout_ms;        /* one attempt, connection included, 100 to 600000; init: 10000 */
    int connect_timeout_ms;        /* 100 to 600000; init: 5000 */
    long long give_up_after_ms;    /* a delivery failing this long is dead; 1 second to 30 days; init: 3 days */
    long long disable_after_ms;    /* an endpoint failing this long is disabled; 1 second to 30 days; init: 5 days */
    const char *worker;            /* names this worker in leases; NULL: unique to the process and call */
    int flags;                     /* 0, GATEKIT_WEBHOOK_ALLOW_PRIVATE, GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP, or both */
} gatekit_webhook_delivery_options;

#define GATEKIT_WEBHOOK_DELIVERY_OPTIONS_INIT \
    { .version = GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION, .attempt_timeout_ms = 10000, .connect_timeout_ms = 5000, \
      .give_up_after_ms = 259200000LL, .disable_after_ms = 432000000LL }

/* Since 0.3.0. Sets version and the defaults above. NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_delivery_options_init(gatekit_webhook_delivery_options *options, unsigned int version);

/* Since 0.3.0. Sends what is due, pass after pass, until nothing is or budget_ms (0 to 3600000)
 * has passed: {"attempted":n,"delivered":n,"failed":n,"dead":n,"notWanted":n,"disabled":[ids]}.
 * A failed attempt is no error (it is recorded on its delivery); an error is the store's. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_deliver(char **out_json, gatekit_store *store,
                                                           const gatekit_webhook_delivery_options *options, int budget_ms);

typedef struct gatekit_webhook_delivery gatekit_webhook_delivery;

/* Since 0.3.0. Starts a thread that delivers as ledger_webhook_deliver does, woken by the
 * store's commits (any process's) and by retries coming due, until ledger_webhook_delivery_stop.
 * The store must stay open until then. *out is freed by ledger_webhook_delivery_stop. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_delivery_start(gatekit_webhook_delivery **out, gatekit_store *store,
                                                                  const gatekit_webhook_delivery_options *options);

/* Since 0.3.0. Stops the thread (an attempt in flight finishes first, at most its timeout) and
 * frees the handle. Returns 0, or the error that stopped the thread earlier (its text in
 * gatekit_last_error()). NULL is a no-op. In a child forked after the start it returns
 * GATEKIT_EFORKED and leaves the handle alone: the thread runs in the parent, which stops it. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_webhook_delivery_stop(gatekit_webhook_delivery *delivery);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_WEBHOOKS_H */
