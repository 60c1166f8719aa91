/* gatekit/ledger_play.h — Google Play purchases in the entitlement ledger.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_PLAY_H
#define GATEKIT_LEDGER_PLAY_H

#include "ledger.h"
#include "play.h"
#include "ledger_sync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Google Play in the ledger (since 0.2.0)
 *
 * One ledger for both stores (docs/ledger.md, "Google Play"): Play subscriptions and one-time
 * products are answered by the same questions (ledger_is_entitled, ledger_entitlement,
 * ledger_active, the feed, the catalog's names) as Apple's purchases, and the answer's JSON
 * names the store ("store": "play") and Google's own state ("storeState").
 *
 * Play signs nothing a server receives: the truth is what the Play Developer API answers to
 * the app's own service account over TLS. The ledger records exactly those bytes, with the
 * package, the purchase token and the instant Google answered; the newest answer wins, and an
 * answer never changes what was known before its instant (at_ms questions). A purchase token
 * is the customer id of its purchase; an obfuscatedExternalAccountId that is a UUID is its app
 * account token (as Apple's appAccountToken: one UUID per user answers for both stores).
 * Play's purchases are production purchases: environment "Production". A license tester's
 * (testPurchase) and whatever an RTDN pushed under a test issuer (not Google's) led to are
 * test data: kept apart, answered only with GATEKIT_LEDGER_TEST_SIGNED, never a sale.
 *
 * Rules (google-play.md §5): entitled in SUBSCRIPTION_STATE_ACTIVE, _IN_GRACE_PERIOD (reason
 * grace-period until expiryTime) and _CANCELED until the line item's expiryTime; not in
 * _ON_HOLD (billing-retry), _PAUSED (paused), _EXPIRED, _PENDING (pending),
 * _PENDING_PURCHASE_CANCELED or a state GateKit does not know. A purchase with
 * linkedPurchaseToken (upgrade, downgrade, re-signup, top-up) supersedes the old token once
 * it is bought: the old answers "upgraded", and asking about the old token answers from the
 * new one. One-time products: owned from purchase until consumed (non-consumable, then
 * consumable), pending never entitles, cancelled or voided is revoked.
 * ====================================================================================== */

/* Since 0.2.0. Ingest what subscriptionsv2.get answered (play_subscription_get's *out_json): `answer` is the
 * SubscriptionPurchaseV2's bytes exactly as Google sent them ("kind":
 * "androidpublisher#subscriptionPurchaseV2"; a device's purchase JSON is refused),
 * `purchase_token` the token it was asked for, `package_name` the app's. answered_ms: when
 * Google answered (Unix ms), 0 for now; never more than 2 s after this host's clock. Returns
 * GATEKIT_LEDGER_NEW, _DUPLICATE (the same answer for the same token, recorded before) or
 * _SUPERSEDED, or a negative error with the store unchanged: GATEKIT_EINVAL (arguments,
 * another package than the one this store's ledger holds), GATEKIT_EPLAY_RESPONSE (not a
 * SubscriptionPurchaseV2, a member of the wrong type), store errors. out_json (may be NULL)
 * receives the ingest report of ledger_ingest_transaction with "kind": "play-subscription",
 * "store": "play" and "acknowledged" (false: acknowledge within three days or Google
 * refunds it: play_subscription_acknowledge). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_subscription(char **out_json, gatekit_store *store, const char *package_name,
                                                                    const char *purchase_token, const void *answer, size_t answer_len,
                                                                    long long answered_ms);

/* Since 0.2.0. The same for what productsv2.getproductpurchasev2 answered (play_product_get_v2): a
 * ProductPurchaseV2, "kind": "play-product" in the report. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_product(char **out_json, gatekit_store *store, const char *package_name,
                                                               const char *purchase_token, const void *answer, size_t answer_len,
                                                               long long answered_ms);

/* Since 0.2.0. The same for what purchases.products.get answered (play_product_get: the v1
 * ProductPurchase, "kind": "androidpublisher#productPurchase", which most apps' code reads):
 * product_id is the product the request named (the answer may leave productId out; one it
 * names must be product_id, else GATEKIT_EPLAY_RESPONSE). Recorded as its productsv2 answer
 * would be: purchaseState 0/1/2 is PURCHASED/CANCELLED/PENDING, consumptionState 1 consumed,
 * purchaseType 0 (a license tester's) test data. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_product_v1(char **out_json, gatekit_store *store, const char *package_name,
                                                                  const char *product_id, const char *purchase_token, const void *answer,
                                                                  size_t answer_len, long long answered_ms);

/* Since 0.2.0. Ingest a real-time developer notification as your push endpoint received it: verified in the
 * same call exactly as play_verify_push does (authorization header, body), then the purchase
 * it names asked of the Play Developer API through `client` (for the same package) and the
 * answer recorded: a subscription notification asks subscriptionsv2.get, a one-time product
 * notification productsv2, a voided purchase either. A push is a hint, never a verdict (Pub/Sub
 * reuses its token for an hour and the token does not cover the body): its type, time and
 * refund fields decide nothing. A voided purchase or SUBSCRIPTION_REVOKED push also reads
 * Google's voided purchases list for the token (from shortly before eventTimeMillis, within the
 * 30 days Google keeps, 5 pages at most) and records each void listed there as ledger_sync_play
 * does, revoked at Google's voidedTimeMillis; a void the list does not hold changes nothing (the
 * answer's own state still ends access). A test notification, a refund review or a kind GateKit
 * does not know is recorded and changes nothing. A push whose messageId and purchase token were
 * recorded before returns GATEKIT_LEDGER_DUPLICATE without asking Google; one recorded under the
 * same messageId for another purchase does not shadow it. A messageId starting "voided:" is
 * refused (GATEKIT_EPUSH_MESSAGE: those keys are the voids').
 * Answer your push endpoint 2xx only after this returns >= 0 (Pub/Sub redelivers otherwise).
 * Errors: every play_verify_push error (GATEKIT_EPUSH_*; a NULL authorization is
 * GATEKIT_EPUSH_TOKEN, as there), GATEKIT_EPLAY_API (Google answered with an error, e.g. a token
 * older than 60 days after expiry: *out_json then holds Google's error as play.h's calls give
 * it, "httpStatus", "reason", "retryable"), _TRANSPORT, _RESPONSE, _AUTH,
 * GATEKIT_EINVAL (a client for another package), store errors. out_json: the report, "kind":
 * "play-notification", "notificationType" Google's name ("SUBSCRIPTION_RENEWED"; a voided purchase: "VOIDED_PURCHASE"),
 * "notificationUUID" the messageId. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_push(char **out_json, gatekit_store *store, gatekit_play_push_verifier *verifier,
                                                            gatekit_play_client *client, const char *authorization,
                                                            const void *body, size_t body_len);

/* Since 0.2.0. Voided purchases the host already holds: `page` is a voidedpurchases.list answer
 * as Google sent it (play_voided_purchases_list's *out_json, {"voidedPurchases":[…]}; one
 * void: a page of one). Each void is recorded as ledger_sync_play records the voids it reads:
 * once (a void recorded before is counted, not asked about), the purchase asked about again
 * through `client` and its order revoked at the voided instant (a quantity-based partial refund
 * revokes nothing); a void of a token the ledger does not hold changes nothing. Returns
 * GATEKIT_OK, or < 0 with what was recorded before the failure kept: GATEKIT_EINVAL,
 * GATEKIT_EPLAY_RESPONSE (not a voided purchases page), GATEKIT_EPLAY_API (*out_json holds
 * Google's error), _TRANSPORT, _AUTH, store errors. out_json (may be NULL):
 * {"version":1,"voided":1,"voidedBefore":0,"voidedUnknown":0}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_voided(char **out_json, gatekit_store *store, gatekit_play_client *client,
                                                              const void *page, size_t page_len);

/* Since 0.2.0. Acknowledges a Play purchase the ledger holds to Google (a purchase not
 * acknowledged within three days is refunded and revoked: google-play.md §5.5) through `client`
 * (subscriptions.acknowledge with the subscription's id, or products.acknowledge), then asks
 * Google about it again and records the answer, which says it was acknowledged. Returns what
 * that ingestion returns. Errors: GATEKIT_ENOTFOUND (no Play purchase with this token: ingest
 * Google's answer first), GATEKIT_EPLAY_* (Google's error, e.g. a plan change pending: for
 * GATEKIT_EPLAY_API *out_json holds it as play.h's calls give it),
 * GATEKIT_EINVAL, store errors. out_json: the report of the answer recorded after it. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_play_acknowledge(char **out_json, gatekit_store *store, gatekit_play_client *client,
                                                            const char *purchase_token);

/* ledger_ingest_play_batch's kinds. */
#define GATEKIT_LEDGER_PLAY_SUBSCRIPTION 1  /* SubscriptionPurchaseV2 answers */
#define GATEKIT_LEDGER_PLAY_PRODUCT      2  /* ProductPurchaseV2 answers */

/* Since 0.2.0. Several answers of one kind for one package (purchase_tokens[i] answered
 * answers[i], NUL-terminated JSON exactly as Google sent it), each checked and read as the
 * single-answer function does, recorded together in one durable transaction (one fsync): a
 * backlog, a migration from another system. One that is refused is reported in its place and
 * skipped. Returns how many were recorded (new or superseded), or < 0 with nothing written
 * (GATEKIT_EINVAL: a bad kind, NULL arrays with count > 0, a NULL token or answer, more than
 * 10000; GATEKIT_ETOOLARGE: an answer over 1 MiB; store errors). out_json (may be NULL):
 * {"version":1,"results":[...]} in input order, each the single report or {"error":…,"message":…}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_batch(char **out_json, gatekit_store *store, const char *package_name, int kind,
                                                             const char *const *purchase_tokens, const char *const *answers, size_t count,
                                                             long long answered_ms);

/* Options of ledger_sync_play. Initialise with ledger_play_sync_options_init(). */
#define GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION 1u

typedef struct gatekit_ledger_play_sync_options {
    unsigned int version;   /* set by ledger_play_sync_options_init */
    long long overlap_ms;   /* each sync reads the voided list again from this long before its
                             * checkpoint (Google records voids late); default 600000, at most
                             * 30 days (what Google keeps) */
    long long budget_ms;    /* stop after this long (PARTIAL; the next call goes on), each request
                             * bounded by what is left; 0: the default, 600000 */
    int max_pages;          /* pages of the voided list per call (PARTIAL); 0: no limit */
    long long lease_ms;     /* how long this sync keeps others out without recording a page;
                             * default 120000 */
    int max_refreshes;      /* tokens refreshed per call; 0: no refresh pass; default 1000 */
} gatekit_ledger_play_sync_options;

#define GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_INIT \
    { .version = GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION, .overlap_ms = 600000, .lease_ms = 120000, .max_refreshes = 1000 }

/* Since 0.2.0. Sets *options to the defaults of `version` (pass
 * GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION). NULL: GATEKIT_EINVAL; an unknown version:
 * GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_play_sync_options_init(gatekit_ledger_play_sync_options *options, unsigned int version);

/* Since 0.2.0. Heals the ledger's Play purchases of `client`'s package from Google's API, what
 * RTDNs lost to an outage would have told it: (1) voidedpurchases.list (type 1: subscriptions
 * too) from the store's checkpoint (the first time: the 30 days Google keeps), page by page; a
 * void of a held token asks Google about the purchase again and records the answer with the
 * voided order revoked at voidedTimeMillis (a quantity-based partial refund revokes nothing),
 * each void once ("voidedBefore" on a second sight), a token the ledger does not hold counted
 * ("voidedUnknown"); the next page token and the checkpoint kept with a lease, so a sync killed
 * at any point resumes from its page and one process or host syncs a package at a time; no
 * endTime is sent and the checkpoint never passes Google's clock (its Date; "clockSkewMs"); a
 * page token repeating an earlier one of the window, in this call or an earlier one, begins it
 * again (3 times at most, then GATEKIT_EPLAY_RESPONSE, as for a page of more than 1000 voids);
 * a budget that runs out inside a request ends the call PARTIAL, never with a transport error;
 * (2) unless the budget ran out, a refresh of every held token whose answer may have changed
 * since (a period ended with renewal on, an ended period whose last answer was not EXPIRED,
 * grace, account hold, pause, pending; a token another replaced whose own answer still gives
 * access), in token order from where the last call's pass stopped (every due token in turn,
 * whatever max_refreshes), each recorded as ledger_ingest_play_* would
 * ("refreshed"; a token Google will not answer about is listed in "refreshFailures" and the rest
 * go on). options NULL: the defaults. Returns GATEKIT_LEDGER_SYNC_DONE, _PARTIAL (budget,
 * max_pages or max_refreshes: call again) or _BUSY, or < 0 (what was recorded stays):
 * GATEKIT_EINVAL, GATEKIT_EVERSION, GATEKIT_EPLAY_API (the voided list refused: *out_json holds
 * Google's error as play.h's calls give it; the service account needs "View financial data"), _TRANSPORT,
 * _RESPONSE, _AUTH, GATEKIT_EBUSY (another sync took over after the lease lapsed), store errors.
 * out_json (may be NULL): {"version":1,"outcome":"done","stoppedBy":"caught-up","packageName":…,
 * "pages":1,"voided":0,"voidedBefore":0,"voidedUnknown":0,"refreshed":0,"restartedWindows":0,
 * "clockSkewMs":12,"refreshFailures":[],"state":{…}}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_sync_play(char **out_json, gatekit_store *store, gatekit_play_client *client,
                                                     const gatekit_ledger_play_sync_options *options);

/* Since 0.2.0. Lets this store handle's questions ask Google before saying no
 * (gatekit_ledger_query's refresh_budget_ms), as ledger_set_refresher does for Apple: when the
 * answer is "not entitled" only because a Play subscription's period ended with renewal on and
 * nothing was recorded since, subscriptionsv2.get is asked within the budget and its answer
 * recorded; without one in time the stored answer comes back with stale = 1. The handle keeps
 * its own reference to the client; NULL: questions no longer ask. Errors: GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_set_play_refresher(gatekit_store *store, gatekit_play_client *client);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_PLAY_H */
