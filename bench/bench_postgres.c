/* The PostgreSQL store (make bench runs it on the private server scripts/with-postgres.sh
 * starts): EULA acceptance and ledger ingestion throughput with 1, 4 and 8 concurrent clients
 * (threads, each its own handle and connection) beside the same rows inserted by plain libpq
 * and beside SQLite; eula_should_present and ledger_is_entitled latency beside one libpq round
 * trip of the same query and beside SQLite. */
#include "bench.h"
#include "bench_ledger_data.h"

#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <sqlite3.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-bench-pg-XXXXXX";
static const char *server;
static char run_tag[32];

/* VERIFY_ONLY: GateKit's verification of each item alone (the ceiling); VERIFY_RAW_LIBPQ: that
 * verification, then the plain-libpq INSERT of the row (the reference for one call per item);
 * VERIFY_RAW_BATCH_PG / _SQLITE: a batch's items verified, then their rows in one multi-row
 * INSERT, one durable transaction (the least any store of the signed items can do: the floor
 * under the batch aim). */
typedef enum { GATEKIT_PG, GATEKIT_SQLITE, RAW_LIBPQ, VERIFY_ONLY, VERIFY_RAW_LIBPQ, VERIFY_RAW_BATCH_PG, VERIFY_RAW_BATCH_SQLITE } target;

typedef struct {
    target where;
    const char *app;   /* the store's app id (its schema on PostgreSQL) */
    int first, count;  /* this client's rows */
    char **items;      /* ledger: signed transactions; NULL: EULA acceptances */
    int batch;         /* ledger: items per ledger_ingest_batch call; 0: one call per item */
} client;

static gatekit_store *open_target(target where, const char *app) {
    char path[700];
    gatekit_store *s = NULL;
    int rc;
    if (where == GATEKIT_SQLITE) {
        snprintf(path, sizeof path, "%s/%s.sqlite", folder, app);
        rc = gatekit_store_open(&s, path, NULL);
    } else {
        rc = gatekit_store_open(&s, server, app);
    }
    if (rc != 0) { fprintf(stderr, "open %s: %s\n", app, gatekit_last_error()); exit(1); }
    return s;
}

static PGconn *raw_connect(const char *app) {
    PGconn *c = PQconnectdb(server);
    if (PQstatus(c) != CONNECTION_OK) { fprintf(stderr, "libpq: %s", PQerrorMessage(c)); exit(1); }
    char sql[300];
    snprintf(sql, sizeof sql, "SET search_path TO \"gatekit/%s\"", app);
    PQclear(PQexec(c, sql));
    return c;
}

static void verify_or_die(const char *jws) {
    if (jws_transaction_is_entitled(jws, &options, NULL, 1) < 0) { fprintf(stderr, "verify: %s\n", gatekit_last_error()); exit(1); }
}

#define RAW_COLUMNS "environment, test_signed, transaction_id, original_transaction_id, product_id, group_id, purchase_ms, expires_ms, signed_ms, identity, body"
#define RAW_TABLE "raw_transactions(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, environment TEXT, test_signed BIGINT," \
    " transaction_id TEXT, original_transaction_id TEXT, product_id TEXT, group_id TEXT, purchase_ms BIGINT, expires_ms BIGINT," \
    " signed_ms BIGINT, identity TEXT, body TEXT, UNIQUE(environment, test_signed, transaction_id, identity))"
#define RAW_INDEX "raw_by_original ON raw_transactions(environment, test_signed, original_transaction_id)"

/* The batch floor: each chunk of `batch` items verified, then one multi-row INSERT of their rows
 * (PostgreSQL: one autocommitted statement; SQLite: one transaction, WAL + synchronous=FULL). */
static void raw_batches(client *c) {
    enum { MAX = 100 };
    char text[MAX][3][72], sql[MAX * 100 + 400];
    const char *values[MAX * 4];
    PGconn *conn = c->where == VERIFY_RAW_BATCH_PG ? raw_connect(c->app) : NULL;
    sqlite3 *lite = NULL;
    if (!conn) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s.raw.sqlite", folder, c->app);
        sqlite3_open(path, &lite);
        sqlite3_busy_timeout(lite, 60000);
        sqlite3_exec(lite, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL, NULL);
    }
    for (int i = c->first; i < c->first + c->count; i += c->batch) {
        int n = c->first + c->count - i < c->batch ? c->first + c->count - i : c->batch;
        if (n > MAX) n = MAX;
        int len = snprintf(sql, sizeof sql, "INSERT INTO raw_transactions(" RAW_COLUMNS ") VALUES ");
        for (int j = 0; j < n; j++) {
            verify_or_die(c->items[i + j]);
            snprintf(text[j][0], 72, "doc-%d", i + j);
            snprintf(text[j][1], 72, "%lld", (long long)time(NULL) * 1000);
            snprintf(text[j][2], 72, "%064d", i + j);
            values[4 * j] = text[j][0], values[4 * j + 1] = text[j][1], values[4 * j + 2] = text[j][2];
            values[4 * j + 3] = strchr(c->items[i + j], '.') + 1;
            int k = 4 * j + 1;
            char m = conn ? '$' : '?';
            len += snprintf(sql + len, sizeof sql - (size_t)len, "%s('Sandbox', 1, %c%d, %c%d, 'pro.monthly', '21000000', %c%d, %c%d, %c%d, %c%d, %c%d)",
                            j ? ", " : "", m, k, m, k, m, k + 1, m, k + 1, m, k + 1, m, k + 2, m, k + 3);
        }
        if (conn) {
            PGresult *r = PQexecParams(conn, sql, 4 * n, NULL, values, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "raw batch: %s", PQerrorMessage(conn)); exit(1); }
            PQclear(r);
        } else {
            sqlite3_stmt *st;
            if (sqlite3_exec(lite, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
                sqlite3_prepare_v2(lite, sql, -1, &st, NULL) != SQLITE_OK) { fprintf(stderr, "raw batch: %s\n", sqlite3_errmsg(lite)); exit(1); }
            for (int v = 0; v < 4 * n; v++) sqlite3_bind_text(st, v + 1, values[v], -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE || sqlite3_finalize(st) != SQLITE_OK ||
                sqlite3_exec(lite, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) { fprintf(stderr, "raw batch: %s\n", sqlite3_errmsg(lite)); exit(1); }
        }
    }
    if (conn) PQfinish(conn);
    sqlite3_close(lite);
}

static void *run_client(void *p) {
    client *c = p;
    char doc[64], hash[65], now[32];
    if (c->where == VERIFY_RAW_BATCH_PG || c->where == VERIFY_RAW_BATCH_SQLITE) {
        raw_batches(c);
        return NULL;
    }
    if (c->where == VERIFY_ONLY) {
        for (int i = c->first; i < c->first + c->count; i++) verify_or_die(c->items[i]);
        return NULL;
    }
    if (c->where == RAW_LIBPQ || c->where == VERIFY_RAW_LIBPQ) {
        /* The natural plain-libpq program: one prepared INSERT per row, autocommitted (durable);
         * for the ledger, the transaction's row in a table shaped like ledger_transactions,
         * from the signed text as it came (no verification, no parsing). */
        PGconn *conn = raw_connect(c->app);
        PGresult *r = c->items
            ? PQprepare(conn, "ins", "INSERT INTO raw_transactions(environment, test_signed, transaction_id, original_transaction_id, "
                                     "product_id, group_id, purchase_ms, expires_ms, signed_ms, identity, body) VALUES "
                                     "('Sandbox', 1, $1, $1, 'pro.monthly', '21000000', $2, $2, $2, $3, $4)", 4, NULL)
            : PQprepare(conn, "ins", "INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) "
                                     "VALUES ($1, NULL, $2, 1, $3)", 3, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "prepare: %s", PQerrorMessage(conn)); exit(1); }
        PQclear(r);
        for (int i = c->first; i < c->first + c->count; i++) {
            snprintf(doc, sizeof doc, "doc-%d", i);
            snprintf(hash, sizeof hash, "%064d", i);
            snprintf(now, sizeof now, "%lld", (long long)time(NULL) * 1000);
            if (c->where == VERIFY_RAW_LIBPQ) verify_or_die(c->items[i]);
            const char *values[4] = {doc, now, hash, c->items ? strchr(c->items[i], '.') + 1 : NULL};
            if (!c->items) values[1] = hash, values[2] = now;
            r = PQexecPrepared(conn, "ins", c->items ? 4 : 3, values, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "insert: %s", PQerrorMessage(conn)); exit(1); }
            PQclear(r);
        }
        PQfinish(conn);
        return NULL;
    }
    gatekit_store *s = open_target(c->where, c->app);
    for (int i = c->first; i < c->first + c->count; i += c->batch ? c->batch : 1) {
        int rc;
        if (c->batch) {
            size_t n = (size_t)(c->first + c->count - i < c->batch ? c->first + c->count - i : c->batch);
            rc = ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)c->items + i, n, &options);
            if (rc != (int)n) { fprintf(stderr, "batch: %d of %zu: %s\n", rc, n, gatekit_last_error()); exit(1); }
        } else if (c->items) {
            rc = ledger_ingest_transaction(NULL, s, c->items[i], &options);
        } else {
            snprintf(doc, sizeof doc, "doc-%d", i);
            snprintf(hash, sizeof hash, "%064d", i);
            rc = eula_accept(s, doc, hash, NULL);
        }
        if (rc < 0) { fprintf(stderr, "client: %s\n", gatekit_last_error()); exit(1); }
    }
    gatekit_store_close(s);
    return NULL;
}

/* Rows per second with `clients` clients sharing `total` rows, into a fresh store. */
static double batch_rate(target where, const char *kind, int clients, int total, char **items, int batch) {
    char app[96];
    snprintf(app, sizeof app, "bench.%s.%s.%d.%d", run_tag, kind, (int)where, clients);
    if (where != VERIFY_ONLY && where != VERIFY_RAW_BATCH_SQLITE)  /* the schema, before the clock */
        gatekit_store_close(open_target(where == GATEKIT_SQLITE ? GATEKIT_SQLITE : GATEKIT_PG, app));
    if (where == VERIFY_RAW_BATCH_SQLITE) {
        char path[700];
        sqlite3 *lite;
        snprintf(path, sizeof path, "%s/%s.raw.sqlite", folder, app);
        sqlite3_open(path, &lite);
        /* SQLite's INTEGER PRIMARY KEY is its identity column */
        if (sqlite3_exec(lite, "PRAGMA journal_mode=WAL; CREATE TABLE raw_transactions(id INTEGER PRIMARY KEY, environment TEXT, test_signed INTEGER,"
                               " transaction_id TEXT, original_transaction_id TEXT, product_id TEXT, group_id TEXT, purchase_ms INTEGER,"
                               " expires_ms INTEGER, signed_ms INTEGER, identity TEXT, body TEXT, UNIQUE(environment, test_signed, transaction_id, identity));"
                               " CREATE INDEX " RAW_INDEX, NULL, NULL, NULL) != SQLITE_OK) { fprintf(stderr, "raw table: %s\n", sqlite3_errmsg(lite)); exit(1); }
        sqlite3_close(lite);
    }
    if ((where == RAW_LIBPQ || where == VERIFY_RAW_LIBPQ || where == VERIFY_RAW_BATCH_PG) && items) {
        PGconn *conn = raw_connect(app);
        PGresult *r = PQexec(conn, "CREATE TABLE " RAW_TABLE "; CREATE INDEX " RAW_INDEX);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "raw table: %s", PQerrorMessage(conn)); exit(1); }
        PQclear(r);
        PQfinish(conn);
    }
    pthread_t threads[8];
    client cs[8];
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < clients; k++) {
        cs[k] = (client){where, app, k * (total / clients), total / clients, items, batch};
        pthread_create(&threads[k], NULL, run_client, &cs[k]);
    }
    for (int k = 0; k < clients; k++) pthread_join(threads[k], NULL);
    return (double)(total / clients * clients) / ((double)(bench_now_ns() - t0) / 1e9);
}

static double rate(target where, const char *kind, int clients, int total, char **items) {
    return batch_rate(where, kind, clients, total, items, 0);
}

/* ---- latency ------------------------------------------------------------------------------- */

typedef struct {
    gatekit_store *store;
    PGconn *raw;
    gatekit_ledger_query q;
} lookup_ctx;

static const char *present_hash = "0000000000000000000000000000000000000000000000000000000000000007";

static int body_present(void *p) {
    lookup_ctx *c = p;
    return eula_should_present_hash(c->store, "doc-7", present_hash, NULL) != 0;
}

static int body_raw_present(void *p) {
    lookup_ctx *c = p;
    const char *values[2] = {"doc-7", present_hash};
    PGresult *r = PQexecPrepared(c->raw, "present", 2, values, NULL, NULL, 0);
    int bad = PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1;
    PQclear(r);
    return bad;
}

static int body_entitled(void *p) {
    lookup_ctx *c = p;
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    return ledger_is_entitled(&e, c->store, &c->q, "1000000007", "pro.monthly") < 0;
}

/* A customer not asked about before (the handle's cache misses): 1,200 customers in turn. */
static long cold_next;
static int body_entitled_cold(void *p) {
    lookup_ctx *c = p;
    char customer[32];
    snprintf(customer, sizeof customer, "%ld", 1000000000L + cold_next % 1200);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    return ledger_is_entitled(&e, c->store, &c->q, customer, "pro.monthly") < 0;
}

static int body_raw_customer(void *p) {
    lookup_ctx *c = p;
    char customer[32];
    snprintf(customer, sizeof customer, "%ld", 1000000000L + cold_next % 1200);
    const char *values[1] = {customer};
    PGresult *r = PQexecPrepared(c->raw, "customer", 1, values, NULL, NULL, 0);
    int bad = PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1;
    PQclear(r);
    return bad;
}

/* Runs the bodies in turn, `per` calls each per round for `rounds` rounds, so drift of the
 * machine or the server affects every figure alike; one stats per body. */
static void interleaved(int (*const bodies[])(void *), void *const ctxs[], int n, int rounds, int per, bench_stats *out) {
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)(n * rounds * per));
    if (!samples) { perror("malloc"); exit(2); }
    for (int b = 0; b < n; b++) for (int i = 0; i < per; i++) bodies[b](ctxs[b]);  /* warm-up */
    for (int r = 0; r < rounds; r++)
        for (int b = 0; b < n; b++)
            for (int i = 0; i < per; i++) {
                uint64_t t0 = bench_now_ns();
                if (bodies[b](ctxs[b]) != 0) { fprintf(stderr, "bench_postgres: a body failed: %s\n", gatekit_last_error()); exit(1); }
                samples[(size_t)b * (size_t)(rounds * per) + (size_t)(r * per + i)] = bench_now_ns() - t0;
            }
    for (int b = 0; b < n; b++) out[b] = bench_summarize(samples + (size_t)b * (size_t)(rounds * per), rounds * per);
    free(samples);
}

/* Pins this process to CPU 0 and every server process of the test database to CPU 1: with 2
 * cores, where the scheduler happens to put a backend otherwise decides a round trip
 * (measured: 12 µs on another core, 55 µs sharing one), more than what is measured.
 * Returns 0 when it could not (not root, one core): the figures are then noisier. */
static int pin(PGconn *admin) {
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return 0;
    cpu_set_t mine, theirs;
    CPU_ZERO(&mine);
    CPU_SET(0, &mine);
    CPU_ZERO(&theirs);
    CPU_SET(1, &theirs);
    int ok = sched_setaffinity(0, sizeof mine, &mine) == 0;
    PGresult *r = PQexec(admin, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
    for (int i = 0; ok && i < PQntuples(r); i++) ok = sched_setaffinity((pid_t)atoi(PQgetvalue(r, i, 0)), sizeof theirs, &theirs) == 0;
    PQclear(r);
    return ok;
}

static void latency(const char *eula_app, const char *ledger_app, const char *sqlite_eula, const char *sqlite_ledger) {
    lookup_ctx pg = {open_target(GATEKIT_PG, eula_app), raw_connect(eula_app), {0}};
    PGresult *r = PQprepare(pg.raw, "present", "SELECT d.decision FROM eula_decisions d WHERE d.document_id = $1 "
                            "AND d.user_name IS NULL AND d.hash = $2 ORDER BY d.id DESC LIMIT 1", 2, NULL);
    PQclear(r);
    lookup_ctx lite = {open_target(GATEKIT_SQLITE, sqlite_eula), NULL, {0}};
    lookup_ctx pgl = {open_target(GATEKIT_PG, ledger_app), NULL, {0}}, litel = {open_target(GATEKIT_SQLITE, sqlite_ledger), NULL, {0}};
    lookup_ctx cold = {open_target(GATEKIT_PG, ledger_app), raw_connect(ledger_app), {0}};
    int pinned = pin(pg.raw);
    /* Statistics, as autovacuum keeps them on a live server: planned without them, a freshly
     * filled ledger's customer query took 750 µs instead of 100 (measured from Python). */
    PQclear(PQexec(pg.raw, "ANALYZE"));
    int (*const reads[3])(void *) = {body_raw_present, body_present, body_present};
    void *const read_ctxs[3] = {&pg, &pg, &lite};
    bench_stats st[3];
    interleaved(reads, read_ctxs, 3, 10, 300, st);
    bench_stats raw = st[0], gk = st[1], sq = st[2];
    bench_header(pinned ? "PostgreSQL: read latency beside one libpq round trip (Unix socket; client on CPU 0, server on CPU 1)"
                        : "PostgreSQL: read latency beside one libpq round trip (Unix socket; NOT pinned to CPUs: noisier)");
    bench_row("libpq: one prepared SELECT of the decision (reference)", raw);
    bench_row("eula_should_present_hash on PostgreSQL (a cold read: one query)", gk);
    bench_row("eula_should_present_hash on SQLite", sq);
    printf("| ratio PostgreSQL eula_should_present_hash / libpq round trip | **%.2f×** | | | |\n", gk.median / raw.median);

    if (ledger_query_init(&pgl.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) {

        fprintf(stderr, "ledger_query_init: %s\n", gatekit_last_error());

        exit(1);

    }
    pgl.q.environment = "Sandbox";
    pgl.q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    litel.q = pgl.q;
    int (*const warm[2])(void *) = {body_entitled, body_entitled};
    void *const warm_ctxs[2] = {&pgl, &litel};
    bench_stats wt[2];
    interleaved(warm, warm_ctxs, 2, 10, 2000, wt);
    bench_stats warm_pg = wt[0], warm_lite = wt[1];
    /* Cold: each customer once per handle, so every call loads from the server; the reference
     * is one round trip reading the same customer's transaction rows. */
    cold.q = pgl.q;
    PQclear(PQprepare(cold.raw, "customer", "SELECT * FROM ledger_transactions WHERE environment = 'Sandbox' AND test_signed = 1 "
                                            "AND original_transaction_id = $1", 1, NULL));
    uint64_t *gk_samples = malloc(sizeof(uint64_t) * 1200), *raw_samples = malloc(sizeof(uint64_t) * 1200);
    for (cold_next = 0; cold_next < 1200; cold_next++) {
        uint64_t t0 = bench_now_ns();
        if (body_raw_customer(&cold)) { fprintf(stderr, "raw customer query failed\n"); exit(1); }
        uint64_t t1 = bench_now_ns();
        if (body_entitled_cold(&cold)) { fprintf(stderr, "cold: %s\n", gatekit_last_error()); exit(1); }
        raw_samples[cold_next] = t1 - t0;
        gk_samples[cold_next] = bench_now_ns() - t1;
    }
    bench_stats cold_raw = bench_summarize(raw_samples, 1200), cold_gk = bench_summarize(gk_samples, 1200);
    free(gk_samples);
    free(raw_samples);
    bench_row("libpq: one prepared SELECT of a customer's transaction rows (reference)", cold_raw);
    bench_row("ledger_is_entitled cold on PostgreSQL (the customer's first question on this handle)", cold_gk);
    printf("| ratio cold ledger_is_entitled PostgreSQL / libpq round trip | **%.2f×** | | | |\n", cold_gk.median / cold_raw.median);
    gatekit_store_close(cold.store);
    PQfinish(cold.raw);
    bench_row("ledger_is_entitled warm on PostgreSQL (cached; the notification socket read at most every 100 µs)", warm_pg);
    bench_row("ledger_is_entitled warm on SQLite (reference)", warm_lite);
    printf("| ratio warm ledger_is_entitled PostgreSQL / SQLite | **%.2f×** | | | |\n", warm_pg.median / warm_lite.median);
    gatekit_store_close(pg.store);
    gatekit_store_close(lite.store);
    gatekit_store_close(pgl.store);
    gatekit_store_close(litel.store);
    PQfinish(pg.raw);
}

/* Ledger ingestion against its aims (issue 29): one call per item beside "verification + one
 * plain libpq INSERT" (time per item, lower is better), batches of 100 beside verification
 * alone (throughput, higher is better), each with the same clients in the same run. */
static void ingestion(char **items, int total) {
    printf("\n### PostgreSQL: ledger ingestion beside verification, 1, 4 and 8 clients (signed transactions/s)\n\n");
    printf("| clients | ceiling: verification alone | reference: verification + one plain libpq INSERT | ledger_ingest_transaction PostgreSQL | time ratio to the reference | floor: verification + a raw multi-row INSERT per 100, PostgreSQL | its ratio to the ceiling | ledger_ingest_batch of 100, PostgreSQL | ratio to the ceiling | floor, SQLite | its ratio | ledger_ingest_batch of 100, SQLite | ratio to the ceiling |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const int counts[3] = {1, 4, 8};
    for (int k = 0; k < 3; k++) {
        int n = counts[k];
        double ceiling = batch_rate(VERIFY_ONLY, "verify", n, total, items, 0);
        double reference = batch_rate(VERIFY_RAW_LIBPQ, "verifyraw", n, total, items, 0);
        double single = batch_rate(GATEKIT_PG, "single", n, total, items, 0);
        double floor_pg = batch_rate(VERIFY_RAW_BATCH_PG, "rawbatch", n, total, items, 100);
        double pg = batch_rate(GATEKIT_PG, "batch", n, total, items, 100);
        double floor_lite = batch_rate(VERIFY_RAW_BATCH_SQLITE, "rawbatch", n, total, items, 100);
        double lite = batch_rate(GATEKIT_SQLITE, "batch", n, total, items, 100);
        printf("| %d | %.0f | %.0f | %.0f | **%.2f×** | %.0f | %.2f× | %.0f | **%.2f×** | %.0f | %.2f× | %.0f | **%.2f×** |\n", n, ceiling, reference,
               single, reference / single, floor_pg, floor_pg / ceiling, pg, pg / ceiling, floor_lite, floor_lite / ceiling, lite, lite / ceiling);
        fflush(stdout);
    }
}

static void everything(char **items, int total, int signed_count);
static void eula_throughput(int total);

int main(void) {
    server = getenv("GATEKIT_TEST_POSTGRES");
    if (!server) { printf("\n### PostgreSQL\n\nSKIPPED: no server (run through `make bench`, which starts one)\n"); return 0; }
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(run_tag, sizeof run_tag, "%ld", (long)getpid());
    setup_pki(folder);
    enum { TOTAL = 2400, LEDGER = 2400 };
    char **items = malloc(sizeof(char *) * LEDGER);
    long long base = ((long long)time(NULL) - 86400) * 1000;
    for (int i = 0; i < LEDGER; i++) items[i] = signed_transaction(i, 0, base);

    /* BENCH_POSTGRES_PART=ingestion or eula: only that table (A/B runs). */
    const char *part = getenv("BENCH_POSTGRES_PART");
    if (part && strcmp(part, "ingestion") == 0) ingestion(items, LEDGER);
    else if (part && strcmp(part, "eula") == 0) eula_throughput(TOTAL);
    else everything(items, TOTAL, LEDGER);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "bench_postgres: could not remove %s\n", folder);
    return 0;
}

/* EULA decisions alone, beside the plain INSERT, each configuration twice in turn. */
static void eula_throughput(int total) {
    printf("\n### PostgreSQL: eula_accept throughput with 1, 4 and 8 clients (rows/s), two rounds\n\n");
    printf("| clients | plain libpq INSERT (reference) | eula_accept PostgreSQL | ratio |\n|---:|---:|---:|---:|\n");
    const int counts[3] = {1, 4, 8};
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 3; k++) {
            double raw = rate(RAW_LIBPQ, "raw", counts[k], total, NULL);
            double pg = rate(GATEKIT_PG, "eula", counts[k], total, NULL);
            printf("| %d | %.0f | %.0f | **%.2f×** |\n", counts[k], raw, pg, pg / raw);
            fflush(stdout);
        }
}

/* Every table: throughput, ingestion, latency. */
static void everything(char **items, int total, int signed_count) {
    printf("\n### PostgreSQL: throughput with 1, 4 and 8 concurrent clients (rows/s; threads, one handle each)\n\n");
    printf("| clients | plain libpq INSERT (reference) | eula_accept PostgreSQL | ratio | eula_accept SQLite | plain libpq INSERT of the transaction row (reference) | ledger_ingest_transaction PostgreSQL | ratio | ledger ingest SQLite |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const int counts[3] = {1, 4, 8};
    char ledger_pg[96] = "", ledger_lite[96] = "", eula_pg[96] = "", eula_lite[96] = "";
    for (int k = 0; k < 3; k++) {
        int n = counts[k];
        double raw = rate(RAW_LIBPQ, "raw", n, total, NULL);
        double pg = rate(GATEKIT_PG, "eula", n, total, NULL);
        double lite = rate(GATEKIT_SQLITE, "eula", n, total, NULL);
        double lraw = rate(RAW_LIBPQ, "rawledger", n, signed_count, items);
        double lpg = rate(GATEKIT_PG, "ledger", n, signed_count, items);
        double llite = rate(GATEKIT_SQLITE, "ledger", n, signed_count, items);
        printf("| %d | %.0f | %.0f | **%.2f×** | %.0f | %.0f | %.0f | **%.2f×** | %.0f |\n", n, raw, pg, pg / raw, lite, lraw, lpg, lpg / lraw, llite);
        fflush(stdout);
    }
    ingestion(items, signed_count);
    snprintf(eula_pg, sizeof eula_pg, "bench.%s.eula.%d.1", run_tag, (int)GATEKIT_PG);
    snprintf(eula_lite, sizeof eula_lite, "bench.%s.eula.%d.1", run_tag, (int)GATEKIT_SQLITE);
    snprintf(ledger_pg, sizeof ledger_pg, "bench.%s.ledger.%d.1", run_tag, (int)GATEKIT_PG);
    snprintf(ledger_lite, sizeof ledger_lite, "bench.%s.ledger.%d.1", run_tag, (int)GATEKIT_SQLITE);
    latency(eula_pg, ledger_pg, eula_lite, ledger_lite);
    printf("\nReproduce: `make bench BENCH=postgres`. Each client commits one durable transaction per row "
           "(eula_accept: one autocommitted INSERT, like the reference; ledger ingestion: BEGIN, the subscription's advisory lock, its reads and INSERTs, NOTIFY + COMMIT). Latencies are medians of 10 interleaved rounds.\n");
}
