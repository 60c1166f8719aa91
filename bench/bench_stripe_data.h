/* Stripe answers for the benchmarks: Subscription objects of numbered customers. */
#ifndef GATEKIT_BENCH_STRIPE_DATA_H
#define GATEKIT_BENCH_STRIPE_DATA_H
#include <stdio.h>
#include <stdlib.h>

/* Subscription n after renewal k, as GET /v1/subscriptions/{id} answers (2025-03-31.basil+),
 * malloc'd: an active monthly subscription whose item's period is the k-th month from base. */
static char *stripe_answer(long n, int k, long long base_s) {
    long long start = base_s + (long long)k * 2592000, end = start + 2592000;
    char *json = malloc(1400);
    snprintf(json, 1400,
             "{\"id\":\"sub_bench%ld\",\"object\":\"subscription\",\"customer\":\"cus_bench%ld\",\"status\":\"active\","
             "\"livemode\":true,\"start_date\":%lld,\"billing_cycle_anchor\":%lld,\"cancel_at_period_end\":false,\"cancel_at\":null,"
             "\"canceled_at\":null,\"ended_at\":null,\"trial_start\":null,\"trial_end\":null,\"pause_collection\":null,"
             "\"collection_method\":\"charge_automatically\",\"currency\":\"usd\",\"latest_invoice\":\"in_bench%ld_%d\","
             "\"metadata\":{\"app_user_id\":\"user-%ld\"},\"items\":{\"object\":\"list\",\"has_more\":false,\"total_count\":1,"
             "\"url\":\"/v1/subscription_items?subscription=sub_bench%ld\",\"data\":[{\"id\":\"si_bench%ld\",\"object\":"
             "\"subscription_item\",\"created\":%lld,\"quantity\":1,\"current_period_start\":%lld,\"current_period_end\":%lld,"
             "\"metadata\":{},\"price\":{\"id\":\"price_pro_monthly\",\"object\":\"price\",\"active\":true,\"currency\":\"usd\","
             "\"product\":\"prod_pro\",\"type\":\"recurring\",\"unit_amount\":999,\"unit_amount_decimal\":\"999\","
             "\"recurring\":{\"interval\":\"month\",\"interval_count\":1,\"usage_type\":\"licensed\"}}}]}}",
             n, n, base_s, base_s, n, k, n, n, n, base_s, start, end);
    return json;
}

#endif
