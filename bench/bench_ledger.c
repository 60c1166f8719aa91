/* The entitlement ledger: durable ingestion (one process and four) beside its ceiling (JWS
 * verification alone) and beside a raw SQLite insert of the same rows, durable the same way;
 * ledger_is_entitled warm and cold from 1,000 to 1,000,000 transactions beside a raw indexed
 * SQLite lookup. Signed data is made here with the throw-away PKI (OpenSSL signs in-process). */
#include "bench.h"
#include "bench_ledger_data.h"

#include <gatekit.h>
#include <openssl/pem.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-bench-ledger-XXXXXX";
static char shm[] = "/dev/shm/gatekit-bench-ledger-XXXXXX";


/* The reference: the same rows inserted with plain SQLite, one durable transaction each, into
 * a table shaped like ledger_transactions (same columns and indexes), WAL + synchronous=FULL. */
static double raw_insert_rate(char **items, int n, const char *dir, int notification) {
    char path[700];
    snprintf(path, sizeof path, "%s/raw-%d.sqlite", dir, notification);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                     "CREATE TABLE t(id INTEGER PRIMARY KEY, environment TEXT, test_signed INTEGER, transaction_id TEXT,"
                     " original_transaction_id TEXT, product_id TEXT, group_id TEXT, purchase_ms INTEGER, expires_ms INTEGER,"
                     " signed_ms INTEGER, identity TEXT, body TEXT, UNIQUE(environment, test_signed, transaction_id, identity));"
                     "CREATE INDEX t_by_original ON t(environment, test_signed, original_transaction_id);", NULL, NULL, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "INSERT INTO t(environment, test_signed, transaction_id, original_transaction_id, product_id, group_id,"
                           " purchase_ms, expires_ms, signed_ms, identity, body) VALUES ('Sandbox', 1, ?1, ?2, 'pro.monthly',"
                           " '21000000', ?3, ?4, ?5, ?6, ?7)", -1, &st, NULL);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) {
        char tid[32], otid[32], identity[65];
        snprintf(tid, sizeof tid, "%d", i);
        snprintf(otid, sizeof otid, "%d", i / 4);
        snprintf(identity, sizeof identity, "%064d", i);
        const char *body = strchr(items[i], '.') + 1;
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        sqlite3_bind_text(st, 1, tid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, otid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, i);
        sqlite3_bind_int64(st, 4, i + 1);
        sqlite3_bind_int64(st, 5, i);
        sqlite3_bind_text(st, 6, identity, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 7, body, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) { fprintf(stderr, "raw insert: %s\n", sqlite3_errmsg(db)); exit(1); }
        sqlite3_reset(st);
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    double rate = n / seconds_since(t0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rate;
}

/* Verification alone (the ceiling): decoded, no JSON made for a transaction; a
 * notification's three signatures verified and decoded. */
static int verify_one(const char *jws, int notification) {
    if (!notification) return jws_transaction_is_entitled(jws, &options, NULL, 1);
    gatekit_jws *h = NULL;
    int rc = jws_verify(&h, GATEKIT_JWS_NOTIFICATION, jws, &options);
    jws_free(h);
    return rc;
}

static double verify_rate(char **items, int n, int notification) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++)
        if (verify_one(items[i], notification) < 0) { fprintf(stderr, "verify: %s\n", gatekit_last_error()); exit(1); }
    return n / seconds_since(t0);
}

static int ingest_one(gatekit_store *s, const char *jws, int notification) {
    return notification ? ledger_ingest_notification(NULL, s, jws, &options) : ledger_ingest_transaction(NULL, s, jws, &options);
}

/* batch 0: one call per item; else ledger_ingest_batch with `batch` items per call. */
static double ingest_rate(gatekit_store *s, char **items, int n, int notification, int batch) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i += batch ? batch : 1) {
        int rc = batch ? ledger_ingest_batch(NULL, s, notification ? GATEKIT_JWS_NOTIFICATION : GATEKIT_JWS_TRANSACTION,
                                             (const char *const *)items + i, (size_t)(n - i < batch ? n - i : batch), &options)
                       : ingest_one(s, items[i], notification);
        if (rc < 0) { fprintf(stderr, "ingest: %s\n", gatekit_last_error()); exit(1); }
    }
    return n / seconds_since(t0);
}

/* `procs` processes, each with its own handle and its share of the items, at once. */
static double parallel_rate(int procs, char **items, int n, const char *dir, int ingest, int notification) {
    uint64_t t0 = bench_now_ns();
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            gatekit_store *s = ingest ? open_store(dir, notification ? "parallel-n.sqlite" : "parallel-t.sqlite") : NULL;
            for (int i = p; i < n; i += procs) {
                int rc = ingest ? ingest_one(s, items[i], notification) : verify_one(items[i], notification);
                if (rc < 0) { fprintf(stderr, "child: %s\n", gatekit_last_error()); _exit(1); }
            }
            gatekit_store_close(s);
            _exit(0);
        }
    }
    int failed = 0;
    for (int p = 0; p < procs; p++) {
        int status;
        wait(&status);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    if (failed) { fprintf(stderr, "bench_ledger: a child failed\n"); exit(1); }
    return n / seconds_since(t0);
}

/* ---- the metrics roll-up kept current by a worker (issue 64) --------------------------------- */

static volatile sig_atomic_t refresher_stopping;
static void stop_refresher(int sig) { (void)sig; refresher_stopping = 1; }

/* A child process doing what `gatekit ledger metrics-refresh --follow` does on the store
 * dir/name: ledger_metrics_refresh, a quarter of a second's pause after a pass that found
 * nothing new, until SIGTERM. It exits 0 when it counted something. */
static pid_t start_refresher(const char *dir, const char *name) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    gatekit_store *s = open_store(dir, name);
    gatekit_ledger_query q;
    if (ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION) != 0) _exit(1);
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    struct timespec tick = {0, 250 * 1000000L};
    int counted = 0;
    while (!refresher_stopping) {
        int rc = ledger_metrics_refresh(s, &q);
        if (rc < 0) { fprintf(stderr, "ledger_metrics_refresh: %s\n", gatekit_last_error()); _exit(1); }
        counted |= rc;
        if (rc == 0) nanosleep(&tick, NULL);
    }
    gatekit_store_close(s);
    _exit(counted ? 0 : 3);
}

static void stop(pid_t pid) {
    int status = 0;
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "bench_ledger: the metrics worker failed (%d)\n", status); exit(1); }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One call per item into a fresh store, without (A) and with (B) a metrics worker following,
 * interleaved `rounds` times; the medians, and the first question after the last item (B: a
 * second after it, the worker having caught up; A: the question counts every item itself). */
static void refresher_ab(char **items, int n, double verify) {
    enum { rounds = 5 };
    double rate[2][rounds], question[2][rounds];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stop_refresher;
    sigaction(SIGTERM, &sa, NULL);  /* inherited by the worker; this process is never sent it */
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < 2; b++) {
            char file[64];
            snprintf(file, sizeof file, "ab-%d-%d.sqlite", b, r);
            gatekit_store *s = open_store(folder, file);
            pid_t worker = b ? start_refresher(folder, file) : 0;
            rate[b][r] = ingest_rate(s, items, n, 0, 0);
            if (b) {
                struct timespec settle = {1, 0};
                nanosleep(&settle, NULL);
            }
            gatekit_ledger_query q;
            if (ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION) != 0) exit(1);
            q.environment = "Sandbox";
            q.flags = GATEKIT_LEDGER_TEST_SIGNED;
            long long now = (long long)time(NULL) * 1000;
            char *out = NULL;
            uint64_t t0 = bench_now_ns();
            if (ledger_metrics(&out, s, &q, now - 90LL * 86400000, now, GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL) != 0) {
                fprintf(stderr, "ledger_metrics: %s\n", gatekit_last_error());
                exit(1);
            }
            question[b][r] = (double)(bench_now_ns() - t0) / 1e6;
            gatekit_free(out);
            if (b) stop(worker);
            gatekit_store_close(s);
        }
    }
    for (int b = 0; b < 2; b++) {
        qsort(rate[b], rounds, sizeof(double), by_value);
        qsort(question[b], rounds, sizeof(double), by_value);
    }
    double a = rate[0][rounds / 2], w = rate[1][rounds / 2];
    printf("\n### The metrics roll-up kept current while ingesting (issue 64)\n\n"
           "%d signed transactions, one durable call each, into a fresh store; A: nothing else running; B: a second process running "
           "`ledger_metrics_refresh` as `gatekit ledger metrics-refresh --follow` does. Interleaved A, B %d times; medians.\n\n"
           "| measurement | A: no worker | B: a worker following | B / A |\n|---|---:|---:|---:|\n", n, rounds);
    printf("| ingestion, items/s | %.0f (%.2f× the ceiling) | %.0f (%.2f× the ceiling) | %.3f× |\n", a, a / verify, w, w / verify, w / a);
    printf("| ingestion, per item | %.1f µs | %.1f µs | %.3f× |\n", 1e6 / a, 1e6 / w, a / w);
    printf("| the first ledger_metrics after the last item (B: 1 s later) | %.1f ms | %.1f ms | %.3f× |\n", question[0][rounds / 2],
           question[1][rounds / 2], question[1][rounds / 2] / question[0][rounds / 2]);
    fflush(stdout);
}

/* ---- lookups ------------------------------------------------------------------------------- */

typedef struct {
    gatekit_store *store;
    gatekit_ledger_query q;
    long customers, next;
    int warm;
    const char *subject;  /* a product id, or an entitlement name the catalog gives it */
    sqlite3_stmt *raw;
} lookup_ctx;

static int body_entitled(void *p) {
    lookup_ctx *c = p;
    char customer[32];
    long n = c->warm ? 7 : (c->next++ * 7919) % c->customers;  /* 7919 is prime: every customer once */
    snprintf(customer, sizeof customer, "%ld", 1000000000L + n);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    return ledger_is_entitled(&e, c->store, &c->q, customer, c->subject) < 0;
}

static int body_raw(void *p) {
    lookup_ctx *c = p;
    char customer[32];
    long n = c->warm ? 7 : (c->next++ * 7919) % c->customers;
    snprintf(customer, sizeof customer, "%ld", 1000000000L + n);
    sqlite3_bind_text(c->raw, 1, customer, -1, SQLITE_TRANSIENT);
    int rows = 0;
    while (sqlite3_step(c->raw) == SQLITE_ROW) rows++;
    sqlite3_reset(c->raw);
    return rows == 0;
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    if (!mkdtemp(folder) || !mkdtemp(shm)) { perror("mkdtemp"); return 2; }
    setup_pki(folder);
    long long base = (long long)time(NULL) * 1000 - 2592000000LL / 2;
    enum { N = 2000 };
    printf("\n## Entitlement ledger\n\nDurable: a real file system (%s), WAL, synchronous=FULL; each call (each batch) is one\n"
           "transaction that is on disk when it returns. 500 customers × 4 monthly renewals.\n", folder);
    for (int notification = 1; notification >= 0; notification--) {
        const char *what = notification ? "notifications (DID_RENEW: transaction and renewal info nested, 3 signatures)"
                                        : "signed transactions";
        char **items = malloc(sizeof(char *) * N);
        for (int i = 0; i < N; i++)
            items[i] = notification ? signed_notification(i / 4, i % 4, base) : signed_transaction(i / 4, i % 4, base);
        printf("\n### Ingestion of %d %s\n\n| measurement | items/s | per item | ratio to the ceiling |\n|---|---:|---:|---:|\n", N, what);
        double verify = verify_rate(items, N, notification);
        printf("| ceiling: verification alone (%s), 1 process | %.0f | %.1f µs | 1.00× |\n",
               notification ? "jws_verify NOTIFICATION" : "jws_transaction_is_entitled", verify, 1e6 / verify);
        double raw = raw_insert_rate(items, N, folder, notification);
        printf("| reference: raw SQLite insert of the same rows, one durable transaction each | %.0f | %.1f µs | |\n", raw, 1e6 / raw);
        const char *names[3] = {"one call per item", "ledger_ingest_batch, 20 per call", "ledger_ingest_batch, 100 per call"};
        const int batches[3] = {0, 20, 100};
        for (int b = 0; b < 3; b++) {
            char file[64];
            snprintf(file, sizeof file, "ledger-%d-%d.sqlite", notification, b);
            gatekit_store *s = open_store(folder, file);
            double rate = ingest_rate(s, items, N, notification, batches[b]);
            gatekit_store_close(s);
            printf("| **ledger_ingest_%s, %s, 1 process** | **%.0f** | %.1f µs | **%.2f×** |\n",
                   notification ? "notification" : "transaction", names[b], rate, 1e6 / rate, rate / verify);
        }
        double verify4 = parallel_rate(4, items, N, folder, 0, notification);
        double four = parallel_rate(4, items, N, folder, 1, notification);
        printf("| ceiling: verification alone, 4 processes | %.0f | | 1.00× |\n", verify4);
        printf("| **one call per item, 4 processes, one store** | **%.0f** | | **%.2f×** |\n", four, four / verify4);
        gatekit_store *s = open_store(shm, notification ? "tmpfs-n.sqlite" : "tmpfs-t.sqlite");
        double tmpfs = ingest_rate(s, items, N, notification, 0);
        gatekit_store_close(s);
        printf("| one call per item on tmpfs (fsync free: GateKit's own work left) | %.0f | %.1f µs | %.2f× |\n", tmpfs, 1e6 / tmpfs, tmpfs / verify);
        if (!notification) refresher_ab(items, N, verify);
        for (int i = 0; i < N; i++) free(items[i]);
        free(items);
    }

    /* The curve: one transaction per customer, stores grown on tmpfs (the lookups are reads;
     * where the file lives does not change them once it is in the page cache). */
    const char *max_env = getenv("BENCH_LEDGER_MAX");
    long max = max_env ? atol(max_env) : 1000000;
    printf("\n### ledger_is_entitled from 1,000 to %ld transactions (one per customer)\n\n", max);
    printf("| transactions | warm (same customer, cached) | warm, by entitlement name | cold (a new handle, each customer once) | raw SQLite indexed lookup of the rows | cold / raw |\n|---:|---:|---:|---:|---:|---:|\n");
    gatekit_store *s = open_store(shm, "curve.sqlite");
    /* A catalog naming what the product grants: "pro" is then asked like a product id. */
    if (ledger_declare_catalog(s, "{\"correction\":\"the benchmark's purchases predate it\",\"products\":{\"pro.monthly\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]}}}", 1) != 0) {
        fprintf(stderr, "ledger_declare_catalog: %s\n", gatekit_last_error());
        return 1;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/curve.sqlite", shm);
    sqlite3 *db;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    long filled = 0;
    uint64_t fill0 = bench_now_ns();
    for (long target = 1000; target <= max; target *= 10) {
        while (filled < target) {
            char *batch[100];
            int k = 0;
            for (; k < 100 && filled + k < target; k++) batch[k] = signed_transaction(filled + k, 0, base);
            if (ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)batch, (size_t)k, &options) != k) {
                fprintf(stderr, "fill: %s\n", gatekit_last_error());
                return 1;
            }
            for (int j = 0; j < k; j++) free(batch[j]);
            filled += k;
        }
        lookup_ctx c = {.store = s, .customers = filled, .warm = 1, .subject = "pro.monthly"};
        if (ledger_query_init(&c.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) {
            fprintf(stderr, "ledger_query_init: %s\n", gatekit_last_error());
            exit(1);
        }
        c.q.environment = "Sandbox";
        c.q.flags = GATEKIT_LEDGER_TEST_SIGNED;
        sqlite3_prepare_v2(db, "SELECT transaction_id, expires_ms FROM ledger_transactions WHERE environment = 'Sandbox'"
                               " AND test_signed = 1 AND original_transaction_id = ?1", -1, &c.raw, NULL);
        bench_stats warm = bench_run(body_entitled, &c, 2000, 20000);
        c.subject = "pro";
        bench_stats named = bench_run(body_entitled, &c, 2000, 20000);
        c.subject = "pro.monthly";
        /* Cold: a handle opened now (nothing cached), each customer asked about once. */
        int runs = filled < 5000 ? (int)filled : 5000;
        c.warm = 0;
        c.store = open_store(shm, "curve.sqlite");
        bench_stats cold = bench_run(body_entitled, &c, 0, runs);
        gatekit_store_close(c.store);
        c.next = 0;
        bench_stats rawq = bench_run(body_raw, &c, 0, runs);
        sqlite3_finalize(c.raw);
        printf("| %ld | %.2f µs | %.2f µs | %.1f µs | %.1f µs | %.2f× |\n", filled, warm.median / 1e3, named.median / 1e3,
               cold.median / 1e3, rawq.median / 1e3, cold.median / rawq.median);
        fflush(stdout);
    }
    printf("\n(filling the ledger to %ld transactions through ledger_ingest_batch, 100 per call, took %.0f s including signing)\n",
           filled, seconds_since(fill0));
    sqlite3_close(db);
    gatekit_store_close(s);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", folder, shm);
    return system(cmd) == 0 ? 0 : 1;
}
