/* Stripe in the entitlement ledger: durable ingestion of Stripe Subscription answers, one call
 * per answer and in batches (ledger_ingest_stripe_batch), beside a raw SQLite insert of the same bytes durable the same way, and the same
 * ingestion on tmpfs (GateKit's own work per answer, fsync free); ledger_is_entitled by
 * entitlement name for a Stripe customer, warm and cold, beside a raw indexed lookup of its
 * rows; then one ledger holding all three stores (a third each of Apple's signed transactions,
 * Play answers and Stripe answers, to BENCH_LEDGER_MAX purchases, default 1,000,000): the same
 * question for a customer of each store. */
#include "bench.h"
#include "bench_ledger_data.h"
#include "bench_ledger_lookup.h"
#include "bench_play_data.h"
#include "bench_stripe_data.h"

#include <gatekit.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>

static char folder[] = "/tmp/gatekit-bench-stripe-XXXXXX";
static char shm[] = "/dev/shm/gatekit-bench-stripe-XXXXXX";

/* The reference: the same answers inserted with plain SQLite, one durable transaction each, into
 * a table shaped like the rows an answer makes (its item with the bytes, its version). */
static double raw_insert_rate(char **answers, int n, const char *dir) {
    char path[700];
    snprintf(path, sizeof path, "%s/raw.sqlite", dir);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                     "CREATE TABLE t(id INTEGER PRIMARY KEY, transaction_id TEXT, original_transaction_id TEXT, product_id TEXT,"
                     " expires_ms INTEGER, signed_ms INTEGER, identity TEXT, body TEXT, UNIQUE(transaction_id, identity));"
                     "CREATE INDEX t_by_original ON t(original_transaction_id);", NULL, NULL, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "INSERT INTO t(transaction_id, original_transaction_id, product_id, expires_ms, signed_ms, identity, body)"
                           " VALUES (?1, ?2, 'prod_pro:price_pro_monthly', ?3, ?3, ?4, ?5)", -1, &st, NULL);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) {
        char tid[32], sub[32], identity[65];
        snprintf(tid, sizeof tid, "si_bench%d", i / 4);
        snprintf(sub, sizeof sub, "sub_bench%d", i / 4);
        snprintf(identity, sizeof identity, "%064d", i);
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        sqlite3_bind_text(st, 1, tid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, sub, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, i);
        sqlite3_bind_text(st, 4, identity, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 5, answers[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) { fprintf(stderr, "raw insert: %s\n", sqlite3_errmsg(db)); exit(1); }
        sqlite3_reset(st);
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    double rate = n / seconds_since(t0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rate;
}

/* Answer i was given a minute into its period (Stripe answers each renewal as it happens). */
static long long answered_ms(int i, long long base_s) { return (base_s + (long long)(i % 4) * 2592000 + 60) * 1000; }

/* batch 0: one call per answer; else ledger_ingest_stripe_batch with `batch` answers per call
 * (each batch answered at its first answer's instant). */
static double ingest_rate(gatekit_store *s, char **answers, int n, int batch, long long base_s) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i += batch ? batch : 1) {
        int k = batch ? (n - i < batch ? n - i : batch) : 1;
        int rc = batch ? ledger_ingest_stripe_batch(NULL, s, (const char *const *)answers + i, (size_t)k, answered_ms(i, base_s), NULL)
                       : ledger_ingest_stripe(NULL, s, answers[i], strlen(answers[i]), answered_ms(i, base_s), NULL);
        if (rc < 0 || (batch && rc != k)) { fprintf(stderr, "ingest: %d %s\n", rc, gatekit_last_error()); exit(1); }
    }
    return n / seconds_since(t0);
}

enum { APPLE, PLAY, STRIPE };

/* Each store's customer id: an original transaction id, a purchase token, a subscription. */
static void customer_id(int kind, long n, char *out, size_t cap) {
    if (kind == APPLE) snprintf(out, cap, "%ld", 1000000000L + n);
    else if (kind == PLAY) token_of(n, out, cap);
    else snprintf(out, cap, "sub_bench%ld", n);
}

/* One ledger of all three stores, a third of BENCH_LEDGER_MAX each, one purchase per customer:
 * the question by entitlement name for a customer of each, warm and cold. */
static void three_stores(long long now) {
    setup_pki(folder);
    const char *max_env = getenv("BENCH_LEDGER_MAX");
    long max = max_env ? atol(max_env) : 1000000, third = max / 3;
    long long base = now - 2592000000LL / 2;
    gatekit_store *s = open_store(shm, "three.sqlite");
    if (ledger_declare_catalog(s, "{\"correction\":\"the benchmark's purchases predate it\",\"products\":{"
                                  "\"pro.monthly\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]},"
                                  "\"pro\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]},"
                                  "\"prod_pro\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]}}}", 1) != 0) {
        fprintf(stderr, "ledger_declare_catalog: %s\n", gatekit_last_error());
        exit(1);
    }
    uint64_t fill0 = bench_now_ns();
    for (long filled = 0; filled < third;) {
        char *apple[100], *play[100], *tokens[100];
        int k = 0;
        for (; k < 100 && filled + k < third; k++) {
            apple[k] = signed_transaction(filled + k, 0, base);
            play[k] = play_answer(filled + k, 0, base);
            tokens[k] = malloc(64);
            token_of(filled + k, tokens[k], 64);
        }
        if (ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)apple, (size_t)k, &options) != k ||
            ledger_ingest_play_batch(NULL, s, "com.example.app", GATEKIT_LEDGER_PLAY_SUBSCRIPTION, (const char *const *)tokens,
                                     (const char *const *)play, (size_t)k, now) != k) {
            fprintf(stderr, "fill: %s\n", gatekit_last_error());
            exit(1);
        }
        char *stripe[100];
        for (int j = 0; j < k; j++) stripe[j] = stripe_answer(filled + j, 0, base / 1000);
        if (ledger_ingest_stripe_batch(NULL, s, (const char *const *)stripe, (size_t)k, now, NULL) != k) {
            fprintf(stderr, "fill: %s\n", gatekit_last_error());
            exit(1);
        }
        for (int j = 0; j < k; j++) {
            free(stripe[j]);
            free(apple[j]);
            free(play[j]);
            free(tokens[j]);
        }
        filled += k;
    }
    double fill = seconds_since(fill0);
    printf("\n### One ledger of %ld purchases: %ld Apple signed transactions, %ld Play answers, %ld Stripe answers (tmpfs)\n\n",
           3 * third, third, third, third);
    printf("| ledger_is_entitled(\"pro\") | median | p90 | raw SQLite indexed lookup of the rows | ratio |\n|---|---:|---:|---:|---:|\n");
    char path[700];
    snprintf(path, sizeof path, "%s/three.sqlite", shm);
    sqlite3 *db;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    const char *names[3] = {"an Apple customer (original transaction id)", "a Play customer (purchase token)", "a Stripe customer (subscription id)"};
    for (int kind = APPLE; kind <= STRIPE; kind++) {
        lookup_ctx c = {.store = s, .customers = third, .warm = 1, .kind = kind, .customer_id = customer_id};
        if (ledger_query_init(&c.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) exit(1);
        c.q.environment = kind == APPLE ? "Sandbox" : "Production";
        c.q.flags = kind == APPLE ? GATEKIT_LEDGER_TEST_SIGNED : 0;
        sqlite3_prepare_v2(db, kind == APPLE ? "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Sandbox'"
                                               " AND test_signed = 1 AND original_transaction_id = ?1"
                                             : "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Production'"
                                               " AND test_signed = 0 AND original_transaction_id = ?1", -1, &c.raw, NULL);
        bench_stats warm = bench_run(body_entitled, &c, 2000, 20000), warmRaw = bench_run(body_raw, &c, 2000, 20000);
        c.warm = 0;
        c.store = open_store(shm, "three.sqlite");
        bench_stats cold = bench_run(body_entitled, &c, 0, 5000);
        gatekit_store_close(c.store);
        c.next = 0;
        bench_stats coldRaw = bench_run(body_raw, &c, 0, 5000);
        sqlite3_finalize(c.raw);
        printf("| %s, warm | %.2f µs | %.2f µs | %.2f µs | %.1f× |\n", names[kind], warm.median / 1e3, warm.p90 / 1e3, warmRaw.median / 1e3,
               warm.median / warmRaw.median);
        printf("| %s, cold (a new handle, each customer once) | %.1f µs | %.1f µs | %.1f µs | %.1f× |\n", names[kind], cold.median / 1e3,
               cold.p90 / 1e3, coldRaw.median / 1e3, cold.median / coldRaw.median);
        fflush(stdout);
    }
    sqlite3_close(db);
    gatekit_store_close(s);
    printf("\n(filling the ledger: each store in batches of 100, took %.0f s including signing)\n", fill);
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    if (!mkdtemp(folder) || !mkdtemp(shm)) { perror("mkdtemp"); return 2; }
    long long now_s = (long long)time(NULL), base_s = now_s - 3 * 2592000 - 86400;
    enum { N = 2000 };
    char **answers = malloc(sizeof(char *) * N);
    for (int i = 0; i < N; i++) answers[i] = stripe_answer(i / 4, i % 4, base_s);  /* 500 subscriptions × 4 periods */
    printf("\n## Stripe in the ledger\n\nDurable: a real file system (%s), WAL, synchronous=FULL; each call is one transaction on\n"
           "disk when it returns. %d Subscription answers (%zu bytes each): 500 subscriptions × 4 monthly periods.\n", folder, N,
           strlen(answers[0]));
    printf("\n### Ingestion of %d Stripe answers\n\n| measurement | answers/s | per answer | ratio to the reference |\n|---|---:|---:|---:|\n", N);
    double raw = raw_insert_rate(answers, N, folder);
    printf("| reference: raw SQLite insert of the same bytes, one durable transaction each | %.0f | %.1f µs | 1.00× |\n", raw, 1e6 / raw);
    const char *names[3] = {"ledger_ingest_stripe, one call per answer", "ledger_ingest_stripe_batch, 20 per call",
                            "ledger_ingest_stripe_batch, 100 per call"};
    const int batches[3] = {0, 20, 100};
    for (int b = 0; b < 3; b++) {
        char file[64];
        snprintf(file, sizeof file, "stripe-%d.sqlite", b);
        gatekit_store *s = open_store(folder, file);
        double rate = ingest_rate(s, answers, N, batches[b], base_s);
        gatekit_store_close(s);
        printf("| **%s** | **%.0f** | %.1f µs | **%.2f×** |\n", names[b], rate, 1e6 / rate, rate / raw);
    }
    gatekit_store *t = open_store(shm, "tmpfs.sqlite");
    double tmpfs = ingest_rate(t, answers, N, 0, base_s);
    if (ledger_declare_catalog(t, "{\"correction\":\"the benchmark's purchases predate it\",\"products\":{"
                                  "\"prod_pro\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]}}}", 1) != 0) {
        fprintf(stderr, "ledger_declare_catalog: %s\n", gatekit_last_error());
        return 1;
    }
    printf("| one call per answer on tmpfs (fsync free: GateKit's own work left) | %.0f | %.1f µs | %.2f× |\n", tmpfs, 1e6 / tmpfs, tmpfs / raw);

    printf("\n### ledger_is_entitled(\"pro\") for a Stripe customer (500 subscriptions, tmpfs)\n\n"
           "| question | median | p90 | raw SQLite indexed lookup of the rows | ratio |\n|---|---:|---:|---:|---:|\n");
    char path[700];
    snprintf(path, sizeof path, "%s/tmpfs.sqlite", shm);
    sqlite3 *db;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    lookup_ctx c = {.store = t, .customers = N / 4, .warm = 1, .kind = STRIPE, .customer_id = customer_id};
    if (ledger_query_init(&c.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) return 1;
    c.q.environment = "Production";
    sqlite3_prepare_v2(db, "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Production'"
                           " AND test_signed = 0 AND original_transaction_id = ?1", -1, &c.raw, NULL);
    bench_stats warm = bench_run(body_entitled, &c, 2000, 20000), warmRaw = bench_run(body_raw, &c, 2000, 20000);
    c.warm = 0;
    c.store = open_store(shm, "tmpfs.sqlite");
    bench_stats cold = bench_run(body_entitled, &c, 0, N / 4);
    gatekit_store_close(c.store);
    c.next = 0;
    bench_stats coldRaw = bench_run(body_raw, &c, 0, N / 4);
    sqlite3_finalize(c.raw);
    sqlite3_close(db);
    printf("| warm | %.2f µs | %.2f µs | %.2f µs | %.1f× |\n", warm.median / 1e3, warm.p90 / 1e3, warmRaw.median / 1e3,
           warm.median / warmRaw.median);
    printf("| cold (a new handle, each customer once) | %.1f µs | %.1f µs | %.1f µs | %.1f× |\n", cold.median / 1e3, cold.p90 / 1e3,
           coldRaw.median / 1e3, cold.median / coldRaw.median);
    gatekit_store_close(t);
    for (int i = 0; i < N; i++) free(answers[i]);
    free(answers);
    three_stores(now_s * 1000);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", folder, shm);
    return system(cmd) == 0 ? 0 : 1;
}
