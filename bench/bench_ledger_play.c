/* Google Play in the entitlement ledger: durable ingestion of Play answers (one call per
 * answer, ledger_ingest_play_batch) beside a raw SQLite insert of the same bytes, durable the
 * same way; then one ledger holding both stores (half Apple's signed transactions, half Play
 * answers, to BENCH_LEDGER_MAX purchases, default 1,000,000): ledger_is_entitled by
 * entitlement name, warm and cold, for a customer of each store beside a raw indexed lookup,
 * and ledger_metrics over it (the day roll-up, and split by store from every row). */
#include "bench.h"
#include "bench_ledger_data.h"
#include "bench_ledger_lookup.h"
#include "bench_play_data.h"

#include <gatekit.h>
#include <sqlite3.h>
#include <string.h>

static char folder[] = "/tmp/gatekit-bench-play-XXXXXX";
static char shm[] = "/dev/shm/gatekit-bench-play-XXXXXX";
static const char *package = "com.example.app";


/* The reference: the same answers inserted with plain SQLite, one durable transaction each, into
 * a table shaped like the rows a Play answer makes (its item with the bytes, its version). */
static double raw_insert_rate(char **answers, char **tokens, int n, const char *dir) {
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
                           " VALUES (?1, ?2, 'pro:monthly', ?3, ?3, ?4, ?5)", -1, &st, NULL);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) {
        char tid[32], identity[65];
        snprintf(tid, sizeof tid, "%d", i);
        snprintf(identity, sizeof identity, "%064d", i);
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        sqlite3_bind_text(st, 1, tid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, tokens[i], -1, SQLITE_STATIC);
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

/* batch 0: one call per answer; else ledger_ingest_play_batch with `batch` answers per call. */
static double ingest_rate(gatekit_store *s, char **answers, char **tokens, int n, int batch, long long answered) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i += batch ? batch : 1) {
        int k = batch ? (n - i < batch ? n - i : batch) : 1;
        int rc = batch ? ledger_ingest_play_batch(NULL, s, package, GATEKIT_LEDGER_PLAY_SUBSCRIPTION, (const char *const *)tokens + i,
                                                  (const char *const *)answers + i, (size_t)k, answered)
                       : ledger_ingest_play_subscription(NULL, s, package, tokens[i], answers[i], strlen(answers[i]), answered);
        if (rc < 0 || (batch && rc != k)) { fprintf(stderr, "ingest: %d %s\n", rc, gatekit_last_error()); exit(1); }
    }
    return n / seconds_since(t0);
}

/* A Play bench customer is a purchase token, an App Store one an original transaction id. */
static void customer_id(int play, long n, char *out, size_t cap) {
    if (play) token_of(n, out, cap); else snprintf(out, cap, "%ld", 1000000000L + n);
}

static bench_stats timed_metrics(gatekit_store *s, const char *environment, unsigned flags, long long from, long long to, int dimension) {
    gatekit_ledger_query q;
    if (ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION) != 0) exit(1);
    q.environment = environment;
    q.flags = flags;
    uint64_t samples[3];
    for (int r = 0; r < 3; r++) {
        char *json = NULL;
        uint64_t t0 = bench_now_ns();
        if (ledger_metrics(&json, s, &q, from, to, GATEKIT_METRICS_MONTH, dimension) != 0) {
            fprintf(stderr, "ledger_metrics: %s\n", gatekit_last_error());
            exit(1);
        }
        samples[r] = bench_now_ns() - t0;
        gatekit_free(json);
    }
    return bench_summarize(samples, 3);
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    if (!mkdtemp(folder) || !mkdtemp(shm)) { perror("mkdtemp"); return 2; }
    setup_pki(folder);
    long long now = (long long)time(NULL) * 1000, base = now - 2592000000LL / 2;
    enum { N = 2000 };
    char **answers = malloc(sizeof(char *) * N), **tokens = malloc(sizeof(char *) * N);
    for (int i = 0; i < N; i++) {
        answers[i] = play_answer(i / 4, i % 4, base);
        tokens[i] = malloc(64);
        token_of(i / 4, tokens[i], 64);
    }
    printf("\n## Google Play in the ledger\n\nDurable: a real file system (%s), WAL, synchronous=FULL; each call (each batch) is one\n"
           "transaction on disk when it returns. %d SubscriptionPurchaseV2 answers: 500 tokens × 4 renewals.\n", folder, N);
    printf("\n### Ingestion of %d Play answers\n\n| measurement | answers/s | per answer | ratio to the reference |\n|---|---:|---:|---:|\n", N);
    double raw = raw_insert_rate(answers, tokens, N, folder);
    printf("| reference: raw SQLite insert of the same bytes, one durable transaction each | %.0f | %.1f µs | 1.00× |\n", raw, 1e6 / raw);
    const char *names[3] = {"ledger_ingest_play_subscription, one call per answer", "ledger_ingest_play_batch, 20 per call",
                            "ledger_ingest_play_batch, 100 per call"};
    const int batches[3] = {0, 20, 100};
    for (int b = 0; b < 3; b++) {
        char file[64];
        snprintf(file, sizeof file, "play-%d.sqlite", b);
        gatekit_store *s = open_store(folder, file);
        double rate = ingest_rate(s, answers, tokens, N, batches[b], now);
        gatekit_store_close(s);
        printf("| **%s** | **%.0f** | %.1f µs | **%.2f×** |\n", names[b], rate, 1e6 / rate, rate / raw);
    }
    gatekit_store *t = open_store(shm, "tmpfs.sqlite");
    double tmpfs = ingest_rate(t, answers, tokens, N, 0, now);
    gatekit_store_close(t);
    printf("| one call per answer on tmpfs (fsync free: GateKit's own work left) | %.0f | %.1f µs | %.2f× |\n", tmpfs, 1e6 / tmpfs, tmpfs / raw);
    for (int i = 0; i < N; i++) { free(answers[i]); free(tokens[i]); }
    free(answers);
    free(tokens);

    /* Both stores in one ledger: half Apple's, half Play's purchases, one per customer. */
    const char *max_env = getenv("BENCH_LEDGER_MAX");
    long max = max_env ? atol(max_env) : 1000000, half = max / 2;
    gatekit_store *s = open_store(shm, "both.sqlite");
    if (ledger_declare_catalog(s, "{\"correction\":\"the benchmark's purchases predate it\",\"products\":{"
                                  "\"pro.monthly\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]},"
                                  "\"pro\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]}}}", 1) != 0) {
        fprintf(stderr, "ledger_declare_catalog: %s\n", gatekit_last_error());
        return 1;
    }
    uint64_t fill0 = bench_now_ns();
    for (long filled = 0; filled < half;) {
        char *batch[100], *play[100], *playTokens[100];
        int k = 0;
        for (; k < 100 && filled + k < half; k++) {
            batch[k] = signed_transaction(filled + k, 0, base);
            play[k] = play_answer(filled + k, 0, base);
            playTokens[k] = malloc(64);
            token_of(filled + k, playTokens[k], 64);
        }
        if (ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)batch, (size_t)k, &options) != k ||
            ledger_ingest_play_batch(NULL, s, package, GATEKIT_LEDGER_PLAY_SUBSCRIPTION, (const char *const *)playTokens,
                                     (const char *const *)play, (size_t)k, now) != k) {
            fprintf(stderr, "fill: %s\n", gatekit_last_error());
            return 1;
        }
        for (int j = 0; j < k; j++) { free(batch[j]); free(play[j]); free(playTokens[j]); }
        filled += k;
    }
    double fill = seconds_since(fill0);
    printf("\n### One ledger of %ld purchases: %ld Apple signed transactions and %ld Play answers\n\n", 2 * half, half, half);
    printf("| question | median | p90 | raw SQLite indexed lookup of the rows | ratio |\n|---|---:|---:|---:|---:|\n");
    char path[700];
    snprintf(path, sizeof path, "%s/both.sqlite", shm);
    sqlite3 *db;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    for (int play = 0; play <= 1; play++) {
        lookup_ctx c = {.store = s, .customers = half, .warm = 1, .kind = play, .customer_id = customer_id};
        if (ledger_query_init(&c.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) exit(1);
        c.q.environment = play ? "Production" : "Sandbox";
        c.q.flags = play ? 0 : GATEKIT_LEDGER_TEST_SIGNED;
        sqlite3_prepare_v2(db, play ? "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Production'"
                                      " AND test_signed = 0 AND original_transaction_id = ?1"
                                    : "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Sandbox'"
                                      " AND test_signed = 1 AND original_transaction_id = ?1", -1, &c.raw, NULL);
        bench_stats warm = bench_run(body_entitled, &c, 2000, 20000);
        bench_stats warmRaw = bench_run(body_raw, &c, 2000, 20000);
        c.warm = 0;
        c.store = open_store(shm, "both.sqlite");
        bench_stats cold = bench_run(body_entitled, &c, 0, 5000);
        gatekit_store_close(c.store);
        c.next = 0;
        bench_stats coldRaw = bench_run(body_raw, &c, 0, 5000);
        sqlite3_finalize(c.raw);
        const char *who = play ? "a Play customer (purchase token)" : "an Apple customer (original transaction id)";
        printf("| ledger_is_entitled(\"pro\"), %s, warm | %.2f µs | %.2f µs | %.2f µs | %.1f× |\n", who, warm.median / 1e3, warm.p90 / 1e3,
               warmRaw.median / 1e3, warm.median / warmRaw.median);
        printf("| ledger_is_entitled(\"pro\"), %s, cold (a new handle, each customer once) | %.1f µs | %.1f µs | %.1f µs | %.1f× |\n", who,
               cold.median / 1e3, cold.p90 / 1e3, coldRaw.median / 1e3, cold.median / coldRaw.median);
        fflush(stdout);
    }
    sqlite3_close(db);
    long long from = base - 2592000000LL * 2, to = now + 2592000000LL * 3;
    bench_stats rolled = timed_metrics(s, "Production", 0, from, to, GATEKIT_METRICS_ALL);
    bench_stats byStore = timed_metrics(s, "Production", 0, from, to, GATEKIT_METRICS_BY_STORE);
    printf("| ledger_metrics, Play's %ld subscriptions, 6 months, the day roll-up (built on first ask; median of 3) | %.0f ms | | | |\n", half,
           rolled.median / 1e6);
    printf("| ledger_metrics split by store (every row read; median of 3) | %.0f ms | | | %.1f× the roll-up |\n", byStore.median / 1e6,
           byStore.median / rolled.median);
    printf("\n(filling the ledger with both stores' %ld purchases, in batches of 100 each, took %.0f s including signing)\n", 2 * half, fill);
    gatekit_store_close(s);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", folder, shm);
    return system(cmd) == 0 ? 0 : 1;
}
