/* eula_should_present on a 64 KB and a 4 MB document vs. hashing the same bytes with
 * OpenSSL's EVP_Digest in memory (the raw cost of the SHA-256 itself) — for a plain text, and
 * for a published translation of a version with 8 languages and a scheduled successor; and
 * the consent export's rows/s beside a raw read of the same rows (SQLite, and PostgreSQL when
 * GATEKIT_TEST_POSTGRES names a server, as `make bench` does). */
#include "bench.h"

#include <gatekit.h>
#include <postgresql/libpq-fe.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    gatekit_store *store;
    const char *path;
    unsigned char *bytes;
    size_t len;
} doc_ctx;

static int raw_digest(void *p) {
    doc_ctx *c = p;
    unsigned char md[32];
    unsigned int n = 0;
    return EVP_Digest(c->bytes, c->len, md, &n, EVP_sha256(), NULL) == 1 ? 0 : 1;
}

static int should_present(void *p) {
    doc_ctx *c = p;
    return eula_should_present(c->store, "terms", c->path, NULL) == 0 ? 0 : 1;
}

static int should_present_published(void *p) {
    doc_ctx *c = p;
    return eula_should_present(c->store, "published", c->path, "ann") == 0 ? 0 : 1;
}

static int should_present_at(void *p) {
    doc_ctx *c = p;
    return eula_should_present_at(NULL, c->store, "published", "ann", "de-AT", 0) == 0 ? 0 : 1;
}

static void setup_failed(const char *what) {
    fprintf(stderr, "setup: %s: %s\n", what, gatekit_last_error());
    exit(1);
}

/* "published", version 1: the text at path in English and 7 other languages (the same
 * length); version 2 scheduled a year ahead with a 30-day grace period. Ann accepted the
 * German text of version 1, so a question about the English one goes through the version. */
static void publish(gatekit_store *store, const char *path, const unsigned char *bytes, size_t len) {
    static const char *const languages[] = {"en", "de", "fr", "es", "it", "pt-BR", "ja", "zh-Hans"};
    gatekit_eula_text texts[8];
    unsigned char *copies[8];
    for (int i = 0; i < 8; i++) {
        copies[i] = malloc(len);
        memcpy(copies[i], bytes, len);
        copies[i][0] = (unsigned char)('A' + i);  /* each translation its own text */
        texts[i] = (gatekit_eula_text){.language = languages[i], .bytes = copies[i], .length = len};
    }
    texts[0] = (gatekit_eula_text){.language = "en", .path = path};
    gatekit_eula_publication v = GATEKIT_EULA_PUBLICATION_INIT;
    char label[32];
    snprintf(label, sizeof label, "v1-%zu", len);
    v.label = label;
    v.default_language = "en";
    v.texts = texts;
    v.text_count = 8;
    if (eula_publish(store, "published", &v) != 0) setup_failed("eula_publish");
    char german[GATEKIT_HASH_HEX_SIZE];
    if (eula_hash_bytes(german, copies[1], len) != 0 || eula_accept(store, "published", german, "ann") != 0) setup_failed("eula_accept");
    for (int i = 0; i < 8; i++) {
        copies[i][1] = 'x';  /* version 2: other texts */
        texts[i] = (gatekit_eula_text){.language = languages[i], .bytes = copies[i], .length = len};
    }
    snprintf(label, sizeof label, "v2-%zu", len);
    v.effective_ms = (long long)time(NULL) * 1000 + 365LL * 86400000;
    v.grace_ms = 30LL * 86400000;
    if (eula_publish(store, "published", &v) != 0) setup_failed("eula_publish v2");
    for (int i = 0; i < 8; i++) free(copies[i]);
}

static void measure(gatekit_store *store, const char *folder, size_t len, int runs) {
    char path[512];
    snprintf(path, sizeof path, "%s/eula-%zu.txt", folder, len);
    doc_ctx c = {store, path, malloc(len), len};
    for (size_t i = 0; i < len; i++) c.bytes[i] = (unsigned char)('a' + i % 26);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(c.bytes, 1, len, f) != len) { perror(path); exit(2); }
    fclose(f);
    char hash[GATEKIT_HASH_HEX_SIZE];
    if (eula_hash_file(hash, path) != 0 || eula_accept(store, "terms", hash, NULL) != 0) { fprintf(stderr, "setup: %s\n", gatekit_last_error()); exit(1); }
    publish(store, path, c.bytes, len);

    bench_stats ref = bench_run(raw_digest, &c, runs / 10, runs);
    bench_stats gk = bench_run(should_present, &c, runs / 10, runs);
    char name[128];
    snprintf(name, sizeof name, "%zu KB: EVP_Digest SHA-256 in memory (reference)", len / 1024);
    bench_row(name, ref);
    snprintf(name, sizeof name, "%zu KB: eula_should_present (open, read, hash, query)", len / 1024);
    bench_row(name, gk);
    printf("| %zu KB: ratio eula_should_present / EVP_Digest | **%.2f×** | | | |\n", len / 1024, gk.median / ref.median);
    printf("| %zu KB: overhead over the raw hash | **%.1f µs** | | | |\n", len / 1024, (gk.median - ref.median) / 1e3);
    bench_stats pub = bench_run(should_present_published, &c, runs / 10, runs);
    snprintf(name, sizeof name, "%zu KB: eula_should_present, a published translation (8 languages, a scheduled successor)", len / 1024);
    bench_row(name, pub);
    printf("| %zu KB: ratio published eula_should_present / EVP_Digest | **%.2f×** | | | |\n", len / 1024, pub.median / ref.median);
    if (len == 64 * 1024) {
        bench_stats at = bench_run(should_present_at, &c, runs / 10, runs);
        bench_row("eula_should_present_at (version in effect, de-AT -> de, no file to hash)", at);
        printf("| ratio eula_should_present_at / EVP_Digest of 64 KB | **%.2f×** | | | |\n", at.median / ref.median);
    }
    free(c.bytes);
}

/* ---- The consent export: rows/s beside reading the same rows raw ---- */

static int discard(void *context, const void *bytes, size_t length) {
    (void)bytes;
    *(size_t *)context += length;
    return 0;
}

static int to_file(void *context, const void *bytes, size_t length) {
    return fwrite(bytes, 1, length, context) == length ? 0 : 1;
}

static double seconds_since(struct timespec start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
}

static const char decision_columns[] =
    "SELECT id, document_id, user_name, hash, decision, at_ms, withdrawal, method, client_address, user_agent, locale, metadata, language "
    "FROM eula_decisions ORDER BY id";

/* The raw floor: every column of every decision read through SQLite's C API. */
static size_t raw_sqlite_read(const char *path) {
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    size_t bytes = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK || sqlite3_prepare_v2(db, decision_columns, -1, &s, NULL) != SQLITE_OK) {
        fprintf(stderr, "raw read: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
    while (sqlite3_step(s) == SQLITE_ROW)
        for (int i = 0; i < 13; i++) bytes += (size_t)sqlite3_column_bytes(s, i);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return bytes;
}

/* The raw floor on PostgreSQL: the same rows through libpq, in pages of 1000 by id, as one
 * snapshot. */
static size_t raw_postgres_read(const char *server, const char *app) {
    PGconn *c = PQconnectdb(server);
    char sql[600];
    snprintf(sql, sizeof sql, "SET search_path TO \"gatekit/%s\"", app);
    PQclear(PQexec(c, sql));
    PQclear(PQexec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    size_t bytes = 0;
    long long after = 0;
    for (;;) {
        snprintf(sql, sizeof sql, "SELECT id, document_id, user_name, hash, decision, at_ms, withdrawal, method, client_address, user_agent, "
                                  "locale, metadata, language FROM eula_decisions WHERE id > %lld ORDER BY id LIMIT 1000", after);
        PGresult *r = PQexec(c, sql);
        int n = PQntuples(r);
        for (int row = 0; row < n; row++)
            for (int i = 0; i < 13; i++) bytes += (size_t)PQgetlength(r, row, i);
        if (n) after = atoll(PQgetvalue(r, n - 1, 0));
        PQclear(r);
        if (n < 1000) break;
    }
    PQclear(PQexec(c, "COMMIT"));
    PQfinish(c);
    return bytes;
}

static void measure_export(gatekit_store *store, const char *label, const char *folder, int rows, const char *sqlite_path,
                           const char *server, const char *app) {
    gatekit_eula_text text = {.language = "en", .bytes = "Export terms", .length = 12};
    gatekit_eula_publication v = GATEKIT_EULA_PUBLICATION_INIT;
    v.label = "export-1";
    v.default_language = "en";
    v.texts = &text;
    v.text_count = 1;
    if (eula_publish(store, "export", &v) != 0) setup_failed("eula_publish");
    char hash[GATEKIT_HASH_HEX_SIZE];
    if (eula_hash_bytes(hash, "Export terms", 12) != 0) setup_failed("eula_hash_bytes");
    const char *keys[] = {"form"}, *values[] = {"signup-v3"};
    gatekit_eula_consent how = GATEKIT_EULA_CONSENT_INIT;
    how.method = GATEKIT_EULA_METHOD_CLICK_THROUGH;
    how.client_address = "203.0.113.40";
    how.user_agent = "Mozilla/5.0 (X11; Linux x86_64) Bench/1.0";
    how.locale = "en-GB";
    how.metadata_keys = keys;
    how.metadata_values = values;
    how.metadata_count = 1;
    for (int i = 0; i < rows; i++) {
        char user[32];
        snprintf(user, sizeof user, "user-%d", i);
        if (eula_accept_with(store, "export", hash, user, &how) != 0) setup_failed("eula_accept_with");
    }
    /* Three rounds each, interleaved; the medians are reported. */
    double raw[3], exported[3], verified[3];
    size_t raw_bytes = 0, out_bytes = 0;
    char path[600];
    snprintf(path, sizeof path, "%s/export-%s.jsonl", folder, label);
    for (int round = 0; round < 3; round++) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        raw_bytes = server ? raw_postgres_read(server, app) : raw_sqlite_read(sqlite_path);
        raw[round] = seconds_since(t);
        out_bytes = 0;
        long long count = 0;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (eula_export(&count, store, NULL, NULL, GATEKIT_EULA_EXPORT_EVERYONE, discard, &out_bytes) != 0) setup_failed("eula_export");
        exported[round] = seconds_since(t);
        FILE *f = fopen(path, "wb");
        if (!f || eula_export(NULL, store, NULL, NULL, GATEKIT_EULA_EXPORT_EVERYONE, to_file, f) != 0) setup_failed("eula_export to a file");
        fclose(f);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (eula_verify_export(&count, store, path) != 0) setup_failed("eula_verify_export");
        verified[round] = seconds_since(t);
    }
    for (int i = 0; i < 2; i++)
        for (int j = i + 1; j < 3; j++) {
            double *arrays[] = {raw, exported, verified};
            for (int k = 0; k < 3; k++)
                if (arrays[k][j] < arrays[k][i]) { double x = arrays[k][i]; arrays[k][i] = arrays[k][j]; arrays[k][j] = x; }
        }
    printf("| %s: raw read of the %d decisions' columns (%s; reference) | %.0f | %.1f MB |\n", label, rows,
           server ? "libpq, pages of 1000, one snapshot" : "sqlite3_step", rows / raw[1], raw_bytes / 1e6);
    printf("| %s: eula_export, JSON lines | **%.0f** | %.1f MB |\n", label, rows / exported[1], out_bytes / 1e6);
    printf("| %s: eula_verify_export of that file | **%.0f** | |\n", label, rows / verified[1]);
    printf("| %s: time ratio export / raw read | **%.2f×** | |\n", label, exported[1] / raw[1]);
}

int main(void) {
    char folder[] = "/tmp/gatekit-bench-eula-XXXXXX";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char store_path[600];
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", folder);
    gatekit_store *store = NULL;
    if (gatekit_store_open(&store, store_path, NULL) != 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    bench_header("EULA: eula_should_present vs. EVP_Digest (document in the page cache)");
    measure(store, folder, 64 * 1024, 4000);
    measure(store, folder, 4 * 1024 * 1024, 300);
    printf("\n### EULA: the consent export (medians of 3 rounds, interleaved with the raw read)\n\n"
           "| measurement | rows/s | bytes read or written |\n|---|---:|---:|\n");
    int rows = getenv("BENCH_EULA_EXPORT_ROWS") ? atoi(getenv("BENCH_EULA_EXPORT_ROWS")) : 50000;
    measure_export(store, "SQLite", folder, rows, store_path, NULL, NULL);
    gatekit_store_close(store);
    const char *server = getenv("GATEKIT_TEST_POSTGRES");
    if (server) {
        char app[64];
        snprintf(app, sizeof app, "bench-eula-export-%d", (int)getpid());
        gatekit_store *pg = NULL;
        if (gatekit_store_open(&pg, server, app) != 0) setup_failed("gatekit_store_open (PostgreSQL)");
        measure_export(pg, "PostgreSQL", folder, rows / 2, NULL, server, app);
        gatekit_store_close(pg);
    } else {
        printf("SKIP: the PostgreSQL export row (no GATEKIT_TEST_POSTGRES; make bench starts a server)\n");
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    return system(cmd) == 0 ? 0 : 1;
}
