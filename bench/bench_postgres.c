/* The PostgreSQL store (make bench runs it on the private server scripts/with-postgres.sh
 * starts): EULA acceptance and ledger ingestion throughput with 1, 4 and 8 concurrent clients
 * (threads, each its own handle and connection) beside the same rows inserted by plain libpq
 * and beside SQLite; eula_should_present and ledger_is_entitled latency beside one libpq round
 * trip of the same query and beside SQLite. */
#include "bench.h"
#include "bench_ledger_data.h"

#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-bench-pg-XXXXXX";
static const char *server;
static char run_tag[32];

typedef enum { GATEKIT_PG, GATEKIT_SQLITE, RAW_LIBPQ } target;

typedef struct {
    target where;
    const char *app;   /* the store's app id (its schema on PostgreSQL) */
    int first, count;  /* this client's rows */
    char **items;      /* ledger: signed transactions; NULL: EULA acceptances */
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

static void *run_client(void *p) {
    client *c = p;
    char doc[64], hash[65], now[32];
    if (c->where == RAW_LIBPQ) {
        /* The natural plain-libpq program: one prepared INSERT per row, autocommitted (durable). */
        PGconn *conn = raw_connect(c->app);
        PGresult *r = PQprepare(conn, "ins", "INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) "
                                             "VALUES ($1, NULL, $2, 1, $3)", 3, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "prepare: %s", PQerrorMessage(conn)); exit(1); }
        PQclear(r);
        for (int i = c->first; i < c->first + c->count; i++) {
            snprintf(doc, sizeof doc, "doc-%d", i);
            snprintf(hash, sizeof hash, "%064d", i);
            snprintf(now, sizeof now, "%lld", (long long)time(NULL) * 1000);
            const char *values[3] = {doc, hash, now};
            r = PQexecPrepared(conn, "ins", 3, values, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "insert: %s", PQerrorMessage(conn)); exit(1); }
            PQclear(r);
        }
        PQfinish(conn);
        return NULL;
    }
    gatekit_store *s = open_target(c->where, c->app);
    for (int i = c->first; i < c->first + c->count; i++) {
        int rc;
        if (c->items) {
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
static double rate(target where, const char *kind, int clients, int total, char **items) {
    char app[96];
    snprintf(app, sizeof app, "bench.%s.%s.%d.%d", run_tag, kind, (int)where, clients);
    gatekit_store_close(open_target(where == RAW_LIBPQ ? GATEKIT_PG : where, app));  /* the schema, before the clock */
    pthread_t threads[8];
    client cs[8];
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < clients; k++) {
        cs[k] = (client){where, app, k * (total / clients), total / clients, items};
        pthread_create(&threads[k], NULL, run_client, &cs[k]);
    }
    for (int k = 0; k < clients; k++) pthread_join(threads[k], NULL);
    return (double)(total / clients * clients) / ((double)(bench_now_ns() - t0) / 1e9);
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
    return ledger_is_entitled(c->store, &c->q, "1000000007", "pro.monthly", &e) < 0;
}

static void latency(const char *eula_app, const char *ledger_app, const char *sqlite_eula, const char *sqlite_ledger) {
    lookup_ctx pg = {open_target(GATEKIT_PG, eula_app), raw_connect(eula_app), {0}};
    PGresult *r = PQprepare(pg.raw, "present", "SELECT d.decision FROM eula_decisions d WHERE d.document_id = $1 "
                            "AND d.user_name IS NULL AND d.hash = $2 ORDER BY d.id DESC LIMIT 1", 2, NULL);
    PQclear(r);
    lookup_ctx lite = {open_target(GATEKIT_SQLITE, sqlite_eula), NULL, {0}};
    bench_stats raw = bench_run(body_raw_present, &pg, 200, 3000);
    bench_stats gk = bench_run(body_present, &pg, 200, 3000);
    bench_stats sq = bench_run(body_present, &lite, 200, 3000);
    bench_header("PostgreSQL: read latency beside one libpq round trip (Unix socket, same machine)");
    bench_row("libpq: one prepared SELECT of the decision (reference)", raw);
    bench_row("eula_should_present_hash on PostgreSQL (a cold read: one query)", gk);
    bench_row("eula_should_present_hash on SQLite", sq);
    printf("| ratio PostgreSQL eula_should_present_hash / libpq round trip | **%.2f×** | | | |\n", gk.median / raw.median);

    lookup_ctx pgl = {open_target(GATEKIT_PG, ledger_app), NULL, {0}}, litel = {open_target(GATEKIT_SQLITE, sqlite_ledger), NULL, {0}};
    ledger_query_init(&pgl.q, GATEKIT_LEDGER_QUERY_VERSION);
    pgl.q.environment = "Sandbox";
    pgl.q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    litel.q = pgl.q;
    bench_stats warm_pg = bench_run(body_entitled, &pgl, 200, 20000);
    bench_stats warm_lite = bench_run(body_entitled, &litel, 200, 20000);
    bench_row("ledger_is_entitled warm on PostgreSQL (cache kept coherent by LISTEN/NOTIFY)", warm_pg);
    bench_row("ledger_is_entitled warm on SQLite (reference)", warm_lite);
    printf("| ratio warm ledger_is_entitled PostgreSQL / SQLite | **%.2f×** | | | |\n", warm_pg.median / warm_lite.median);
    gatekit_store_close(pg.store);
    gatekit_store_close(lite.store);
    gatekit_store_close(pgl.store);
    gatekit_store_close(litel.store);
    PQfinish(pg.raw);
}

int main(void) {
    server = getenv("GATEKIT_TEST_POSTGRES");
    if (!server) { printf("\n### PostgreSQL\n\nSKIPPED: no server (run through `make bench`, which starts one)\n"); return 0; }
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(run_tag, sizeof run_tag, "%ld", (long)getpid());
    setup_pki(folder);
    enum { TOTAL = 2400, LEDGER = 1200 };
    char **items = malloc(sizeof(char *) * LEDGER);
    long long base = ((long long)time(NULL) - 86400) * 1000;
    for (int i = 0; i < LEDGER; i++) items[i] = signed_transaction(i, 0, base);

    printf("\n### PostgreSQL: throughput with 1, 4 and 8 concurrent clients (rows/s; threads, one handle each)\n\n");
    printf("| clients | plain libpq INSERT (reference) | eula_accept PostgreSQL | ratio | eula_accept SQLite | ledger_ingest_transaction PostgreSQL | ledger ingest SQLite |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    const int counts[3] = {1, 4, 8};
    char ledger_pg[96] = "", ledger_lite[96] = "", eula_pg[96] = "", eula_lite[96] = "";
    for (int k = 0; k < 3; k++) {
        int n = counts[k];
        double raw = rate(RAW_LIBPQ, "raw", n, TOTAL, NULL);
        double pg = rate(GATEKIT_PG, "eula", n, TOTAL, NULL);
        double lite = rate(GATEKIT_SQLITE, "eula", n, TOTAL, NULL);
        double lpg = rate(GATEKIT_PG, "ledger", n, LEDGER, items);
        double llite = rate(GATEKIT_SQLITE, "ledger", n, LEDGER, items);
        printf("| %d | %.0f | %.0f | **%.2f×** | %.0f | %.0f | %.0f |\n", n, raw, pg, pg / raw, lite, lpg, llite);
        fflush(stdout);
    }
    snprintf(eula_pg, sizeof eula_pg, "bench.%s.eula.%d.1", run_tag, (int)GATEKIT_PG);
    snprintf(eula_lite, sizeof eula_lite, "bench.%s.eula.%d.1", run_tag, (int)GATEKIT_SQLITE);
    snprintf(ledger_pg, sizeof ledger_pg, "bench.%s.ledger.%d.1", run_tag, (int)GATEKIT_PG);
    snprintf(ledger_lite, sizeof ledger_lite, "bench.%s.ledger.%d.1", run_tag, (int)GATEKIT_SQLITE);
    latency(eula_pg, ledger_pg, eula_lite, ledger_lite);
    printf("\nReproduce: `make bench BENCH=postgres`. Each client commits one durable transaction per row "
           "(GateKit: BEGIN SERIALIZABLE, the INSERTs, NOTIFY + COMMIT; the reference: one autocommitted INSERT).\n");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "bench_postgres: could not remove %s\n", folder);
    return 0;
}
