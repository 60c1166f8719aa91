/* gatekit/ledger_stripe.h — Stripe Billing purchases in the entitlement ledger.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_STRIPE_H
#define GATEKIT_LEDGER_STRIPE_H

#include "ledger.h"
#include "stripe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Stripe in the ledger (since 0.3.0)
 *
 * One ledger for the App Store, Google Play and Stripe (docs/stripe.md, docs/ledger.md,
 * "Stripe"): Stripe subscriptions and one-time Checkout purchases are answered by the same
 * questions (ledger_is_entitled, ledger_entitlement, ledger_active, the feed, history, the
 * customer report, the catalog's names) as the stores' purchases, with "store": "stripe" and
 * Stripe's own status ("storeState": "past_due").
 *
 * The truth is what Stripe's API answers to the merchant's secret key: the ledger records
 * exactly the object's bytes with the instant Stripe answered; the newest answer wins, and an
 * answer never changes what was known before its instant. A verified webhook
 * (stripe_verify_webhook) only says which object to read again. A subscription ("sub_…") or a
 * Checkout Session ("cs_…") is the customer id of its purchase; the app's user id in
 * client_reference_id (Checkout) or in the metadata key options->account_metadata_key
 * (default "app_user_id") links the purchase to that app account when no account holds it
 * yet, and a UUID there is its app account token. Test mode (livemode false) is kept in
 * "Sandbox", live purchases in "Production", as Apple's environments are.
 *
 * Rules (docs/ledger.md's table): entitled while "trialing" or "active" to the item's
 * current_period_end ("subscription"; cancel_at_period_end keeps the period, a sooner
 * cancel_at ends it then); "past_due" is "grace-period" for options->past_due_grace_ms after
 * the period paid for (default: the whole period Stripe is collecting for; the grace an answer
 * was ingested with stays with it), then
 * "billing-retry"; never "incomplete" ("pending"), "incomplete_expired", "unpaid"
 * ("billing-retry"), "paused" ("paused") or a status GateKit does not know; "canceled" ends
 * at ended_at. pause_collection leaves the status, so the answer, as it is. Each item (a price
 * of a product) entitles on its own; an item the newest answer no longer lists was taken
 * off by then. A catalog names a Stripe product by its id ("prod_…") or a subscription's price
 * as "prod_…:price_…". A payment-mode Checkout Session is a one-time purchase of each line
 * item's product (non-consumable: no end) that entitles only when payment_status is "paid"
 * or "no_payment_required"; still open or processing it is "pending"; expired, or complete
 * with its expanded payment intent wanting another method or canceled (an async payment that
 * failed), it is "revoked" and never entitled. Refunds and disputes: an Invoice (read with
 * expand[]=payments) or a Checkout Session says which purchase, item and period each payment
 * intent paid for; a Charge refunded whole ("refunded": true; read with expand[]=refunds)
 * revokes what its payment paid for from the refund that completed it — never a period paid
 * for since — and a partial refund revokes nothing; a Dispute revokes it from when it was
 * opened per options->dispute_policy (default: while open or lost; won, warning_closed or
 * prevented restore it). Told in any order: a refund heard before its invoice takes effect
 * when the invoice arrives. An invoice marked paid out of band pays nothing the ledger can take
 * back; the subscription's own answer ("active") says it is paid.
 * ====================================================================================== */

/* Stripe objects (-800 … -899, with stripe.h's). */
#define GATEKIT_ESTRIPE_OBJECT (-814)  /* not a Stripe object the ledger reads: not JSON, another object than a subscription, a checkout.session, an invoice, a charge or a dispute, a member of the wrong type, a Checkout Session without its line items, an invoice without its payments */

/* Options of ledger_ingest_stripe. Initialise with ledger_stripe_options_init(). */
#define GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION 1u

typedef struct gatekit_ledger_stripe_options {
    unsigned int version;               /* set by ledger_stripe_options_init */
    long long past_due_grace_ms;        /* how long "past_due" keeps access after the period paid for:
                                         * -1 (the default): the whole period Stripe is collecting
                                         * for; 0: none; else at most a year */
    const char *account_metadata_key;   /* the metadata key holding the app's user id; NULL:
                                         * "app_user_id" (1 to 40 bytes, no [ or ]) */
    int dispute_policy;                 /* when a dispute takes access back:
                                         * GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_OPENED (the default),
                                         * _REVOKE_WHEN_LOST or _NEVER */
} gatekit_ledger_stripe_options;

/* Values of dispute_policy. A dispute won, an inquiry closed (warning_closed) or a dispute
 * prevented never takes access back. */
#define GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_OPENED 0  /* from when it was opened, restored if it is won */
#define GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_LOST   1  /* only once lost, then from when it was opened */
#define GATEKIT_STRIPE_DISPUTES_NEVER              2  /* a chargeback never takes access back */

#define GATEKIT_LEDGER_STRIPE_OPTIONS_INIT { .version = GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION, .past_due_grace_ms = -1 }

/* Since 0.3.0. Sets *options to the defaults of `version` (pass
 * GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION). NULL: GATEKIT_EINVAL; an unknown version:
 * GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_stripe_options_init(gatekit_ledger_stripe_options *options, unsigned int version);

/* Since 0.3.0. Ingest what Stripe's API answered: `object` is a Subscription (GET
 * /v1/subscriptions/{id}), a Checkout Session (GET /v1/checkout/sessions/{id} with
 * expand[]=line_items, and expand[]=payment_intent to know an async payment failed), an Invoice
 * (GET /v1/invoices/{id} with expand[]=payments), a Charge (GET /v1/charges/{id} with
 * expand[]=refunds) or a Dispute (GET /v1/disputes/{id}), its bytes
 * exactly as Stripe sent them (at most 1 MiB), at an API version of 2025-03-31.basil or later
 * (items carry their periods). answered_ms: when Stripe answered (Unix ms), 0 for now; never
 * more than 2 s after this host's clock. options NULL: the defaults. Returns
 * GATEKIT_LEDGER_NEW, _DUPLICATE (the same answer, recorded before) or _SUPERSEDED, or a
 * negative error with the store unchanged: GATEKIT_EINVAL (arguments, options),
 * GATEKIT_EVERSION, GATEKIT_ESTRIPE_OBJECT (also an item without its period: an answer from
 * an older API version), GATEKIT_ETOOLARGE, store errors. out_json (may be
 * NULL) receives the ingest report of ledger_ingest_transaction with "kind":
 * "stripe-subscription", "stripe-checkout-session", "stripe-invoice", "stripe-charge" or
 * "stripe-dispute", "store": "stripe" and "subject" (the purchase). Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_stripe(char **out_json, gatekit_store *store, const void *object, size_t object_len,
                                                         long long answered_ms, const gatekit_ledger_stripe_options *options);

/* Since 0.3.0. Several Subscriptions, Checkout Sessions and Invoices (objects[i], NUL-terminated
 * JSON exactly as Stripe sent it), each checked and read as ledger_ingest_stripe does, recorded
 * together in one durable transaction (one fsync), in order: a backlog, a migration from
 * another system. A Charge or a Dispute is ingested one by one (it reads what the ledger knows
 * its payment paid for): in a batch it is refused in its place (GATEKIT_ESTRIPE_OBJECT), as any
 * answer refused is, and skipped. answered_ms: when Stripe answered them all (0: now); options
 * NULL: the defaults. Returns how many were recorded (new or superseded), or < 0 with nothing
 * written (GATEKIT_EINVAL: NULL objects with count > 0, a NULL object, more than 10000, the
 * options; GATEKIT_ETOOLARGE: an object over 1 MiB; store errors). out_json (may be NULL):
 * {"version":1,"results":[...]} in input order, each ledger_ingest_stripe's report or
 * {"error":…,"message":…}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_stripe_batch(char **out_json, gatekit_store *store, const char *const *objects,
                                                               size_t count, long long answered_ms,
                                                               const gatekit_ledger_stripe_options *options);

/* Since 0.3.0. Reads object_id from Stripe through client — a subscription ("sub_…": GET
 * /v1/subscriptions/{id}), a Checkout Session ("cs_…": with expand[]=line_items and
 * expand[]=payment_intent), an invoice ("in_…": with expand[]=payments), a charge ("ch_…",
 * "py_…": with expand[]=refunds), a refund ("re_…": its charge) or a dispute ("du_…", "dp_…")
 * — and ingests the answer as ledger_ingest_stripe does, dated when it arrived. A charge or a
 * dispute whose payment intent the ledger cannot tie to a purchase yet has that read first:
 * the invoice it paid (GET /v1/invoice_payments?payment[type]=payment_intent&…), else the
 * Checkout Session (GET /v1/checkout/sessions?payment_intent=…). Results as
 * ledger_ingest_stripe, plus GATEKIT_EINVAL (another kind of id), the
 * client's errors (GATEKIT_ESTRIPE_API with *out_json Stripe's error as stripe_get gives it,
 * _TRANSPORT, _RESPONSE). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_refresh_stripe(char **out_json, gatekit_store *store, gatekit_stripe_client *client,
                                                          const char *object_id, const gatekit_ledger_stripe_options *options);

/* Since 0.3.0. A delivery to your webhook endpoint, start to end: verified exactly as
 * stripe_verify_webhook does (signature_header, body as received, the endpoint's secrets,
 * tolerance_s 0: 300 s), then the object its event names read back from Stripe through client
 * and ingested as ledger_refresh_stripe does: a subscription, a Checkout Session, a charge or
 * a dispute itself, a refund's charge, an invoice (what its payments paid for) and its
 * subscription (parent.subscription_details.subscription); an event about anything else (a
 * customer, a price) reads nothing. The event's body is never recorded: a replayed,
 * reordered or duplicated delivery only makes the ledger ask again, and the newest answer
 * wins. Returns the ingestion's result (GATEKIT_LEDGER_NEW, _DUPLICATE, _SUPERSEDED), or
 * GATEKIT_OK when nothing was read; *out_json (may be NULL) is {"version":1,"event":{"id":…,
 * "type":…,"livemode":…,"object":{"id":…,"object":…}},"ingested":<ledger_ingest_stripe's
 * report>|null}. Errors: the GATEKIT_ESTRIPE_* verification codes (answer 400: nothing was
 * asked), GATEKIT_EINVAL (arguments; an event of the other mode than the client's key),
 * ledger_refresh_stripe's. Answer Stripe 2xx only after this returns >= 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_stripe_webhook(char **out_json, gatekit_store *store, gatekit_stripe_client *client,
                                                                 const char *signature_header, const void *body, size_t body_len,
                                                                 const char *const *secrets, size_t secret_count, int tolerance_s,
                                                                 const gatekit_ledger_stripe_options *options);

/* Since 0.3.0. Lets this store handle's questions ask Stripe before saying no
 * (gatekit_ledger_query's refresh_budget_ms), as ledger_set_refresher does for Apple: when the
 * answer is "not entitled" only because a Stripe subscription's period ended while it renews
 * and nothing was recorded since (a lost invoice.paid), the subscription is read from Stripe
 * within the budget and its answer recorded with options (NULL: the defaults); without one in
 * time the stored answer comes back with stale = 1. The client's mode is the environment it
 * answers for (a test key: Sandbox). The handle keeps its own reference to the client; NULL:
 * questions no longer ask. Errors: GATEKIT_EINVAL, GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_set_stripe_refresher(gatekit_store *store, gatekit_stripe_client *client,
                                                                const gatekit_ledger_stripe_options *options);

/* Options of ledger_sync_stripe. Initialise with ledger_stripe_sync_options_init(). */
#define GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION 1u

typedef struct gatekit_ledger_stripe_sync_options {
    unsigned int version;   /* set by ledger_stripe_sync_options_init */
    long long overlap_ms;   /* each sync reads the Events list again from this long before its
                             * checkpoint; default 600000, at most 30 days (what Stripe keeps) */
    long long budget_ms;    /* stop after this long (PARTIAL; the next call goes on); 0: the
                             * default, 600000 */
    int max_pages;          /* pages per call (PARTIAL); 0: no limit */
    long long lease_ms;     /* how long this sync keeps others out without recording a page;
                             * default 120000 */
} gatekit_ledger_stripe_sync_options;

#define GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_INIT \
    { .version = GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION, .overlap_ms = 600000, .lease_ms = 120000 }

/* Since 0.3.0. Sets *options to the defaults of `version` (pass
 * GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION). NULL: GATEKIT_EINVAL; an unknown version:
 * GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_stripe_sync_options_init(gatekit_ledger_stripe_sync_options *options, unsigned int version);

/* Since 0.3.0. Heals the ledger's Stripe purchases of the client's mode (a test key: test mode)
 * from Stripe's API, what webhooks lost to an outage would have told it: (1) the first time,
 * every subscription Stripe holds (GET /v1/subscriptions?status=all, page by page: the Events
 * list keeps only 30 days), each recorded as Stripe listed it ("listed"); (2) the Events list
 * (GET /v1/events, the types that can change an entitlement) from the store's checkpoint less
 * overlap_ms to now, page by page; each event's object — a subscription, a Checkout Session, a
 * charge, a dispute, an invoice's subscription, a refund's charge — read back from Stripe and
 * recorded once per call as
 * ledger_refresh_stripe does ("refreshed"; an object Stripe will not answer about is listed in
 * "refreshFailures" and the rest go on); the event bodies are never recorded. The page cursor
 * and the checkpoint are kept with a lease, so a sync killed at any point resumes from its page
 * and one process or host syncs a mode at a time; the checkpoint never passes Stripe's clock
 * (its Date; "clockSkewMs"). sync NULL: the defaults; options: how answers are ingested, as for
 * ledger_ingest_stripe. Returns GATEKIT_LEDGER_SYNC_DONE, _PARTIAL (budget or max_pages: call
 * again) or _BUSY, or < 0 (what was recorded stays): GATEKIT_EINVAL, GATEKIT_EVERSION,
 * GATEKIT_ESTRIPE_API (a list refused: *out_json holds Stripe's error as stripe_get gives it;
 * a restricted key needs read access to subscriptions, Checkout Sessions, invoices and
 * events), _TRANSPORT, _RESPONSE, GATEKIT_EBUSY (another sync took over after the lease lapsed),
 * store errors. out_json (may be NULL): {"version":1,"outcome":"done","stoppedBy":"caught-up",
 * "mode":"test","pages":2,"listed":10,"events":25,"refreshed":9,"restartedWindows":0,
 * "clockSkewMs":3,"refreshFailures":[],"state":{…}}. Run it from a timer, as ledger_sync. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_sync_stripe(char **out_json, gatekit_store *store, gatekit_stripe_client *client,
                                                       const gatekit_ledger_stripe_sync_options *sync,
                                                       const gatekit_ledger_stripe_options *options);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_STRIPE_H */
