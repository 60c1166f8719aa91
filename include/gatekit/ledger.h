/* gatekit/ledger.h — the entitlement ledger.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_H
#define GATEKIT_LEDGER_H

#include "store.h"
#include "receipt.h"
#include "jws.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Entitlement ledger
 *
 * Is this customer entitled to this product right now, and why? The ledger lives in the store
 * and only ever ingests signed data it verifies itself in the same call (never decoded JSON):
 * App Store Server Notifications V2 (signedPayload), signed transactions
 * (signedTransactionInfo / jwsRepresentation), signed renewal infos, app receipts (each
 * purchase becomes a transaction) and AppTransactions. The options are the JWS (or receipt)
 * options of the verification; data accepted under a test anchor is kept apart from App Store
 * data and is only answered with GATEKIT_LEDGER_TEST_SIGNED. Environments are kept apart.
 *
 * A customer is an app account token or an original transaction id (a token stands for every
 * subscription whose transactions carry it). Order does not matter and repeats are harmless:
 * any permutation of the same items, each any number of times, gives the same answers.
 * Notifications dedupe on notificationUUID, every item on its replay identity; per
 * transaction (and per subscription's renewal info) the version with the newest signedDate
 * wins. The rules — status, entitlement, grace period, billing retry, refunds, upgrades,
 * family sharing, introductory offers — are in docs/ledger.md with their sources.
 *
 * Ingestion is durable when it returns (one transaction; a notification endpoint answers 200
 * only after that). Every function is safe from many threads on one handle and from many
 * processes on one store. Queries are served from a per-handle cache of the customer's
 * versions, invalidated by any write to the store (this process's or another's).
 * ====================================================================================== */

/* What ingestion did (the result of ledger_ingest_*, >= 0). */
#define GATEKIT_LEDGER_NEW         1  /* recorded, and it brought something the ledger lacked */
#define GATEKIT_LEDGER_DUPLICATE   2  /* already recorded (same signed content or notificationUUID): nothing written */
#define GATEKIT_LEDGER_SUPERSEDED  3  /* recorded in the history; what it carries was known or older: no state change */

/* Subscription statuses (1-5 are Apple's numbers, as "Get All Subscription Statuses" returns
 * them). */
#define GATEKIT_SUBSCRIPTION_ACTIVE                1
#define GATEKIT_SUBSCRIPTION_EXPIRED               2
#define GATEKIT_SUBSCRIPTION_BILLING_RETRY         3
#define GATEKIT_SUBSCRIPTION_BILLING_GRACE_PERIOD  4
#define GATEKIT_SUBSCRIPTION_REVOKED               5
#define GATEKIT_SUBSCRIPTION_PAUSED                6  /* (since 0.2.0) the customer paused it until
                                                      * the store resumes billing (a store with
                                                      * pauses: not Apple's) */
#define GATEKIT_SUBSCRIPTION_PENDING               7  /* (since 0.2.0) the store awaits the first
                                                      * payment (Google Play's pending purchase) */

/* Why a customer is (1-9) or is not (10 and up) entitled. */
#define GATEKIT_LEDGER_REASON_SUBSCRIPTION       1   /* an auto-renewable subscription period covers the instant */
#define GATEKIT_LEDGER_REASON_GRACE_PERIOD       2   /* billing failed; Apple's billing grace period still runs */
#define GATEKIT_LEDGER_REASON_NON_CONSUMABLE     3   /* a non-consumable purchase (no end) */
#define GATEKIT_LEDGER_REASON_NON_RENEWING       4   /* a non-renewing subscription covers the instant */
#define GATEKIT_LEDGER_REASON_NO_PURCHASE        10  /* nothing in the ledger matches */
#define GATEKIT_LEDGER_REASON_EXPIRED            11  /* the subscription or period ended */
#define GATEKIT_LEDGER_REASON_BILLING_RETRY      12  /* billing failed, Apple retries, no grace period left */
#define GATEKIT_LEDGER_REASON_REVOKED            13  /* refunded, or revoked (family sharing removed) */
#define GATEKIT_LEDGER_REASON_NOT_YET_PURCHASED  14  /* the purchase is after the instant */
#define GATEKIT_LEDGER_REASON_CONSUMABLE         15  /* consumables never entitle */
#define GATEKIT_LEDGER_REASON_UPGRADED           16  /* upgraded to another product of its group */
#define GATEKIT_LEDGER_REASON_ONLY_TEST_SIGNED   17  /* nothing App Store-signed matches, but data accepted
                                                      * under a test anchor does: ask with
                                                      * GATEKIT_LEDGER_TEST_SIGNED (tests), never entitled */
#define GATEKIT_LEDGER_REASON_UNKNOWN_TYPE       18  /* (since 0.2.0) a purchase with no end whose type
                                                      * neither the data nor the catalog names (a
                                                      * receipt without its product type): declare the
                                                      * product's type in the catalog; never entitled */
#define GATEKIT_LEDGER_REASON_UNKNOWN_NAME       19  /* (since 0.2.0) a catalog is in effect and names no
                                                      * such product, group or entitlement: a typo, not
                                                      * a non-customer (the answer's JSON names the
                                                      * nearest name, "didYouMean"); never entitled */
#define GATEKIT_LEDGER_REASON_PAUSED             20  /* (since 0.2.0) the customer paused the
                                                      * subscription; it resumes when the store
                                                      * bills again */
#define GATEKIT_LEDGER_REASON_PENDING            21  /* (since 0.2.0) the store awaits payment (Google
                                                      * Play's pending purchase): no access until it
                                                      * completes */
#define GATEKIT_LEDGER_REASON_UNKNOWN_CUSTOMER   22  /* (since 0.2.0) the ledger holds nothing of this
                                                      * customer, token or app account in the
                                                      * environment asked (and its test part): an id
                                                      * it has never seen, not one who bought nothing */

/* Since 0.2.0. A reason's name as the JSON answers say it ("no-purchase"), static storage;
 * NULL for a number that is no reason. */
GATEKIT_API const char *ledger_reason_name(int reason);

/* Since 0.2.0. 1 when the reason entitles (a subscription, grace period, non-consumable or
 * non-renewing period covers the instant), 0 for every other number. */
GATEKIT_API int ledger_reason_entitles(int reason);

/* gatekit_ledger_query flags. */
#define GATEKIT_LEDGER_TEST_SIGNED 0x1u  /* answer from data accepted under a test anchor (tests
                                          * only): never mixed with App Store data */
#define GATEKIT_LEDGER_APP_USER    0x2u  /* since 0.2.0: the customer argument is the host's own
                                          * user id (ledger_link): the answer of every customer
                                          * linked to it at the instant, together */

#define GATEKIT_LEDGER_QUERY_VERSION 2u  /* 2 (since 0.2.0): refresh_budget_ms */

/* Which part of the ledger a question is about, and when. Initialise with ledger_query_init(). */
typedef struct gatekit_ledger_query {
    unsigned int version;     /* set by ledger_query_init; GATEKIT_EVERSION if unknown */
    const char *environment;  /* required: "Production", "Sandbox", "Xcode" or "LocalTesting" */
    long long at_ms;          /* 0: now, from everything held. Else as of that instant (Unix ms):
                               * only what Apple had signed by then counts, so the answer is the
                               * one the ledger would have given then (audits, disputes). An
                               * instant within 2 s before the library's clock, or later, is
                               * answered as now (a host's own "now" is read before the call) */
    unsigned int flags;       /* GATEKIT_LEDGER_* flags above; 0: none */
    long long refresh_budget_ms; /* since 0.2.0. > 0: when the answer is "not entitled" only
                               * because a subscription period ended with auto-renew on and
                               * nothing recorded since, ask Apple first (ledger_set_refresher,
                               * <gatekit/ledger_sync.h>) within this many ms; without an answer
                               * in time the stored answer comes back with stale = 1. Certain
                               * answers never wait. 0: never ask. Only for at_ms = 0 (now) */
} gatekit_ledger_query;

/* Static initialiser: gatekit_ledger_query q = GATEKIT_LEDGER_QUERY_INIT; */
#define GATEKIT_LEDGER_QUERY_INIT { .version = GATEKIT_LEDGER_QUERY_VERSION }

/* Sets *query to the defaults of `version` (pass GATEKIT_LEDGER_QUERY_VERSION): zeroes it and
 * sets its version. NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_query_init(gatekit_ledger_query *query, unsigned int version);

#define GATEKIT_ENTITLEMENT_VERSION 2u  /* 2 (since 0.2.0): stale */

/* The details of an entitlement answer (ledger_is_entitled). The caller sets version to
 * GATEKIT_ENTITLEMENT_VERSION; the library fills that version's members. Product and
 * transaction ids come with ledger_entitlement() (JSON). */
typedef struct gatekit_entitlement {
    unsigned int version;     /* in: GATEKIT_ENTITLEMENT_VERSION */
    int entitled;             /* 1 or 0, as returned */
    int reason;               /* GATEKIT_LEDGER_REASON_* */
    int status;               /* the subscription's GATEKIT_SUBSCRIPTION_*, 0 when not a subscription */
    int family_shared;        /* 1: the deciding purchase came through Family Sharing */
    long long since_ms;       /* purchase date of the deciding transaction; 0 when none */
    long long until_ms;       /* when the entitlement ends (expiry, grace period end); 0: no end, or not entitled */
    int stale;                /* since 0.2.0. 1: query->refresh_budget_ms asked Apple first and no
                               * answer came in time (or no refresher is set): the stored answer */
} gatekit_entitlement;

/* Ingest: verify the signed datum exactly as jws_verify_*() does with the same options, then
 * record it and the versions it carries in one durable transaction. Returns
 * GATEKIT_LEDGER_NEW, _DUPLICATE or _SUPERSEDED (>= 0), or a negative error (the store is
 * unchanged): every GATEKIT_EJWS_* code, GATEKIT_EJWS_PAYLOAD_FIELD when a transaction lacks
 * transactionId, originalTransactionId, productId or signedDate (a renewal info
 * originalTransactionId or signedDate), store errors. out_json (may be NULL) receives
 * {"version":1,"outcome":"new","kind":"notification","environment":...,"testSigned":...,
 * "identity":...,"notificationType":...,"subtype":...,"notificationUUID":...,"customer":...,
 * "appAccountToken":...,"originalTransactionIds":[...],"statusChanges":[{"originalTransactionId":
 * ...,"subscriptionGroupIdentifier":...,"from":1,"to":4}]}, freed with gatekit_free.
 * Notifications of every type are recorded; their data decides the state, never the type
 * alone (summary, external-purchase, app-data and TEST notifications change nothing). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_notification(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_transaction(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_renewal_info(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
/* An AppTransaction is recorded in the history and changes no entitlement. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_app_transaction(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);

/* One endpoint for both environments (App Store Connect lets Production and Sandbox share a
 * URL): options[0..count) holds at most one options struct per environment (1 to 4); the
 * environment the notification's payload names picks which one verifies it — with that
 * environment's rules, the app Apple id for Production — and the ledger keeps the environments
 * apart as always. Results as ledger_ingest_notification; a notification for an environment
 * none of the options is for: GATEKIT_EJWS_ENVIRONMENT; two options for one environment, a
 * NULL options entry, count 0 or over 4: GATEKIT_EINVAL. Since 0.2.0. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_notification_any(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *const *options, size_t count);

/* Several signed items of one kind (GATEKIT_JWS_TRANSACTION, _RENEWAL_INFO, _NOTIFICATION or
 * _APP_TRANSACTION) recorded together in one durable transaction: a page of the App Store
 * Server API's transaction history, a backlog of notifications. Each item is verified exactly
 * as the single-item function would; one that fails is reported in its place and skipped.
 * Returns how many items were recorded (new or superseded; duplicates are not), or < 0 when
 * nothing was written (GATEKIT_EINVAL: a bad kind, NULL jws with count > 0, a NULL item, more
 * than 10000 items; GATEKIT_ETOOLARGE: more than 64 MiB of text in all; store errors).
 * out_json (may be NULL): {"version":1,"results":[...]} in input order, each the single-item
 * report or {"error":-307,"message":"..."}. One fsync for the whole batch instead of one per
 * item (figures in BENCHMARKS.md). A batch of 8 or more items is verified on every core:
 * helper threads that live only for the call (joined before it returns). On SQLite the items
 * are recorded while the helpers verify the next ones; on PostgreSQL once all are verified
 * (the transaction first locks every subscription they name). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_batch(char **out_json, gatekit_store *store, int kind, const char *const *jws, size_t count, const gatekit_jws_options *options);

/* Ingest an app receipt: validate it exactly as receipt_validate() does, then record each
 * in-app purchase as a version of its transaction signed at the receipt's creation date.
 * Receipts carry no subscription group ids: a purchase takes its product's group from signed
 * transactions of that product in the ledger. Results and errors as above, plus every
 * GATEKIT_ERECEIPT_* code. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_receipt(char **out_json, gatekit_store *store, const void *data, size_t len, const gatekit_receipt_options *options);

/* Since 0.2.0. The host's product catalog, declared once and kept (docs/ledger.md "Products and named
 * entitlements"): catalog_json = {"products":{"<product id>":{"type":"auto-renewable",
 * "group":"<subscription group id>","entitlements":["pro"],"term":"P30D"}}} — every member
 * optional; type one of auto-renewable, non-consumable, consumable, non-renewing; term (an ISO
 * 8601 duration of days, weeks, months or years) only for non-renewing subscriptions, whose
 * term Apple leaves to the app; a term is at most 100 years, a product grants at most 1000
 * entitlements. It takes effect at effective_ms (Unix ms; 0: now) and stays in effect until a
 * later one does: answers as of an instant use the catalog in effect then. An effective_ms
 * before now would change answers already given as of the instants between: it is refused
 * unless the document says why ("correction":"<reason>", kept with the catalog and shown by
 * ledger_catalog). A member unknown or of the wrong type, a member named twice anywhere, a
 * repeated entitlement, a term on another type, a back-dated catalog without a correction:
 * GATEKIT_EINVAL (nothing is stored). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_declare_catalog(gatekit_store *store, const char *catalog_json, long long effective_ms);

/* Since 0.2.0: ledger_declare_catalog, and what it changes as *out_json (free with
 * gatekit_free), worked out against the purchases the ledger holds — so a typo'd product id is
 * seen before it turns an entitlement off: {"version":1,"declared":true,"effective":ms,
 * "unseenProducts":[{"product":"…","didYouMean":"…"}],"unseenLookupKeys":[{"lookupKey":"…","didYouMean":"…"}],
 * "unnamedProducts":["…"],"warnings":["…"],"entitlementChanges":[{"product":"…","gained":["…"],"lost":["…"]}]}.
 * unseenProducts: named by the catalog, never purchased (didYouMean: a purchased product id one
 * or two edits away, or the same in another case); unseenLookupKeys (since 0.3.0): the same for
 * the catalog's "lookupKeys" entries, against the keys plans were seen bearing; unnamedProducts: purchased, not named by the catalog;
 * entitlementChanges: the names a purchased product gains and loses against the catalog in
 * effect at effective_ms; warnings: a sentence for each likely mistake (a didYouMean, an
 * unnamed product, a name lost), none for a catalog that only adds. flags GATEKIT_CATALOG_CHECK_ONLY: the report only, nothing declared
 * ("declared":false). Errors as ledger_declare_catalog; unknown flag bits: GATEKIT_EINVAL. */
#define GATEKIT_CATALOG_CHECK_ONLY 0x1u
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_declare_catalog_report(char **out_json, gatekit_store *store, const char *catalog_json,
                                                                  long long effective_ms, unsigned int flags);

/* Since 0.2.0. The catalog in effect at at_ms (0: now): {"version":1,"effective":ms,"declared":ms,
 * "products":{...as declared...}} (with "lookupKeys":{...} when it declares entries by key,
 * since 0.3.0), or {"version":1,"products":{}} when none was declared by then. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_catalog(char **out_json, gatekit_store *store, long long at_ms);

/* 1 when the customer is entitled to product_or_group (a product id; a subscription group id:
 * any product of it; or an entitlement name the catalog in effect says a product grants) at
 * query->at_ms, 0 when not, < 0 on error (never entitled on error).
 * out (may be NULL) receives the reason, status and dates. The fast path: answered from memory
 * when this handle has the customer's versions cached (figures: BENCHMARKS.md). Errors: GATEKIT_EINVAL (NULL store, query, customer or
 * product_or_group; a customer of 0 or over 256 bytes), GATEKIT_EVERSION (query or out
 * version), store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_is_entitled(gatekit_entitlement *out, gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *product_or_group);

/* The same answer as JSON: {"version":1,"entitled":true,"reason":"grace-period","productId":...,
 * "subscriptionGroupIdentifier":...,"transactionId":...,"originalTransactionId":...,"status":4,
 * "familyShared":false,"since":ms,"until":ms,"entitlements":["pro"]}. Members that do not apply
 * are absent ("entitlements": the names the catalog says the product grants; "stale":true as
 * gatekit_entitlement's stale). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_entitlement(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *product_or_group);

/* Every product the customer is entitled to at the instant, once each (its longest-lasting
 * entitlement), ordered by product id: {"version":1,"entitlements":[{...as above...}]}; each
 * with "entitlements":["pro",…] when the catalog names what the product grants. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_active(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer);

/* The customer's subscriptions as the App Store Server API's "Get All Subscription Statuses"
 * returns them: {"version":1,"environment":...,"testSigned":...,"data":[{
 * "subscriptionGroupIdentifier":...,"lastTransactions":[{"status":1,"originalTransactionId":...,
 * "signedTransactionInfo":...,"signedRenewalInfo":...,"gatekit":{...}}]}]}. The signed strings
 * are the ones the status was computed from (absent for receipt purchases). group: NULL for
 * every group. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_subscription_status(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *group);

/* 1 when the customer may be offered the introductory offer of subscription group `group`
 * (they never had a subscription or an introductory offer in it), 0 when not, < 0 on error. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_intro_eligible(gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *group);

/* App accounts (since 0.2.0; docs/ledger.md, "App accounts"): the host's own user ids linked
 * to ledger customers (app account tokens, original transaction ids), per environment. A
 * customer belongs to one app account at a time: linking it to another moves it (a transfer,
 * kept in the history). Questions with GATEKIT_LEDGER_APP_USER then name the app account.
 * Every link and unlink is kept with its instant: as-of questions use the links of their time.
 * An app account linked to a token follows Apple's transfers (a transaction re-signed with
 * another appAccountToken leaves it). A subscription is one account's whichever identifier was
 * linked: the newest claim holds it (a link of its original transaction id from the link; of
 * its token from the link or from Apple's first signature with that token, whichever is later).
 * app_user_id: 1 to 256 bytes; customer as for the questions. */

/* Since 0.2.0. Returns 1 (linked), 2 (moved from another app account, which lost it — the customer, or a
 * subscription it stands for that another account held through its other identifier) or 0
 * (already linked to this one, and holding all it stands for); < 0 on error (GATEKIT_EINVAL: a
 * NULL or empty argument, an unknown environment). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_link(gatekit_store *store, const char *environment, const char *app_user_id, const char *customer);

/* Since 0.2.0. Returns 1 (unlinked) or 0 (it was not linked to this app account). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_unlink(gatekit_store *store, const char *environment, const char *app_user_id, const char *customer);

/* Since 0.2.0. The links in effect at at_ms (0: now) and every change, of app_user_id and/or customer (NULL:
 * any): {"version":1,"environment":...,"links":[{"appUserId":...,"customer":...,"since":ms}],
 * "changes":[{"appUserId":...,"customer":...,"linked":true,"at":ms,"cause":"transfer"|null}]}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_links(char **out_json, gatekit_store *store, const char *environment, const char *app_user_id, const char *customer, long long at_ms);

/* The change feed (since 0.2.0; docs/ledger.md, "The change feed"): every change of an answer
 * — entitled or not, reason, status, until, and whether the subscription renews ("willRenew":
 * auto-renew turned off is a change) — for a subscription (original transaction id) and
 * product, numbered in commit order with no gaps together with the feed's notices (below). Its cause is the ingested item ("ingest",
 * with "item": the history's item id; a sync's items too) or time ("time": a period ended, a
 * grace period ran out, a catalog's term took effect, with nothing ingested), dated "at" the
 * instant it took effect, or a transfer ("transfer": ledger_link moved the purchase to another
 * app account; the answer as it stands, the new account in "appUserIds"). Time's changes are appended when the feed is next read or waited on
 * (ledger_wait_changes wakes at that instant), the subscription next ingested, or a sync
 * (ledger_sync_notifications) ends; questions never wait on them. A host keeps its cursor and moves it after handling a change: at least
 * once. Each change names the subscription's app account token and the app accounts linked to
 * it or the token when it was appended ("appUserIds"), and the store that sold it ("store":
 * "app-store", "play", "stripe" or "grant"). */

/* Since 0.2.0. The changes after after_seq (0: from the first), oldest first, at most limit (1 to 10000):
 * {"version":1,"changes":[{"seq":1,"environment":...,"testSigned":...,"originalTransactionId":
 * ...,"appAccountToken":...,"appUserIds":[...],"store":"app-store","productId":...,"entitlements":["pro"],
 * "entitled":true,"reason":"subscription","status":1,"until":ms,"willRenew":true,"at":ms,"cause":"ingest",
 * "item":7,"recorded":ms}],"last":seq} — members that do not apply are absent; "last" is the
 * cursor to pass next (after_seq when there was nothing new). Since 0.3.0 the page may also
 * hold "notices":[{"seq":...,"at":ms,"kind":"webhook_endpoint_disabled","endpointId":...,"url":...,
 * "detail":...}] (absent when none): what happened to the ledger's delivery rather than to a
 * purchase (the delivery worker disabled an endpoint, "detail" saying why), numbered with the
 * changes; limit counts both, and ledger_wait_changes wakes for either. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_changes(char **out_json, gatekit_store *store, long long after_seq, int limit);

/* Since 0.2.0. 1 as soon as a change after after_seq exists, 0 when timeout_ms (0 to 3600000) passed first.
 * Woken by any process's commit (SQLite: the store's change probe, read every 2 ms;
 * PostgreSQL: the commit notifications on the store's connection) and at the instant time next
 * changes an answer. Blocks the calling thread only; other threads may use the handle. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_wait_changes(gatekit_store *store, long long after_seq, int timeout_ms);

/* The history as JSON, oldest first: every ingested item with its decoded payload and every
 * status change with the item that caused it: {"version":1,"environment":...,"testSigned":...,
 * "items":[{"id":1,"kind":"notification","identity":...,"notificationUUID":...,
 * "notificationType":...,"subtype":...,"signedDate":ms,"ingestedAt":ms,"outcome":"new",
 * "originalTransactionIds":[...],"payload":{...}}],"statusChanges":[{"originalTransactionId":
 * ...,"subscriptionGroupIdentifier":...,"from":null,"to":1,"item":1,"at":ms}]}. customer: NULL
 * for every item of the environment. query->at_ms is not used. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_history(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_H */
