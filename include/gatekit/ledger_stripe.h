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
 * failed), it is "revoked" and never entitled.
 * ====================================================================================== */

/* Stripe objects (-800 … -899, with stripe.h's). */
#define GATEKIT_ESTRIPE_OBJECT (-814)  /* not a Stripe object the ledger reads: not JSON, another object than a subscription or a checkout.session, a member of the wrong type, a Checkout Session without its line items */

/* Options of ledger_ingest_stripe. Initialise with ledger_stripe_options_init(). */
#define GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION 1u

typedef struct gatekit_ledger_stripe_options {
    unsigned int version;               /* set by ledger_stripe_options_init */
    long long past_due_grace_ms;        /* how long "past_due" keeps access after the period paid for:
                                         * -1 (the default): the whole period Stripe is collecting
                                         * for; 0: none; else at most a year */
    const char *account_metadata_key;   /* the metadata key holding the app's user id; NULL:
                                         * "app_user_id" (1 to 40 bytes, no [ or ]) */
} gatekit_ledger_stripe_options;

#define GATEKIT_LEDGER_STRIPE_OPTIONS_INIT { .version = GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION, .past_due_grace_ms = -1 }

/* Since 0.3.0. Sets *options to the defaults of `version` (pass
 * GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION). NULL: GATEKIT_EINVAL; an unknown version:
 * GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_stripe_options_init(gatekit_ledger_stripe_options *options, unsigned int version);

/* Since 0.3.0. Ingest what Stripe's API answered: `object` is a Subscription (GET
 * /v1/subscriptions/{id}) or a Checkout Session (GET /v1/checkout/sessions/{id} with
 * expand[]=line_items, and expand[]=payment_intent to know an async payment failed), its bytes
 * exactly as Stripe sent them (at most 1 MiB), at an API version of 2025-03-31.basil or later
 * (items carry their periods). answered_ms: when Stripe answered (Unix ms), 0 for now; never
 * more than 2 s after this host's clock. options NULL: the defaults. Returns
 * GATEKIT_LEDGER_NEW, _DUPLICATE (the same answer, recorded before) or _SUPERSEDED, or a
 * negative error with the store unchanged: GATEKIT_EINVAL (arguments, options),
 * GATEKIT_EVERSION, GATEKIT_ESTRIPE_OBJECT (also an item without its period: an answer from
 * an older API version), GATEKIT_ETOOLARGE, store errors. out_json (may be
 * NULL) receives the ingest report of ledger_ingest_transaction with "kind":
 * "stripe-subscription" or "stripe-checkout-session", "store": "stripe" and "subject" (the
 * purchase). Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_stripe(char **out_json, gatekit_store *store, const void *object, size_t object_len,
                                                         long long answered_ms, const gatekit_ledger_stripe_options *options);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_STRIPE_H */
