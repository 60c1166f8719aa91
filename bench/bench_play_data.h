/* Google Play answers for the benchmarks: numbered purchase tokens and the
 * SubscriptionPurchaseV2 of each renewal, as the Play Developer API writes them. */
#ifndef GATEKIT_BENCH_PLAY_DATA_H
#define GATEKIT_BENCH_PLAY_DATA_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* RFC 3339 UTC of Unix ms, as Google writes timestamps. */
static void rfc3339(long long ms, char *out, size_t cap) {
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
             tm.tm_sec, ms % 1000);
}

/* The token of Play customer n. */
static void token_of(long n, char *out, size_t cap) { snprintf(out, cap, "play-token-%ld.AO-J1Ox%08lx", n, (unsigned long)n * 2654435761UL); }

/* A SubscriptionPurchaseV2 of customer n after renewal k (google-play.md §3.3), malloc'd. */
static char *play_answer(long n, int k, long long base_ms) {
    char start[40], expiry[40];
    rfc3339(base_ms, start, sizeof start);
    rfc3339(base_ms + (long long)(k + 1) * 2592000000LL, expiry, sizeof expiry);
    char order[48];
    if (k == 0) snprintf(order, sizeof order, "GPA.%04ld-%04ld-0000-00000", n / 10000, n % 10000);
    else snprintf(order, sizeof order, "GPA.%04ld-%04ld-0000-00000..%d", n / 10000, n % 10000, k - 1);
    char *json = malloc(1024);
    snprintf(json, 1024,
             "{\"kind\":\"androidpublisher#subscriptionPurchaseV2\",\"regionCode\":\"US\",\"startTime\":\"%s\","
             "\"subscriptionState\":\"SUBSCRIPTION_STATE_ACTIVE\",\"latestOrderId\":\"%s\",\"acknowledgementState\":"
             "\"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED\",\"lineItems\":[{\"productId\":\"pro\",\"expiryTime\":\"%s\","
             "\"autoRenewingPlan\":{\"autoRenewEnabled\":true,\"recurringPrice\":{\"currencyCode\":\"USD\",\"units\":\"9\","
             "\"nanos\":990000000}},\"offerDetails\":{\"basePlanId\":\"monthly\",\"offerTags\":[]},\"offerPhase\":{\"basePrice\":{}},"
             "\"latestSuccessfulOrderId\":\"%s\"}]}",
             start, order, expiry, order);
    return json;
}

#endif
