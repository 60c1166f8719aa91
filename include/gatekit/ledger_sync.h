/* gatekit/ledger_sync.h — the ledger kept in step with Apple's App Store Server API.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_SYNC_H
#define GATEKIT_LEDGER_SYNC_H

#include "ledger.h"
#include "jws.h"
#include "appstore_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Ledger sync (since 0.2.0)
 *
 * The ledger heals itself from Apple's API (docs/ledger.md, "Syncing from Apple"): a
 * notification lost to an outage is in Apple's notification history, a renewal the ledger has
 * not heard of is in the customer's transaction history and subscription statuses. Every
 * signed item the API returns is verified and ingested exactly as ledger_ingest_* does (what
 * already arrived is a duplicate), so a sync can never make an answer wrong, only complete.
 * The client (appstore_client_new) must be for the environment of the verification options;
 * its own verification, if set, is not used (each item is verified once, by ingestion).
 * ====================================================================================== */

/* What ledger_sync_notifications did (>= 0). */
#define GATEKIT_LEDGER_SYNC_DONE    1  /* caught up: everything Apple attempted to send before the
                                        * sync's end is ingested */
#define GATEKIT_LEDGER_SYNC_PARTIAL 2  /* stopped by budget_ms or max_pages ("stoppedBy"): call
                                        * again to go on */
#define GATEKIT_LEDGER_SYNC_BUSY    3  /* another process or host is syncing this environment:
                                        * nothing was done (its lease ends at "leaseUntil") */

#define GATEKIT_LEDGER_SYNC_OPTIONS_VERSION 1u

typedef struct gatekit_ledger_sync_options {
    unsigned int version;              /* set by ledger_sync_options_init */
    const gatekit_jws_options *verify; /* required: how each notification is verified (as
                                        * ledger_ingest_notification); its environment is the client's */
    long long since_ms;                /* the first sync only (no checkpoint yet): where history
                                        * starts (Unix ms); 0: as far back as Apple keeps it
                                        * (180 days in Production, 30 in Sandbox) */
    long long until_ms;                /* where the sync ends (Unix ms); 0 or later than now: now */
    long long overlap_ms;              /* each sync reads again this much before its checkpoint
                                        * (Apple's history is indexed late); default 3600000 */
    long long budget_ms;               /* stop after this long (PARTIAL; the next call goes on),
                                        * each request bounded by what is left of it; 0: the
                                        * default, 600000 (10 minutes); at most a day */
    int max_pages;                     /* stop after this many pages (PARTIAL); 0: no limit */
    long long lease_ms;                /* how long this sync keeps others out without recording a
                                        * page: a sync killed or cut off is taken over after
                                        * this long; default 120000 */
} gatekit_ledger_sync_options;

/* Static initialiser with the same defaults; then set verify. */
#define GATEKIT_LEDGER_SYNC_OPTIONS_INIT \
    { .version = GATEKIT_LEDGER_SYNC_OPTIONS_VERSION, .overlap_ms = 3600000, .lease_ms = 120000 }

/* Since 0.2.0. Sets *options to the defaults of `version` (pass GATEKIT_LEDGER_SYNC_OPTIONS_VERSION).
 * NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_sync_options_init(gatekit_ledger_sync_options *options, unsigned int version);

/* Since 0.2.0. Pages through Apple's Get Notification History from the store's checkpoint for the
 * environment (the first time: options->since_ms) to options->until_ms, verifying and ingesting
 * every notification Apple attempted to send, delivered or not. Each page is recorded in one
 * durable transaction together with the checkpoint that follows it, so a sync killed at any
 * point resumes from its last recorded page (a page token Apple no longer accepts starts that
 * window again); one process or host syncs an environment at a time (a lease in the store).
 * Nothing the server sends is kept unless it can be sent back: a page token that cannot (empty,
 * over 4096 bytes) or that repeats one of its window's earlier tokens starts the window again
 * ("unsendableTokens", "repeatedTokens"; after 3 restarts GATEKIT_EAPPSTORE_RESPONSE); a page of
 * more than 100 items (Apple sends 20) is refused before any is verified. The checkpoint never
 * passes the server's clock (its Date header): a host whose clock runs fast cannot make others
 * skip history, and a checkpoint later than the server's clock (left by an older GateKit) is
 * healed by reading all the history Apple keeps again ("healed"). "clockSkewMs": this host's
 * clock minus the server's. Made for a timer: run it every few minutes to hours. Returns GATEKIT_LEDGER_SYNC_DONE,
 * _PARTIAL or _BUSY, or < 0 (the pages recorded before stay recorded): GATEKIT_EINVAL (NULL
 * store, client or options, options->verify NULL, environments that differ, a value out of
 * range), GATEKIT_EVERSION, GATEKIT_EAPPSTORE_API (Apple's error: the message names it),
 * GATEKIT_EAPPSTORE_TRANSPORT, GATEKIT_EAPPSTORE_RESPONSE, GATEKIT_EBUSY (another sync took
 * the lease over after this one stalled past lease_ms), store errors. A notification that
 * fails verification is counted in "rejected" and skipped, never recorded.
 * out_json (may be NULL): {"version":1,"outcome":"done","stoppedBy":"caught-up","environment":
 * "Sandbox","pages":3,"items":52,"new":15,"duplicate":37,"superseded":0,"rejected":0,
 * "rejections":[{"error":-303,"message":...}],"syncedUntil":ms,"window":{"start":ms,"end":ms,
 * "pages":n},"leaseUntil":ms,"restartedWindows":0,"gap":{"from":ms,"to":ms},"clockSkewMs":n,
 * "healed":{"checkpoint":ms,"from":ms}} ("stoppedBy": caught-up, budget, max-pages or busy;
 * "window": a window left part-way; "gap": history between the checkpoint and what Apple still
 * keeps, lost for good), freed with gatekit_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_sync_notifications(char **out_json, gatekit_store *store, gatekit_appstore_client *client, const gatekit_ledger_sync_options *options);

/* Since 0.2.0. Where the environment's sync stands (an App Store environment, or a Play sync's
 * "play:<package>", the name its report prints): {"version":1,"environment":"Sandbox","syncedUntil":ms
 * or null,"checkpointAheadMs":n,"window":{...},"leaseUntil":ms} ("window" while one is part-way,
 * "leaseUntil" while a sync holds the lease, "checkpointAheadMs" when the checkpoint is more than
 * a minute after this host's clock: its clock is slow, or a fast one wrote it). For monitoring:
 * an old syncedUntil means the timer stopped. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_sync_state(char **out_json, gatekit_store *store, const char *environment);

/* Since 0.2.0. One customer brought up to date from Apple: Get Transaction History (from the revision Apple
 * gave at this customer's last refresh) and Get All Subscription Statuses, every signed item
 * verified with `verify` and ingested. customer: an original transaction id, or an app account
 * token the ledger knows transactions of (GATEKIT_ENOTFOUND when it knows none). For support
 * tools and for a customer who says they paid. The whole refresh, every request and page, ends
 * within the client's timeout_ms. A revision that cannot be sent back or repeats an earlier one
 * reads the history again from its start, once ("restartedHistories"). Returns 0 or < 0 as
 * ledger_sync_notifications. out_json (may be NULL): {"version":1,"customer":...,
 * "originalTransactionIds":[asked],"requests":2,"restartedHistories":1,"items":..,"new":..,
 * "duplicate":..,"superseded":..,"rejected":..,"rejections":[...]}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_refresh(char **out_json, gatekit_store *store, gatekit_appstore_client *client, const gatekit_jws_options *verify, const char *customer);

/* Since 0.2.0. Lets this store handle's questions ask Apple before saying no (gatekit_ledger_query's
 * refresh_budget_ms): the handle keeps its own reference to the client (free yours when you
 * like) and a copy of the options. client NULL: questions no longer ask (they answer stale).
 * Errors: GATEKIT_EINVAL (NULL store, verify NULL with a client, environments that differ). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_set_refresher(gatekit_store *store, gatekit_appstore_client *client, const gatekit_jws_options *verify);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_SYNC_H */
