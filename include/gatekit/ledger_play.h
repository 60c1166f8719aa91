/* gatekit/ledger_play.h — Google Play purchases in the entitlement ledger.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_PLAY_H
#define GATEKIT_LEDGER_PLAY_H

#include "ledger.h"
#include "play.h"

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

/* Since 0.2.0. Ingest a real-time developer notification as your push endpoint received it: verified in the
 * same call exactly as play_verify_push does (authorization header, body), then the purchase
 * it names asked of the Play Developer API through `client` (for the same package) and the
 * answer recorded: a subscription notification asks subscriptionsv2.get, a one-time product
 * notification productsv2, a voided purchase either (a full refund revokes the voided order at
 * the notification's eventTimeMillis; SUBSCRIPTION_REVOKED revokes the subscription then). A
 * test notification, a refund review or a kind GateKit does not know is recorded and changes
 * nothing. A messageId recorded before returns GATEKIT_LEDGER_DUPLICATE without asking Google.
 * Answer your push endpoint 2xx only after this returns >= 0 (Pub/Sub redelivers otherwise).
 * Errors: every play_verify_push error (GATEKIT_EPUSH_*), GATEKIT_EPLAY_API (Google answered
 * with an error, e.g. a token older than 60 days after expiry), _TRANSPORT, _RESPONSE, _AUTH,
 * GATEKIT_EINVAL (a client for another package), store errors. out_json: the report, "kind":
 * "play-notification", "notificationType" Google's name ("SUBSCRIPTION_RENEWED"),
 * "notificationUUID" the messageId. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_play_push(char **out_json, gatekit_store *store, gatekit_play_push_verifier *verifier,
                                                            gatekit_play_client *client, const char *authorization,
                                                            const void *body, size_t body_len);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_PLAY_H */
