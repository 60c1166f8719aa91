/* perm_state / perm_record speed, with raw SQLite references run in the same invocation.
 *
 *   perm_state (no provider): median ns per call over batches of calls, against
 *     - a raw SQLite prepared "SELECT state FROM perm_states WHERE category = ?" (same file),
 *     - PRAGMA data_version alone (what a query-per-call coherence check would cost).
 *   perm_record: median µs of single durable calls (WAL, synchronous=FULL), against a raw
 *     SQLite BEGIN IMMEDIATE / upsert / insert / COMMIT on a file with the same settings.
 *
 * Usage: bench_perm [dir]   (dir: where the store goes; default a fresh folder in /tmp) */
#include <gatekit.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define BATCHES 31
#define CALLS 20000
#define WRITES 101

static volatile long sink;

static int die(const char *what, int rc) {
    fprintf(stderr, "%s failed: %d %s\n", what, rc, gatekit_last_error());
    return 1;
}

int main(int argc, char **argv) {
    char dir[256] = "/tmp/gatekit-bench-perm-XXXXXX";
    if (argc > 1) snprintf(dir, sizeof dir, "%s", argv[1]);
    else if (!mkdtemp(dir)) return die("mkdtemp", -1);
    char path[512], refpath[512];
    snprintf(path, sizeof path, "%s/store.sqlite", dir);
    snprintf(refpath, sizeof refpath, "%s/reference.sqlite", dir);

    gatekit_store *s = NULL;
    int rc = gatekit_store_open(&s, path, NULL);
    if (rc) return die("gatekit_store_open", rc);
    if ((rc = perm_set_usage_description(s, GATEKIT_PERM_CAMERA, "bench"))) return die("usage", rc);
    if ((rc = perm_set_usage_description(s, GATEKIT_PERM_MICROPHONE, "bench"))) return die("usage", rc);
    if ((rc = perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DONT_ASK)) && rc != GATEKIT_EPERM_NOT_PROMPTABLE)
        return die("perm_record", rc);

    /* Raw SQLite reference on the same file, same pragmas. */
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return die("sqlite3_open", -1);
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", NULL, NULL, NULL);
    sqlite3_stmt *select = NULL, *version = NULL;
    sqlite3_prepare_v3(db, "SELECT state FROM perm_states WHERE category = ?1", -1, SQLITE_PREPARE_PERSISTENT, &select, NULL);
    sqlite3_prepare_v3(db, "PRAGMA data_version", -1, SQLITE_PREPARE_PERSISTENT, &version, NULL);

    double state_ns[BATCHES], select_ns[BATCHES], version_ns[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < CALLS; i++) sink += perm_state(s, GATEKIT_PERM_CAMERA);
        uint64_t t1 = now_ns();
        for (int i = 0; i < CALLS; i++) {
            sqlite3_bind_int(select, 1, GATEKIT_PERM_CAMERA);
            if (sqlite3_step(select) == SQLITE_ROW) sink += sqlite3_column_int(select, 0);
            sqlite3_reset(select);
        }
        uint64_t t2 = now_ns();
        for (int i = 0; i < CALLS; i++) {
            if (sqlite3_step(version) == SQLITE_ROW) sink += sqlite3_column_int(version, 0);
            sqlite3_reset(version);
        }
        uint64_t t3 = now_ns();
        state_ns[b] = (double)(t1 - t0) / CALLS;
        select_ns[b] = (double)(t2 - t1) / CALLS;
        version_ns[b] = (double)(t3 - t2) / CALLS;
    }
    if (perm_state(s, GATEKIT_PERM_CAMERA) != GATEKIT_PERM_STATE_DO_NOT_ASK) return die("perm_state value", -1);
    double st = median(state_ns, BATCHES), sel = median(select_ns, BATCHES), ver = median(version_ns, BATCHES);
    printf("perm_state (no provider):          median %8.1f ns/call  (%d batches x %d calls)\n", st, BATCHES, CALLS);
    printf("  raw SQLite prepared SELECT:      median %8.1f ns/call  ratio perm_state/SELECT = %.3f\n", sel, st / sel);
    printf("  raw PRAGMA data_version alone:   median %8.1f ns/call\n", ver);

    /* Durable writes: ASK_LATER keeps microphone promptable, so every call writes. */
    double record_us[WRITES], raw_us[WRITES];
    for (int i = 0; i < WRITES; i++) {
        uint64_t t0 = now_ns();
        rc = perm_record(s, GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_DECISION_ASK_LATER);
        uint64_t t1 = now_ns();
        if (rc) return die("perm_record", rc);
        record_us[i] = (double)(t1 - t0) / 1000.0;
    }
    sqlite3 *ref = NULL;
    remove(refpath);
    if (sqlite3_open_v2(refpath, &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return die("ref open", -1);
    sqlite3_exec(ref, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                      "CREATE TABLE s(category INTEGER PRIMARY KEY, state INTEGER, updated_ms INTEGER);"
                      "CREATE TABLE h(id INTEGER PRIMARY KEY AUTOINCREMENT, category INTEGER, from_state INTEGER, to_state INTEGER, source INTEGER, at_ms INTEGER);",
                 NULL, NULL, NULL);
    sqlite3_stmt *up = NULL, *ins = NULL;
    sqlite3_prepare_v3(ref, "INSERT INTO s VALUES (?1, 100, ?2) ON CONFLICT(category) DO UPDATE SET state = excluded.state, updated_ms = excluded.updated_ms", -1, SQLITE_PREPARE_PERSISTENT, &up, NULL);
    sqlite3_prepare_v3(ref, "INSERT INTO h(category, from_state, to_state, source, at_ms) VALUES (?1, 100, 100, 1, ?2)", -1, SQLITE_PREPARE_PERSISTENT, &ins, NULL);
    for (int i = 0; i < WRITES; i++) {
        uint64_t t0 = now_ns();
        sqlite3_exec(ref, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        sqlite3_bind_int(up, 1, 4000); sqlite3_bind_int64(up, 2, (sqlite3_int64)t0); sqlite3_step(up); sqlite3_reset(up);
        sqlite3_bind_int(ins, 1, 4000); sqlite3_bind_int64(ins, 2, (sqlite3_int64)t0); sqlite3_step(ins); sqlite3_reset(ins);
        sqlite3_exec(ref, "COMMIT", NULL, NULL, NULL);
        uint64_t t1 = now_ns();
        raw_us[i] = (double)(t1 - t0) / 1000.0;
    }
    double rec = median(record_us, WRITES), raw = median(raw_us, WRITES);
    printf("perm_record (durable write):       median %8.1f µs/call  (%d calls)\n", rec, WRITES);
    printf("  raw SQLite upsert+insert txn:    median %8.1f µs/call  ratio perm_record/raw = %.3f\n", raw, rec / raw);

    sqlite3_finalize(up); sqlite3_finalize(ins); sqlite3_close(ref);
    sqlite3_finalize(select); sqlite3_finalize(version); sqlite3_close(db);
    gatekit_store_close(s);
    if (argc <= 1) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) return 1;
    }
    return 0;
}
