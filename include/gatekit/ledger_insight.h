/* gatekit/ledger_insight.h — subscription metrics from the ledger, and its report.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_INSIGHT_H
#define GATEKIT_LEDGER_INSIGHT_H

#include "ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Ledger insight (since 0.2.0)
 *
 * The business the ledger holds, from signed data only (docs/ledger.md, "Metrics", defines
 * every figure): active subscriptions, trials and paid subscribers; new, renewed, converted,
 * recovered, reactivated and expired (by cause) subscriptions; refunds and revocations;
 * revenue, refunds and MRR per currency as Apple signed them (milliunits, never converted);
 * monthly cohorts. Reproducible as of any instant: query->at_ms counts only what Apple had
 * signed by then, as entitlement answers do. Read from one snapshot of the store.
 * ====================================================================================== */

/* Bucket sizes, in UTC: days, ISO weeks (from Monday), calendar months. */
#define GATEKIT_METRICS_DAY   1
#define GATEKIT_METRICS_WEEK  2
#define GATEKIT_METRICS_MONTH 3

/* What the series are split by (revenue and MRR are per currency besides). */
#define GATEKIT_METRICS_ALL            0  /* one series, "key": null */
#define GATEKIT_METRICS_BY_PRODUCT     1
#define GATEKIT_METRICS_BY_GROUP       2  /* subscription group */
#define GATEKIT_METRICS_BY_ENTITLEMENT 3  /* the catalog's names (ledger_declare_catalog) in effect
                                           * at the as-of instant; a product granting two counts
                                           * in both, one granting none under null */
#define GATEKIT_METRICS_BY_STOREFRONT  4  /* the country, one spelling across stores: ISO 3166-1
                                          * alpha-3 ("USA"; Play's alpha-2 "US" reads as "USA") */
#define GATEKIT_METRICS_BY_CURRENCY    5
#define GATEKIT_METRICS_BY_STORE       6  /* (since 0.2.0) the store that sold it: "app-store",
                                          * "play", "stripe", "grant" */

/* Since 0.2.0. The metrics of query->environment for [from_ms, to_ms) (from_ms moves back to the start of
 * its bucket; at most 10000 buckets; buckets starting after the as-of instant are left out), as
 * of query->at_ms (0: now). query->flags may hold GATEKIT_LEDGER_TEST_SIGNED only. *out_json
 * receives {"version":1,"environment":...,"testSigned":...,"asOf":ms,"granularity":"month",
 * "dimension":"product","buckets":[start ms,...],"end":ms,"series":[{"key":...,
 * "activeSubscriptions":[...],"activeTrials":[...],"inGracePeriod":[...],"inBillingRetry":[...],
 * "familyShared":[...],"paidSubscribers":[...],"new":[...],"newTrials":[...],"conversions":[...],
 * "renewals":[...],"recoveries":[...],"reactivations":[...],"productChanges":[...],
 * "expiredVoluntary":[...],"expiredBilling":[...],"expiredOther":[...],"trialsExpired":[...],
 * "refunded":[...],"revoked":[...],"revenue":{"USD":[...]},"refunds":{...},"netRevenue":{...},
 * "mrr":{...}}],"cohorts":[{"product":...,"month":ms,"subscribers":n,"retained":[...]}]} —
 * every array one number per bucket (levels at the bucket's end, events within it), money in
 * milliunits; freed with gatekit_free. A split with more series than 1000000 / buckets is
 * GATEKIT_ETOOLARGE. Counted from the store's day roll-up (docs/ledger.md): on a store that can
 * be written the call first brings it up to date with the items since it last counted (the
 * first call on a store builds it from every row, once: seconds per hundred thousand
 * transactions), so it writes — ledger_metrics_refresh (below) does that ahead, so a question
 * need not; the answer is always the one every row gives. A store open
 * read-only without a roll-up is read row by row (one helper thread, joined before the call
 * returns, counts a page while the next is read). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_metrics(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, long long from_ms, long long to_ms, int granularity, int dimension);

/* Since 0.3.0. Brings query->environment's day roll-up up to date with every item ingested
 * since it last counted (building it from every row the first time, 10000 subscriptions per
 * transaction): what ledger_metrics would do before answering, done ahead so that no question
 * pays for it. A host runs it after ingesting, or as a worker ("gatekit ledger metrics-refresh
 * --follow"; docs/ledger.md, "Keeping the roll-up current"). Returns 1 when it counted new
 * items, 0 when the roll-up was already current (checked without holding off any writer).
 * query->flags may hold GATEKIT_LEDGER_TEST_SIGNED only; query->at_ms is not read. A store
 * open read-only is GATEKIT_EREADONLY. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_metrics_refresh(gatekit_store *store, const gatekit_ledger_query *query);

/* Since 0.2.0. The report as one self-contained HTML page (no script, no network: inline SVG charts, text a
 * reader can select): customer NULL, the app view of ledger_metrics(dimension ALL) — MRR,
 * active subscriptions, trials and conversions, churn by cause, the cohort heat map; else the
 * customer view (an app account token or original transaction id; with GATEKIT_LEDGER_APP_USER
 * the host's user id): each subscription's timeline — periods, trials, grace, billing retry,
 * refunds, product changes — every event linked to the signed item that caused it, and the
 * answer "entitled now? why?" per product. from_ms, to_ms and granularity as ledger_metrics()
 * (the customer view draws [from_ms, to_ms)). *out_html is freed with gatekit_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_report(char **out_html, gatekit_store *store, const gatekit_ledger_query *query, long long from_ms, long long to_ms, int granularity, const char *customer);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_INSIGHT_H */
