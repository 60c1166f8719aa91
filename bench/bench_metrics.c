/* Ledger insight (issue 31): ledger_metrics() for a monthly series of 2025 over stores of 1,000,
 * 100,000 and 1,000,000 transactions, on SQLite and on PostgreSQL; then (issue 48) the common
 * case — an app account token on every subscription, one in a hundred sharing its customer's token
 * with another, one in seven renewing a day and an hour into its period — asked every way: by
 * product, by storefront weekly, daily, as of an instant in July, and the report's app view.
 * Each beside its reference in the same run: the engine handing the same rows (every column the metrics read, transactions and
 * renewal infos, in the same order) to a plain query loop in this process — what any reader of
 * the signed data pays before computing anything.
 *
 * The stores are filled by SQL in the engine (generate_series / a recursive CTE), not by
 * ingesting signed items (bench_backfill.c measures that): six monthly periods per
 * subscription from a start spread over 2025, one subscription in five beginning with a free
 * trial, a third in EUR, one period in 97 refunded, a renewal info per subscription (one in ten
 * in billing retry, expiration intents mixed). BENCH_METRICS_SIZES overrides the sizes. */
#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const long long day = 86400000LL, jan1 = 1735689600000LL;

/* The rows, as one statement per table; %lld is the number of transactions. SQLite and
 * PostgreSQL differ only in how the numbers are made and padded. */
static const char *transactions_sql =
    "INSERT INTO ledger_transactions(environment, test_signed, transaction_id, original_transaction_id, product_id, group_id,"
    " product_type, family_shared, purchase_ms, original_purchase_ms, expires_ms, revocation_ms, revocation_reason, is_upgraded,"
    " offer_type, signed_ms, identity, item_id, price, currency, storefront, trial, revocation_type, app_account_token, store)"
    " SELECT 'Production', 0, 't' || i, 'o' || (i / 6), CASE WHEN (i / 6) %% 4 = 0 THEN 'pro.yearly' ELSE 'pro.monthly' END, 'g1',"
    " 1, 0, %s, %s, %s,"
    " CASE WHEN i %% 97 = 0 THEN %s + %lld END, CASE WHEN i %% 97 = 0 THEN 0 END, 0,"
    " CASE WHEN i %% 6 = 0 AND (i / 6) %% 5 = 0 THEN 1 END, %s, %s, %s,"
    " CASE WHEN i %% 6 = 0 AND (i / 6) %% 5 = 0 THEN 0 ELSE 9990 END, CASE WHEN (i / 6) %% 3 = 0 THEN 'EUR' ELSE 'USD' END,"
    " CASE WHEN (i / 6) %% 3 = 0 THEN 'DEU' ELSE 'USA' END, CASE WHEN i %% 6 = 0 AND (i / 6) %% 5 = 0 THEN 1 ELSE 0 END,"
    " CASE WHEN i %% 97 = 0 THEN 'REFUND_FULL' END, %s, %s FROM %s";

static const char *renewals_sql =
    "INSERT INTO ledger_renewals(environment, test_signed, original_transaction_id, product_id, auto_renew_product_id,"
    " auto_renew_status, is_in_billing_retry, grace_period_expires_ms, expiration_intent, signed_ms, identity, item_id)"
    " SELECT 'Production', 0, 'o' || i, 'pro.monthly', 'pro.monthly', 0, CASE WHEN i %% 10 = 0 THEN 1 ELSE 0 END,"
    " CASE WHEN i %% 20 = 0 THEN %s + %lld END, 1 + i %% 3, %s + %lld, %s, %s FROM %s";

/* The expressions for subscription i / 6's start and period i % 6 (30 days each): a day of 2025
 * and a second of that day, spread over it (as purchases are), so an instant inside a day has
 * subscriptions with something before it that day and others with something after. */
#define START "(%lld + ((i / 6) %% 365) * %lld + ((i / 6) * 7919 %% 86400) * 1000)"

typedef struct {
    gatekit_store *store;
    gatekit_ledger_query q;
    const char *server, *app;  /* PostgreSQL, or NULL */
    sqlite3 *db;
    PGconn *pg;
    int granularity, dimension;  /* 0: month, all (the issue-31 question) */
    int report;                  /* ledger_report's app view instead */
} bench_ctx;

static char *format(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *out = NULL;
    if (vasprintf(&out, fmt, args) < 0) { perror("vasprintf"); exit(2); }
    va_end(args);
    return out;
}

/* The SQL filling a store of n transactions, for SQLite (sqlite = 1) or PostgreSQL; `tokened`:
 * the common case (tokens, shared tokens, late-signed renewals). */
static char *fill_sql(long long n, int sqlite, int tokened) {
    char *start = format(START, jan1, day);
    char *period = format("(%s + (i %% 6) * %lld)", start, 30 * day);
    /* Subscription k's token, or for one in a hundred its predecessor's: the same customer. */
    char *token = tokened ? strdup("'0c6d1e2f-0000-4000-8000-' || ((i / 6) - CASE WHEN (i / 6) % 100 = 1 THEN 1 ELSE 0 END)")
                          : strdup("NULL");
    /* One subscription in seven has its renewals signed a day and an hour into their periods. */
    char *signed_at = tokened ? format("(%s + CASE WHEN i %% 6 > 0 AND (i / 6) %% 7 = 0 THEN %lld ELSE 0 END)", period, day + 3600000)
                              : strdup(period);
    char *expires = format("(%s + %lld)", period, 30 * day);
    char *identity = sqlite ? strdup("printf('%064d', i)") : strdup("lpad(i::text, 64, '0')");
    char *item = strdup("(SELECT min(id) FROM ledger_items)");
    char *numbers = sqlite ? format("(WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %lld) SELECT i FROM n) AS s", n - 1)
                           : format("generate_series(0::bigint, %lld) AS i", n - 1);
    char *subscriptions = sqlite ? format("(WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %lld) SELECT i FROM n) AS s", (n + 5) / 6 - 1)
                                 : format("generate_series(0::bigint, %lld) AS i", (n + 5) / 6 - 1);
    /* Three stores (issue 64): a third of the subscriptions each the App Store's (no code), Google Play's and Stripe's. */
    const char *store = "CASE (i / 6) % 3 WHEN 1 THEN 'play' WHEN 2 THEN 'stripe' END";
    char *tx = format(transactions_sql, period, period, expires, period, 2 * day, signed_at, identity, item, token, store, numbers);
    char *start_of_i = format("(%lld + (i %% 365) * %lld + (i * 7919 %% 86400) * 1000)", jan1, day);
    char *rn = format(renewals_sql, start_of_i, 186 * day, start_of_i, 180 * day, identity, item, subscriptions);
    /* Each subscription a subject of the item, as a store that ingested it names it. */
    char *subjects = format("INSERT INTO ledger_item_subjects(original_transaction_id, item_id) SELECT 'o' || i, %s FROM %s", item, subscriptions);
    char *sql = format("INSERT INTO ledger_items(environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body)"
                       " VALUES ('Production', 0, '%064d', 2, 0, 0, 1, 'generated');\n%s;\n%s;\n%s;\n", 0, tx, rn, subjects);
    free(subjects);
    free(token); free(signed_at);
    free(start); free(period); free(expires); free(identity); free(item); free(numbers); free(subscriptions); free(tx);
    free(start_of_i); free(rn);
    return sql;
}

static int metrics_call(void *p) {
    bench_ctx *c = p;
    char *out = NULL;
    int granularity = c->granularity ? c->granularity : GATEKIT_METRICS_MONTH;
    int rc = c->report ? ledger_report(&out, c->store, &c->q, jan1, jan1 + 365 * day, granularity, NULL)
                       : ledger_metrics(&out, c->store, &c->q, jan1, jan1 + 365 * day, granularity, c->dimension);
    if (rc != 0) fprintf(stderr, "ledger_%s: %d %s\n", c->report ? "report" : "metrics", rc, gatekit_last_error());
    gatekit_free(out);
    return rc;
}

/* The common case's questions: each split and bucket, as of now and of an instant in July. */
static const struct { const char *name; int granularity, dimension, past, report; } questions[] = {
    {"monthly, all, as of now", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL, 0, 0},
    {"monthly, by product", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_BY_PRODUCT, 0, 0},
    {"weekly, by storefront", GATEKIT_METRICS_WEEK, GATEKIT_METRICS_BY_STOREFRONT, 0, 0},
    {"monthly, by store", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_BY_STORE, 0, 0},
    {"monthly, by store, as of 2025-07-15 12:00", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_BY_STORE, 1, 0},
    {"daily, by currency", GATEKIT_METRICS_DAY, GATEKIT_METRICS_BY_CURRENCY, 0, 0},
    {"monthly, all, as of 2025-07-15 12:00", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL, 1, 0},
    {"daily, by product, as of 2025-07-15 12:00", GATEKIT_METRICS_DAY, GATEKIT_METRICS_BY_PRODUCT, 1, 0},
    {"ledger_report, the app view (HTML, monthly)", GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL, 0, 1},
};

static const char *read_tx =
    "SELECT transaction_id, original_transaction_id, app_account_token, product_id, group_id, product_type, family_shared,"
    " purchase_ms, original_purchase_ms, expires_ms, revocation_ms, revocation_reason, is_upgraded, offer_type, signed_ms, identity,"
    " price, currency, storefront, trial, revocation_type, revocation_percentage FROM ledger_transactions"
    " WHERE environment = 'Production' AND test_signed = 0 ORDER BY original_transaction_id";
static const char *read_renewals =
    "SELECT original_transaction_id, product_id, auto_renew_product_id, auto_renew_status, is_in_billing_retry,"
    " grace_period_expires_ms, expiration_intent, renewal_ms, signed_ms, identity FROM ledger_renewals"
    " WHERE environment = 'Production' AND test_signed = 0 ORDER BY original_transaction_id";

/* The reference: every row the metrics read, each column fetched once. */
static int reference_read(void *p) {
    bench_ctx *c = p;
    long long sink = 0;
    for (int t = 0; t < 2; t++) {
        const char *sql = t == 0 ? read_tx : read_renewals;
        if (c->db) {
            sqlite3_stmt *s = NULL;
            if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK) return 1;
            while (sqlite3_step(s) == SQLITE_ROW)
                for (int i = 0; i < sqlite3_column_count(s); i++)
                    sink += sqlite3_column_type(s, i) == SQLITE_TEXT ? (long long)sqlite3_column_bytes(s, i) : sqlite3_column_int64(s, i);
            sqlite3_finalize(s);
        } else {
            PGresult *r = PQexec(c->pg, sql);
            if (PQresultStatus(r) != PGRES_TUPLES_OK) { fprintf(stderr, "%s", PQerrorMessage(c->pg)); PQclear(r); return 1; }
            int rows = PQntuples(r), cols = PQnfields(r);
            for (int row = 0; row < rows; row++)
                for (int i = 0; i < cols; i++) sink += PQgetlength(r, row, i);
            PQclear(r);
        }
    }
    return sink < 0;
}

/* Item `k` renewing a thousand subscriptions (the k-th such item: its own identities). */
static void renew_thousand(bench_ctx *c, const char *server, int k) {
    const char *thousand = server ? "generate_series(0::bigint, 999) AS i"
                                  : "(WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) SELECT i FROM n) AS s";
    char *more = format(
        "INSERT INTO ledger_items(environment, test_signed, identity, kind, signed_ms, ingested_ms, outcome, body)"
        " VALUES ('Production', 0, '%064d', 2, 0, 0, 1, 'generated');\n"
        "INSERT INTO ledger_transactions(environment, test_signed, transaction_id, original_transaction_id, product_id, group_id,"
        " product_type, family_shared, purchase_ms, original_purchase_ms, expires_ms, is_upgraded, signed_ms, identity, item_id,"
        " price, currency, storefront, trial)"
        " SELECT 'Production', 0, 'r%d-' || i, 'o' || i, 'pro.monthly', 'g1', 1, 0, %lld, %lld, %lld, 0, %lld, %s, (SELECT max(id) FROM ledger_items),"
        " 9990, 'USD', 'USA', 0 FROM %s;\n"
        "INSERT INTO ledger_item_subjects(original_transaction_id, item_id) SELECT 'o' || i, (SELECT max(id) FROM ledger_items) FROM %s;\n",
        k, k, jan1 + 200 * day, jan1 + 200 * day, jan1 + 230 * day, jan1 + 200 * day,
        server ? (k == 1 ? "lpad(i::text, 64, '1')" : "lpad(i::text, 64, '2')") : (k == 1 ? "printf('1%063d', i)" : "printf('2%063d', i)"),
        thousand, thousand);
    if (server) {
        PGresult *r = PQexec(c->pg, more);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "more: %s", PQerrorMessage(c->pg)); exit(1); }
        PQclear(r);
    } else if (sqlite3_exec(c->db, more, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "more: %s\n", sqlite3_errmsg(c->db));
        exit(1);
    }
    free(more);
}

/* One pass of a host's metrics worker (ledger_metrics_refresh), in milliseconds. */
static double refresh_ms(bench_ctx *c) {
    uint64_t t0 = bench_now_ns();
    if (ledger_metrics_refresh(c->store, &c->q) < 0) { fprintf(stderr, "ledger_metrics_refresh: %s\n", gatekit_last_error()); exit(1); }
    return (double)(bench_now_ns() - t0) / 1e6;
}

static void run(const char *engine, long long n, const char *server, int tokened) {
    bench_ctx c = {0};
    char path[256], app[64];
    snprintf(path, sizeof path, "/tmp/gatekit-bench-metrics-%d-%lld.sqlite", (int)getpid(), n);
    snprintf(app, sizeof app, "bench.metrics.%d.%lld", (int)getpid(), n);
    int rc = server ? gatekit_store_open(&c.store, server, app) : gatekit_store_open(&c.store, path, NULL);
    if (rc != 0) { fprintf(stderr, "open: %s\n", gatekit_last_error()); exit(1); }
    char *sql = fill_sql(n, server == NULL, tokened);
    uint64_t t0 = bench_now_ns();
    if (server) {
        c.pg = PQconnectdb(server);
        char *path_sql = format("SET search_path TO \"gatekit/%s\"", app);
        PQclear(PQexec(c.pg, path_sql));
        free(path_sql);
        PGresult *r = PQexec(c.pg, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "fill: %s", PQerrorMessage(c.pg)); exit(1); }
        PQclear(r);
        PQclear(PQexec(c.pg, "ANALYZE"));
    } else {
        sqlite3_open(path, &c.db);
        char *error = NULL;
        if (sqlite3_exec(c.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(c.db, sql, NULL, NULL, &error) != SQLITE_OK
            || sqlite3_exec(c.db, "COMMIT; ANALYZE", NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(stderr, "fill: %s\n", error ? error : sqlite3_errmsg(c.db));
            exit(1);
        }
    }
    double fill_s = (double)(bench_now_ns() - t0) / 1e9;
    free(sql);
    if (ledger_query_init(&c.q, GATEKIT_LEDGER_QUERY_VERSION) != 0) exit(1);
    c.q.environment = "Production";
    c.q.at_ms = 0;  /* now */
    int runs = n >= 1000000 ? 5 : n >= 100000 ? 9 : 31;
    /* The first question builds the store's day roll-up from every row; later ones read it. In
     * the common case a worker's pass (ledger_metrics_refresh, what `gatekit ledger
     * metrics-refresh --follow` runs) builds it first, as a host keeping it current does. */
    double build_ms = 0;
    if (tokened) build_ms = refresh_ms(&c);
    uint64_t first0 = bench_now_ns();
    if (metrics_call(&c) != 0) exit(1);
    double first_ms = (double)(bench_now_ns() - first0) / 1e6;
    bench_stats metrics = bench_run(metrics_call, &c, 0, runs);
    bench_stats reference = bench_run(reference_read, &c, 1, runs);
    if (tokened) {
        for (size_t i = 0; i < sizeof questions / sizeof questions[0]; i++) {
            c.granularity = questions[i].granularity;
            c.dimension = questions[i].dimension;
            c.report = questions[i].report;
            c.q.at_ms = questions[i].past ? jan1 + 195 * day + 12 * 3600000LL : 0;
            /* Three times the runs: a question takes milliseconds, and one slow run moves a median of five. */
            bench_stats asked = bench_run(metrics_call, &c, 1, 3 * runs);
            printf("| %s | %lld | %s | %.1f ms | %.1f ms | %.3f× | %.1f s |\n", engine, n, questions[i].name, asked.median / 1e6,
                   reference.median / 1e6, asked.median / reference.median, fill_s);
        }
        c.granularity = c.dimension = c.report = 0;
        c.q.at_ms = 0;
        fflush(stdout);
    }
    /* A thousand subscriptions renew in one new item: the next question counts them again
     * (then, in the common case, a second such item counted by the worker's pass first). */
    renew_thousand(&c, server, 1);
    uint64_t after0 = bench_now_ns();
    if (metrics_call(&c) != 0) exit(1);
    double after_ms = (double)(bench_now_ns() - after0) / 1e6;
    if (!tokened)
        printf("| %s | %lld | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.3f× | %.1f s |\n", engine, n, metrics.median / 1e6, first_ms,
               after_ms, reference.median / 1e6, metrics.median / reference.median, fill_s);
    else {
        printf("| %s | %lld | the worker's first pass: ledger_metrics_refresh builds the roll-up | %.1f s | %.1f ms | %.3f× | |\n",
               engine, n, build_ms / 1e3, reference.median / 1e6, build_ms * 1e6 / reference.median);
        printf("| %s | %lld | the first question after the worker's pass | %.1f ms | %.1f ms | %.3f× | |\n", engine, n, first_ms,
               reference.median / 1e6, first_ms * 1e6 / reference.median);
        printf("| %s | %lld | after 1,000 renewals in a new item, no worker (the question counts them) | %.1f ms | %.1f ms | %.3f× | |\n",
               engine, n, after_ms, reference.median / 1e6, after_ms * 1e6 / reference.median);
        renew_thousand(&c, server, 2);
        double pass_ms = refresh_ms(&c);
        uint64_t next0 = bench_now_ns();
        if (metrics_call(&c) != 0) exit(1);
        double next_ms = (double)(bench_now_ns() - next0) / 1e6;
        printf("| %s | %lld | after 1,000 renewals in a new item: the worker's pass | %.1f ms | %.1f ms | %.3f× | |\n", engine, n, pass_ms,
               reference.median / 1e6, pass_ms * 1e6 / reference.median);
        printf("| %s | %lld | after 1,000 renewals in a new item: the question after the worker's pass | %.1f ms | %.1f ms | %.3f× | |\n",
               engine, n, next_ms, reference.median / 1e6, next_ms * 1e6 / reference.median);
    }
    fflush(stdout);
    gatekit_store_close(c.store);
    if (c.db) sqlite3_close(c.db);
    if (c.pg) {
        char *drop = format("DROP SCHEMA \"gatekit/%s\" CASCADE", app);
        PQclear(PQexec(c.pg, drop));
        free(drop);
        PQfinish(c.pg);
    }
    if (!server) {
        char side[300];
        unlink(path);
        snprintf(side, sizeof side, "%s-wal", path); unlink(side);
        snprintf(side, sizeof side, "%s-shm", path); unlink(side);
    }
}

int main(void) {
    const char *server = getenv("GATEKIT_TEST_POSTGRES");
    const char *sizes = getenv("BENCH_METRICS_SIZES");
    long long list[8] = {1000, 100000, 1000000};
    int count = 3;
    if (sizes) {
        count = 0;
        for (char *p = (char *)sizes; *p && count < 8;) {
            list[count++] = strtoll(p, &p, 10);
            while (*p == ',') p++;
        }
    }
    printf("\n### Ledger metrics: a monthly series of a year (issue 31)\n\n"
           "ledger_metrics(GATEKIT_METRICS_MONTH, ALL) over 2025, median, as of now (the store's day roll-up current); "
           "the first question, which builds the roll-up from every row; the question after an item renewing 1,000 subscriptions; reference: the engine handing the same rows "
           "(transactions and renewal infos, every column read) to a plain query loop in this process.\n\n"
           "| store | transactions | ledger_metrics | first question (builds the roll-up) | after 1,000 renewals in a new item | reference: read the rows | ratio | fill (SQL) |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    if (!getenv("BENCH_METRICS_COMMON_ONLY")) {
        for (int i = 0; i < count; i++) run("SQLite", list[i], NULL, 0);
        if (server) for (int i = 0; i < count; i++) run("PostgreSQL", list[i], server, 0);
        else printf("\n(PostgreSQL not measured: no GATEKIT_TEST_POSTGRES; make bench starts a server)\n");
    }
    printf("\n### Ledger metrics, the common case (issue 48)\n\n"
           "Every subscription with an app account token (one in a hundred sharing its customer's token with another), one in seven "
           "with renewals signed a day and an hour into their periods; the roll-up current; median. Reference: reading the rows, as above.\n\n"
           "| store | transactions | question | time | reference: read the rows | ratio | fill (SQL) |\n|---|---:|---|---:|---:|---:|---:|\n");
    /* The largest size; with BENCH_METRICS_COMMON_ONLY, each size given. */
    for (int i = getenv("BENCH_METRICS_COMMON_ONLY") ? 0 : count - 1; i < count; i++) {
        run("SQLite", list[i], NULL, 1);
        if (server) run("PostgreSQL", list[i], server, 1);
    }
    return 0;
}
