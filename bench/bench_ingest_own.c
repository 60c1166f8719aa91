/* Each store's own work per ingested item, in one run on tmpfs (no fsync): an App Store signed
 * transaction (its ingestion less its verification, measured beside it), a Google Play answer
 * and a Stripe answer, one call per item, 500 customers × 4 renewals each. Two shapes of Apple's
 * data: every renewal in effect when it arrives (each item changes the answer, as each Play
 * answer does), and the ledger bench's (renewals signed a month apart, ahead of the clock: one
 * change per customer). Rounds interleaved; medians. */
#include "bench.h"
#include "bench_ledger_data.h"
#include "bench_play_data.h"
#include "bench_stripe_data.h"

#include <gatekit.h>
#include <string.h>

enum { N = 2000, ROUNDS = 5 };
static char folder[] = "/tmp/gatekit-bench-own-XXXXXX";
static char shm[] = "/dev/shm/gatekit-bench-own-XXXXXX";

/* Transaction n's renewal k, bought an hour ago (k seconds apart), expiring k + 1 months out. */
static char *live_transaction(long n, int k, long long now_ms) {
    long long purchase = now_ms - 3600000LL + k * 1000LL;
    return signed_transaction_at(n, k, purchase, now_ms - 3600000LL, now_ms + (k + 1) * 2592000000LL);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

static void fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, gatekit_last_error());
    exit(1);
}

/* µs per item: verification alone, or ingestion into a new store named `name`. */
static double apple_us(char **items, const char *name) {
    gatekit_store *s = name ? open_store(shm, name) : NULL;
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < N; i++) {
        int rc = s ? ledger_ingest_transaction(NULL, s, items[i], &options) : jws_transaction_is_entitled(items[i], &options, NULL, 1);
        if (rc < 0) fail(s ? "ledger_ingest_transaction" : "jws_transaction_is_entitled");
    }
    double us = seconds_since(t0) / N * 1e6;
    if (s) gatekit_store_close(s);
    return us;
}

static double play_us(char **answers, char **tokens, const char *name, long long now_ms) {
    gatekit_store *s = open_store(shm, name);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < N; i++) {
        if (ledger_ingest_play_subscription(NULL, s, "com.example.app", tokens[i], answers[i], strlen(answers[i]), now_ms) < 0) {
            fail("ledger_ingest_play_subscription");
        }
    }
    double us = seconds_since(t0) / N * 1e6;
    gatekit_store_close(s);
    return us;
}

/* Each answer given a minute into its period, as Stripe answers each renewal when it happens. */
static double stripe_us(char **answers, const char *name, long long base_s) {
    gatekit_store *s = open_store(shm, name);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < N; i++) {
        long long answered = (base_s + (long long)(i % 4) * 2592000 + 60) * 1000;
        if (ledger_ingest_stripe(NULL, s, answers[i], strlen(answers[i]), answered, NULL) < 0) fail("ledger_ingest_stripe");
    }
    double us = seconds_since(t0) / N * 1e6;
    gatekit_store_close(s);
    return us;
}

int main(void) {
    if (!mkdtemp(folder) || !mkdtemp(shm)) {
        perror("mkdtemp");
        return 2;
    }
    setup_pki(folder);
    long long now = (long long)time(NULL) * 1000, ahead_base = now - 2592000000LL / 2, stripe_base = now / 1000 - 4 * 2592000LL - 3600;
    char **live = malloc(sizeof(char *) * N), **ahead = malloc(sizeof(char *) * N), **play = malloc(sizeof(char *) * N);
    char **tokens = malloc(sizeof(char *) * N), **stripe = malloc(sizeof(char *) * N);
    for (int i = 0; i < N; i++) {
        live[i] = live_transaction(i / 4, i % 4, now);
        ahead[i] = signed_transaction(i / 4, i % 4, ahead_base);
        play[i] = play_answer(i / 4, i % 4, ahead_base);
        tokens[i] = malloc(64);
        token_of(i / 4, tokens[i], 64);
        stripe[i] = stripe_answer(i / 4, i % 4, stripe_base);
    }
    double verify[ROUNDS], own_live[ROUNDS], own_ahead[ROUNDS], p[ROUNDS], s[ROUNDS], play_ratio[ROUNDS], stripe_ratio[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        char name[4][32];
        for (int k = 0; k < 4; k++) snprintf(name[k], sizeof name[k], "r%d-%d.sqlite", r, k);
        verify[r] = apple_us(live, NULL);
        own_live[r] = apple_us(live, name[0]) - verify[r];
        own_ahead[r] = apple_us(ahead, name[1]) - verify[r];
        p[r] = play_us(play, tokens, name[2], now);
        s[r] = stripe_us(stripe, name[3], stripe_base);
        play_ratio[r] = p[r] / own_live[r];
        stripe_ratio[r] = s[r] / own_live[r];
    }
    printf("\n## Each store's own work per ingested item (tmpfs, one call per item, %d items, medians of %d interleaved rounds)\n\n", N, ROUNDS);
    printf("| item | µs per item | ÷ an App Store transaction's own work (renewals in effect) |\n|---|---:|---:|\n");
    printf("| verification of an App Store transaction (the part subtracted) | %.1f | |\n", median(verify, ROUNDS));
    printf("| App Store transaction, renewals in effect (each item a change) | %.1f | 1.00× |\n", median(own_live, ROUNDS));
    printf("| App Store transaction, renewals signed ahead (the ledger bench's) | %.1f | |\n", median(own_ahead, ROUNDS));
    printf("| Play SubscriptionPurchaseV2 answer (each item a change) | %.1f | %.2f× |\n", median(p, ROUNDS), median(play_ratio, ROUNDS));
    printf("| Stripe Subscription answer (one change per subscription) | %.1f | %.2f× |\n", median(s, ROUNDS), median(stripe_ratio, ROUNDS));
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", folder, shm);
    if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s, %s\n", folder, shm);
    return 0;
}
