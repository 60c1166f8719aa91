/* A fleet through a transaction pooler (Issue 48; make bench runs it on the private server and
 * PgBouncer scripts/with-postgres.sh starts: transaction mode, a pool of 4 server connections).
 * 32 processes, each its own handle, ingest signed transactions (ledger_ingest_transaction) and
 * then ask ledger_is_entitled about their customers, all at once:
 *   - through the pool, and directly with 32 connections (the same work, the same run);
 *   - beside plain libpq through the same pool: one autocommitted INSERT of each item's row
 *     (unnamed statement), with and without GateKit's verification of the item first, and one
 *     SELECT of a customer's newest transaction per question.
 * Figures are items or questions per second over the whole fleet, the median of 3 runs (each
 * into a fresh schema); processes are forked and connected before the clock starts. */
#include "bench.h"
#include "bench_ledger_data.h"

#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PROCESSES = 32, CUSTOMERS = 10, RENEWALS = 3, ITEMS = CUSTOMERS * RENEWALS, QUESTIONS = 200, RUNS = 3 };

typedef enum { GATEKIT_INGEST, GATEKIT_ASK, RAW_INSERT, VERIFY_RAW_INSERT, RAW_SELECT } work;

static const char *direct, *pooled;
static char **items;  /* PROCESSES * ITEMS signed transactions; process p's are [p * ITEMS, (p + 1) * ITEMS) */
static long long base_ms;
static char tag[32];

static void die(const char *what, const char *why) {
    fprintf(stderr, "bench_pooler: %s: %s\n", what, why);
    exit(1);
}

static PGconn *raw_connect(const char *where) {
    PGconn *c = PQconnectdb(where);
    if (PQstatus(c) != CONNECTION_OK) die("libpq", PQerrorMessage(c));
    return c;
}

static void raw_exec(const char *where, const char *sql) {
    PGconn *c = raw_connect(where);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) die(sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* One process's share of `w` on `where` (app id `app`, or the raw schema `app`); starts when
 * `go` is readable. */
static void child(work w, const char *where, const char *listen, const char *app, int p, int go) {
    gatekit_store *s = NULL;
    PGconn *raw = NULL;
    if (w == GATEKIT_INGEST || w == GATEKIT_ASK) {
        if (gatekit_store_open_listening(&s, where, app, 0, listen) != 0) die("open", gatekit_last_error());
    } else {
        raw = raw_connect(where);
    }
    gatekit_ledger_query q;
    if (ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION) != 0) die("ledger_query_init", gatekit_last_error());
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    char sql[400], customer[32], id[48], now[32];
    snprintf(sql, sizeof sql, "INSERT INTO \"%s\".raw_transactions(environment, test_signed, transaction_id, original_transaction_id, "
             "product_id, group_id, purchase_ms, expires_ms, signed_ms, identity, body) "
             "VALUES ('Sandbox', 1, $1, $2, 'pro.monthly', '21000000', $3, $3, $3, $1, $4)", app);
    char select[300];
    snprintf(select, sizeof select, "SELECT transaction_id, expires_ms FROM \"%s\".raw_transactions WHERE environment = 'Sandbox' "
             "AND test_signed = 1 AND original_transaction_id = $1 ORDER BY expires_ms DESC LIMIT 1", app);
    char byte;
    if (read(go, &byte, 1) < 0) die("barrier", "read");
    for (int i = 0; w != GATEKIT_ASK && w != RAW_SELECT && i < ITEMS; i++) {
        const char *jws = items[p * ITEMS + i];
        if (w == GATEKIT_INGEST) {
            char *json = NULL;
            if (ledger_ingest_transaction(&json, s, jws, &options) < 0) die("ledger_ingest_transaction", gatekit_last_error());
            gatekit_free(json);
            continue;
        }
        if (w == VERIFY_RAW_INSERT && jws_transaction_is_entitled(jws, &options, NULL, 1) < 0) die("verify", gatekit_last_error());
        snprintf(customer, sizeof customer, "%ld", 1000000000L + (long)p * CUSTOMERS + i / RENEWALS);
        snprintf(id, sizeof id, "%s%03d", customer, i % RENEWALS);
        snprintf(now, sizeof now, "%lld", base_ms + (long long)i);
        const char *values[4] = {id, customer, now, strchr(jws, '.') + 1};
        PGresult *r = PQexecParams(raw, sql, 4, NULL, values, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) die("INSERT", PQerrorMessage(raw));
        PQclear(r);
    }
    for (int i = 0; (w == GATEKIT_ASK || w == RAW_SELECT) && i < QUESTIONS; i++) {
        snprintf(customer, sizeof customer, "%ld", 1000000000L + (long)p * CUSTOMERS + i % CUSTOMERS);
        if (w == GATEKIT_ASK) {
            gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
            int rc = ledger_is_entitled(&e, s, &q, customer, "pro.monthly");
            if (rc != 1) die("ledger_is_entitled (every customer is entitled)", rc < 0 ? gatekit_last_error() : "not entitled");
            continue;
        }
        const char *values[1] = {customer};
        PGresult *r = PQexecParams(raw, select, 1, NULL, values, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) die("SELECT", PQerrorMessage(raw));
        PQclear(r);
    }
    gatekit_store_close(s);
    if (raw) PQfinish(raw);
    _exit(0);
}

/* Seconds for PROCESSES processes doing `w` at once, from the barrier's release to the last exit. */
static double fleet(work w, const char *where, const char *listen, const char *app) {
    int go[2];
    if (pipe(go) != 0) die("pipe", "failed");
    pid_t pids[PROCESSES];
    for (int p = 0; p < PROCESSES; p++) {
        pids[p] = fork();
        if (pids[p] < 0) die("fork", "failed");
        if (pids[p] == 0) {
            close(go[1]);
            child(w, where, listen, app, p, go[0]);
        }
    }
    close(go[0]);
    usleep(1500000);  /* every child connected and waiting at the barrier (measured: ~0.5 s) */
    uint64_t t0 = bench_now_ns();
    close(go[1]);     /* end of file: every read returns */
    for (int p = 0; p < PROCESSES; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("a process of the fleet", "failed (see above)");
    }
    return seconds_since(t0);
}

static double median3(double *v) {
    double a = v[0], b = v[1], c = v[2];
    if ((a <= b && b <= c) || (c <= b && b <= a)) return b;
    if ((b <= a && a <= c) || (c <= a && a <= b)) return a;
    return c;
}

typedef struct { double ingest, ask; } rates;

/* GateKit's ingestion, then its questions, RUNS times into fresh stores: median rates. */
static rates gatekit_rates(const char *where, const char *listen, const char *label) {
    double ingest[RUNS], ask[RUNS];
    for (int run = 0; run < RUNS; run++) {
        char app[96];
        snprintf(app, sizeof app, "bench.fleet.%s.%s.%d", tag, label, run);
        gatekit_store *s = NULL;
        if (gatekit_store_open_listening(&s, where, app, 0, listen) != 0) die("open", gatekit_last_error());
        gatekit_store_close(s);
        ingest[run] = PROCESSES * ITEMS / fleet(GATEKIT_INGEST, where, listen, app);
        ask[run] = PROCESSES * QUESTIONS / fleet(GATEKIT_ASK, where, listen, app);
    }
    return (rates){median3(ingest), median3(ask)};
}

/* Plain libpq through `where`: INSERTs (verified first or not), then SELECTs; median rates. */
static rates raw_rates(const char *where, work insert, const char *label) {
    double ingest[RUNS], ask[RUNS];
    for (int run = 0; run < RUNS; run++) {
        char schema[96], sql[1200];
        snprintf(schema, sizeof schema, "bench_raw_%s_%s_%d", tag, label, run);
        snprintf(sql, sizeof sql, "CREATE SCHEMA \"%s\"; CREATE TABLE \"%s\".raw_transactions(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                 "environment TEXT, test_signed BIGINT, transaction_id TEXT, original_transaction_id TEXT, product_id TEXT, group_id TEXT, "
                 "purchase_ms BIGINT, expires_ms BIGINT, signed_ms BIGINT, identity TEXT, body TEXT, "
                 "UNIQUE(environment, test_signed, transaction_id, identity)); "
                 "CREATE INDEX ON \"%s\".raw_transactions(environment, test_signed, original_transaction_id)", schema, schema, schema);
        raw_exec(direct, sql);
        ingest[run] = PROCESSES * ITEMS / fleet(insert, where, NULL, schema);
        ask[run] = PROCESSES * QUESTIONS / fleet(RAW_SELECT, where, NULL, schema);
    }
    return (rates){median3(ingest), median3(ask)};
}

int main(void) {
    direct = getenv("GATEKIT_TEST_POSTGRES");
    pooled = getenv("GATEKIT_TEST_POSTGRES_POOLED");
    if (!direct || !pooled) {
        printf("\n### A fleet through PgBouncer\n\nSKIPPED: no test server and pooler (run through scripts/with-postgres.sh: make bench does)\n");
        return 0;
    }
    char folder[] = "/tmp/gatekit-bench-fleet-XXXXXX";
    if (!mkdtemp(folder)) die("mkdtemp", "failed");
    setup_pki(folder);
    base_ms = (long long)time(NULL) * 1000 - 2LL * 2592000000LL;
    snprintf(tag, sizeof tag, "%ld", (long)getpid());
    items = malloc(sizeof(char *) * PROCESSES * ITEMS);
    if (!items) die("malloc", "failed");
    for (int p = 0; p < PROCESSES; p++)
        for (int c = 0; c < CUSTOMERS; c++)
            for (int k = 0; k < RENEWALS; k++)
                items[p * ITEMS + c * RENEWALS + k] = signed_transaction((long)p * CUSTOMERS + c, k, base_ms);

    rates through_pool = gatekit_rates(pooled, NULL, "pool");
    rates heard = gatekit_rates(pooled, direct, "listen");
    rates straight = gatekit_rates(direct, NULL, "direct");
    rates raw = raw_rates(pooled, RAW_INSERT, "pool");
    rates verified_raw = raw_rates(pooled, VERIFY_RAW_INSERT, "verify");
    rates raw_direct = raw_rates(direct, RAW_INSERT, "direct");

    printf("\n### A fleet through PgBouncer: %d processes, transaction mode, a pool of 4 server connections\n\n", PROCESSES);
    printf("Each process: %d signed transactions (%d customers × %d renewals) ingested one call each, then %d questions "
           "about its customers. Per second over the fleet, median of %d runs.\n\n", ITEMS, CUSTOMERS, RENEWALS, QUESTIONS, RUNS);
    printf("| measurement | items/s ingested | questions/s asked |\n|---|---:|---:|\n");
    printf("| GateKit through the pool (no listen connection: every question asks the server) | %.0f | %.0f |\n", through_pool.ingest, through_pool.ask);
    printf("| GateKit through the pool, with a direct listen connection (answers cached) | %.0f | %.0f |\n", heard.ingest, heard.ask);
    printf("| GateKit directly, 32 connections | %.0f | %.0f |\n", straight.ingest, straight.ask);
    printf("| plain libpq through the pool: INSERT of each item's row / SELECT of the customer's newest row | %.0f | %.0f |\n", raw.ingest, raw.ask);
    printf("| plain libpq through the pool, each item verified by GateKit first | %.0f | |\n", verified_raw.ingest);
    printf("| plain libpq directly, 32 connections | %.0f | %.0f |\n", raw_direct.ingest, raw_direct.ask);
    printf("| ratio GateKit through the pool / GateKit directly | **%.2f×** | **%.2f×** |\n", through_pool.ingest / straight.ingest, through_pool.ask / straight.ask);
    printf("| ratio GateKit through the pool / plain libpq through the pool | **%.2f×** | **%.2f×** |\n", through_pool.ingest / raw.ingest, through_pool.ask / raw.ask);
    printf("| ratio GateKit through the pool / verify + plain libpq through the pool | **%.2f×** | |\n", through_pool.ingest / verified_raw.ingest);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "bench_pooler: could not remove %s\n", folder);
    return 0;
}
