/* Permission state speed, with raw SQLite references measured in the same run.
 *
 * perm_state (no provider): served from memory, kept coherent with the store through its data
 * version. Each sample is a batch of calls (ns per call), against:
 *   - a raw SQLite prepared "SELECT state FROM perm_states WHERE category = ?" on the same
 *     file (what a query per call would cost),
 *   - "PRAGMA data_version" alone (the cheapest per-call coherence check SQLite offers).
 * perm_record: single durable calls (WAL, synchronous=FULL: an fsync each), against a raw
 * SQLite BEGIN IMMEDIATE / upsert / insert / COMMIT on a file with the same settings.
 *
 * Run by `make bench` (argv[1] is the library path, unused here). */
#include "bench.h"

#include <gatekit.h>
#include <sqlite3.h>
#include <string.h>

#define BATCH 2000
#define SAMPLES 301
#define WRITES 201

static volatile long sink;

static gatekit_store *store;
static sqlite3_stmt *select_stmt, *version_stmt;

static int batch_state(void *p) {
    (void)p;
    for (int i = 0; i < BATCH; i++) sink += perm_state(store, GATEKIT_PERM_CAMERA);
    return 0;
}

static int batch_select(void *p) {
    (void)p;
    for (int i = 0; i < BATCH; i++) {
        sqlite3_bind_int(select_stmt, 1, GATEKIT_PERM_CAMERA);
        if (sqlite3_step(select_stmt) == SQLITE_ROW) sink += sqlite3_column_int(select_stmt, 0);
        sqlite3_reset(select_stmt);
    }
    return 0;
}

static int batch_version(void *p) {
    (void)p;
    for (int i = 0; i < BATCH; i++) {
        if (sqlite3_step(version_stmt) == SQLITE_ROW) sink += sqlite3_column_int(version_stmt, 0);
        sqlite3_reset(version_stmt);
    }
    return 0;
}

static int record_once(void *p) {
    (void)p;
    /* ASK_LATER keeps the category promptable, so every call is a real durable write. */
    return perm_record(store, GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_DECISION_ASK_LATER) == 0 ? 0 : 1;
}

static sqlite3 *ref;
static sqlite3_stmt *ref_upsert, *ref_insert;

static int raw_write_once(void *p) {
    (void)p;
    sqlite3_int64 now = (sqlite3_int64)bench_now_ns();
    if (sqlite3_exec(ref, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return 1;
    sqlite3_bind_int(ref_upsert, 1, GATEKIT_PERM_MICROPHONE);
    sqlite3_bind_int64(ref_upsert, 2, now);
    int ok = sqlite3_step(ref_upsert) == SQLITE_DONE;
    sqlite3_reset(ref_upsert);
    sqlite3_bind_int(ref_insert, 1, GATEKIT_PERM_MICROPHONE);
    sqlite3_bind_int64(ref_insert, 2, now);
    ok = ok && sqlite3_step(ref_insert) == SQLITE_DONE;
    sqlite3_reset(ref_insert);
    return ok && sqlite3_exec(ref, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : 1;
}

static void ns_row(const char *name, bench_stats s) {
    printf("| %s | %.0f ns | %.0f ns | %.0f ns | %d×%d |\n", name, s.median / BATCH, s.p10 / BATCH, s.p90 / BATCH, s.runs, BATCH);
}

static int fail(const char *what) {
    fprintf(stderr, "bench_perm: %s: %s\n", what, gatekit_last_error());
    return 1;
}

int main(void) {
    char folder[] = "/tmp/gatekit-bench-perm-XXXXXX";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char path[600], refpath[600];
    snprintf(path, sizeof path, "%s/store.sqlite", folder);
    snprintf(refpath, sizeof refpath, "%s/reference.sqlite", folder);

    if (gatekit_store_open(&store, path, NULL) != 0) return fail("open");
    if (perm_set_usage_description(store, GATEKIT_PERM_CAMERA, "bench") != 0) return fail("usage");
    if (perm_set_usage_description(store, GATEKIT_PERM_MICROPHONE, "bench") != 0) return fail("usage");
    if (perm_record(store, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DONT_ASK) != 0) return fail("record");

    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return fail("sqlite3_open");
    sqlite3_prepare_v3(db, "SELECT state FROM perm_states WHERE category = ?1", -1, SQLITE_PREPARE_PERSISTENT, &select_stmt, NULL);
    sqlite3_prepare_v3(db, "PRAGMA data_version", -1, SQLITE_PREPARE_PERSISTENT, &version_stmt, NULL);

    bench_header("Permissions: perm_state (no provider) vs. raw SQLite reads, same file");
    bench_stats st = bench_run(batch_state, NULL, 10, SAMPLES);
    bench_stats sel = bench_run(batch_select, NULL, 10, SAMPLES);
    bench_stats ver = bench_run(batch_version, NULL, 10, SAMPLES);
    ns_row("perm_state(camera), in-memory snapshot + data-version check", st);
    ns_row("raw SQLite prepared SELECT state ... WHERE category = ? (reference)", sel);
    ns_row("raw SQLite PRAGMA data_version alone (reference)", ver);
    printf("| ratio perm_state / prepared SELECT | **%.2f×** | | | |\n", st.median / sel.median);
    if (perm_state(store, GATEKIT_PERM_CAMERA) != GATEKIT_PERM_STATE_DO_NOT_ASK) return fail("perm_state value");

    remove(refpath);
    if (sqlite3_open_v2(refpath, &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return fail("ref open");
    sqlite3_exec(ref, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                      "CREATE TABLE s(category INTEGER PRIMARY KEY, state INTEGER, updated_ms INTEGER);"
                      "CREATE TABLE h(id INTEGER PRIMARY KEY AUTOINCREMENT, category INTEGER, from_state INTEGER,"
                      " to_state INTEGER, source INTEGER, at_ms INTEGER);", NULL, NULL, NULL);
    sqlite3_prepare_v3(ref, "INSERT INTO s VALUES (?1, 100, ?2) ON CONFLICT(category) DO UPDATE SET state = excluded.state,"
                            " updated_ms = excluded.updated_ms", -1, SQLITE_PREPARE_PERSISTENT, &ref_upsert, NULL);
    sqlite3_prepare_v3(ref, "INSERT INTO h(category, from_state, to_state, source, at_ms) VALUES (?1, 100, 100, 1, ?2)",
                       -1, SQLITE_PREPARE_PERSISTENT, &ref_insert, NULL);

    bench_header("Permissions: perm_record (durable, fsync) vs. the same raw SQLite transaction");
    bench_stats raw = bench_run(raw_write_once, NULL, 10, WRITES);
    bench_stats rec = bench_run(record_once, NULL, 10, WRITES);
    bench_row("raw SQLite BEGIN IMMEDIATE + upsert + insert + COMMIT (reference)", raw);
    bench_row("perm_record(microphone, ASK_LATER)", rec);
    printf("| ratio perm_record / raw transaction | **%.2f×** | | | |\n", rec.median / raw.median);

    sqlite3_finalize(ref_upsert); sqlite3_finalize(ref_insert); sqlite3_close(ref);
    sqlite3_finalize(select_stmt); sqlite3_finalize(version_stmt); sqlite3_close(db);
    gatekit_store_close(store);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    return system(cmd) == 0 ? 0 : 1;
}
