/* A backfill (issue 29): BENCH_BACKFILL_ITEMS signed transactions (1,000,000 unless set; test
 * PKI, 4 monthly versions per subscription) ingested with ledger_ingest_batch, 100 per call,
 * into PostgreSQL from 8 processes (each its own range of subscriptions, as a sharded backfill
 * would) and into SQLite from one, on a real file system, durable. Beside each: GateKit's
 * verification of the same items by as many processes on the same cores (the ceiling), and
 * the store's size per item beside the signed text's. Signing happens before the clock. */
#include "bench.h"
#include "bench_ledger_data.h"

#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-bench-backfill-XXXXXX";
enum { BATCH = 100, PG_PROCESSES = 8 };

/* Runs `processes` children over equal ranges of items[0..n), verifying only or ingesting into
 * `where` (a path or a libpq string, with `app`); answers the wall time in seconds. */
static double run(int processes, char **items, long n, const char *where, const char *app, int ingest) {
    int go[2];
    if (pipe(go) != 0) { perror("pipe"); exit(2); }
    pid_t pids[PG_PROCESSES];
    for (int p = 0; p < processes; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            close(go[1]);
            long first = n / processes * p, count = p == processes - 1 ? n - first : n / processes;
            gatekit_store *s = NULL;
            if (ingest && gatekit_store_open(&s, where, app) != 0) { fprintf(stderr, "open: %s\n", gatekit_last_error()); _exit(1); }
            char byte;
            if (read(go[0], &byte, 1) < 0) _exit(1);  /* everyone starts together */
            for (long i = first; i < first + count; i += ingest ? BATCH : 1) {
                if (!ingest) {
                    if (jws_transaction_is_entitled(items[i], &options, NULL, 1) < 0) _exit(1);
                    continue;
                }
                size_t k = (size_t)(first + count - i < BATCH ? first + count - i : BATCH);
                int rc = ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)items + i, k, &options);
                if (rc != (int)k) { fprintf(stderr, "batch at %ld: %d: %s\n", i, rc, gatekit_last_error()); _exit(1); }
            }
            if (s) gatekit_store_close(s);
            _exit(0);
        }
    }
    close(go[0]);
    uint64_t t0 = bench_now_ns();
    close(go[1]);  /* EOF: go */
    int failed = 0;
    for (int p = 0; p < processes; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    double seconds = (double)(bench_now_ns() - t0) / 1e9;
    if (failed) { fprintf(stderr, "bench_backfill: a process failed\n"); exit(1); }
    return seconds;
}

static long long pg_bytes(const char *server, const char *app) {
    PGconn *c = PQconnectdb(server);
    char sql[400];
    snprintf(sql, sizeof sql, "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                              "WHERE n.nspname = 'gatekit/%s' AND c.relkind IN ('r', 'm')", app);
    PGresult *r = PQexec(c, sql);
    long long bytes = PQresultStatus(r) == PGRES_TUPLES_OK ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return bytes;
}

static long long file_bytes(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

int main(void) {
    const char *server = getenv("GATEKIT_TEST_POSTGRES");
    long n = getenv("BENCH_BACKFILL_ITEMS") ? atol(getenv("BENCH_BACKFILL_ITEMS")) : 1000000;
    if (n < BATCH * PG_PROCESSES) n = BATCH * PG_PROCESSES;
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    setup_pki(folder);
    long long base = ((long long)time(NULL) - 200LL * 86400) * 1000;
    char **items = malloc(sizeof(char *) * (size_t)n);
    long long text = 0;
    uint64_t s0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        items[i] = signed_transaction(i / 4, (int)(i % 4), base);
        text += (long long)strlen(items[i]);
    }
    double signing = (double)(bench_now_ns() - s0) / 1e9;
    /* The ceiling from a tenth of the items (the rate, not the total, is compared). */
    long sample = n / 10;
    double verify8 = (double)sample / run(PG_PROCESSES, items, sample, NULL, NULL, 0);
    double verify1 = (double)(sample / 4) / run(1, items, sample / 4, NULL, NULL, 0);

    printf("\n### Backfill: %ld signed transactions, ledger_ingest_batch of %d (signing them took %.0f s, before the clock)\n\n", n, BATCH, signing);
    printf("| store | processes | wall time | items/s | ceiling: verification alone, same processes | ratio | store size per item | signed text per item |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    if (server) {
        char app[64];
        snprintf(app, sizeof app, "bench.backfill.%d", (int)getpid());
        gatekit_store *s = NULL;
        if (gatekit_store_open(&s, server, app) != 0) { fprintf(stderr, "open: %s\n", gatekit_last_error()); return 1; }
        gatekit_store_close(s);
        double wall = run(PG_PROCESSES, items, n, server, app, 1);
        printf("| PostgreSQL | %d | %.0f s | %.0f | %.0f | **%.2f×** | %.0f B | %.0f B |\n", PG_PROCESSES, wall, (double)n / wall, verify8,
               (double)n / wall / verify8, (double)pg_bytes(server, app) / (double)n, (double)text / (double)n);
        fflush(stdout);
    } else {
        printf("| PostgreSQL | | SKIPPED: no server (run through `make bench`, which starts one) | | | | | |\n");
    }
    char path[700];
    snprintf(path, sizeof path, "%s/backfill.sqlite", folder);
    double wall = run(1, items, n, path, NULL, 1);
    char wal[720];
    snprintf(wal, sizeof wal, "%s-wal", path);
    printf("| SQLite | 1 | %.0f s | %.0f | %.0f | **%.2f×** | %.0f B | %.0f B |\n", wall, (double)n / wall, verify1, (double)n / wall / verify1,
           (double)(file_bytes(path) + file_bytes(wal)) / (double)n, (double)text / (double)n);
    printf("\nReproduce: `make bench BENCH=backfill` (BENCH_BACKFILL_ITEMS=N for fewer). PostgreSQL from Debian, default settings, "
           "`fsync` on; SQLite WAL, synchronous=FULL; every batch is one durable transaction.\n");
    char cmd[760];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "bench_backfill: could not remove %s\n", folder);
    return 0;
}
