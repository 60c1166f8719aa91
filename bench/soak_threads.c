/* Thread soak: 16 threads on ONE store handle for a given time, a third of them validating
 * receipts, a third recording permission decisions, a third accepting EULAs (the rest mix
 * all three). Passes when no call fails, nothing crashes, and the counts are exact:
 * every EULA acceptance and every permission change that returned 0 is in the store's
 * history exactly once, and gatekit_store_check() passes afterwards.
 *
 *   soak_threads [SECONDS] [STORE-PATH]     default 300 s (make soak); tests use seconds
 *
 * Receipts come from $GATEKIT_FIXTURES (default ../shared/fixtures); without them the
 * receipt threads say so and accept EULAs instead. */
#include <gatekit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SOAK_DEFAULT_SECONDS
#define SOAK_DEFAULT_SECONDS 300
#endif

enum { THREADS = 16 };

static gatekit_store *store;
static unsigned char *receipt;
static size_t receipt_len;
static atomic_int stop;

typedef struct {
    int index;
    long receipts, eulas, perm_changes, failures;
    char first_failure[512];
} worker;

static void fail(worker *w, const char *what, int rc) {
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "%s: %d %s (%s)", what, rc, gatekit_strerror(rc), gatekit_last_error());
}

static void validate_once(worker *w, const gatekit_receipt_options *o) {
    gatekit_receipt *r = NULL;
    int rc = receipt_validate(&r, receipt, receipt_len, o);
    if (rc != 0) { fail(w, "receipt_validate", rc); return; }
    if (receipt_purchase_count(r) < 0) fail(w, "receipt_purchase_count", -1);
    receipt_free(r);
    w->receipts++;
}

static void accept_once(worker *w) {
    char doc[64], user[16], hash[GATEKIT_HASH_HEX_SIZE], text[64];
    int n = snprintf(text, sizeof text, "t%d/%ld", w->index, w->eulas);
    snprintf(doc, sizeof doc, "doc-%ld", w->eulas);
    snprintf(user, sizeof user, "t%d", w->index);
    int rc = eula_hash_bytes(hash, text, (size_t)n);
    if (rc == 0) rc = eula_accept(store, doc, hash, user);
    if (rc != 0) { fail(w, "eula_accept", rc); return; }
    rc = eula_should_present_hash(store, doc, hash, user);
    if (rc != 0) { fail(w, "eula_should_present_hash after accept", rc); return; }
    w->eulas++;
}

/* ask-later (unknown -> ask again), then reset (-> unknown): two history entries. */
static void perm_once(worker *w) {
    int category = GATEKIT_PERM_HOST_FIRST + w->index;
    int rc = perm_record(store, category, GATEKIT_PERM_DECISION_ASK_LATER);
    if (rc != 0) { fail(w, "perm_record", rc); return; }
    w->perm_changes++;
    rc = perm_state(store, category);
    if (rc != GATEKIT_PERM_STATE_ASK_AGAIN) { fail(w, "perm_state after record", rc); return; }
    rc = perm_reset(store, category);
    if (rc != 0) { fail(w, "perm_reset", rc); return; }
    w->perm_changes++;
}

static void *run(void *arg) {
    worker *w = arg;
    gatekit_receipt_options o;
    if (receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "receipt_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    o.bundle_id = "dev.bonzer.weeka.app";
    int role = w->index % 4;  /* 0 receipts, 1 permissions, 2 EULAs, 3 all three */
    while (!atomic_load(&stop)) {
        if ((role == 0 || role == 3) && receipt) validate_once(w, &o);
        if (role == 1 || role == 3) perm_once(w);
        if (role == 2 || role == 3 || (role == 0 && !receipt)) accept_once(w);
    }
    return NULL;
}

static int count(const char *haystack, const char *needle) {
    int n = 0;
    for (const char *p = haystack ? strstr(haystack, needle) : NULL; p; p = strstr(p + 1, needle)) n++;
    return n;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : SOAK_DEFAULT_SECONDS;
    if (getenv("GATEKIT_SOAK_SECONDS")) seconds = atof(getenv("GATEKIT_SOAK_SECONDS"));
    char path[600];
    if (argc > 2) snprintf(path, sizeof path, "%s", argv[2]);
    else snprintf(path, sizeof path, "/tmp/gatekit-soak-threads-%d.sqlite", (int)getpid());
    char side[700];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);

    const char *fx = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char rpath[1024];
    snprintf(rpath, sizeof rpath, "%s/receipts/apple/tp__receipt-sandbox-g5.der", fx);
    FILE *f = fopen(rpath, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        receipt_len = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        receipt = malloc(receipt_len);
        if (receipt && fread(receipt, 1, receipt_len, f) != receipt_len) { free(receipt); receipt = NULL; }
        fclose(f);
    }
    if (!receipt) printf("SKIP receipt validation: %s not found (set GATEKIT_FIXTURES); those threads accept EULAs\n", rpath);

    int rc = gatekit_store_open(&store, path, NULL);
    if (rc != 0) { fprintf(stderr, "open %s: %s\n", path, gatekit_last_error()); return 1; }
    for (int t = 0; t < THREADS; t++) {
        char name[32];
        snprintf(name, sizeof name, "soak-%d", t);
        rc = perm_register_category(store, GATEKIT_PERM_HOST_FIRST + t, name, "soak test");
        if (rc != 0) { fprintf(stderr, "register: %s\n", gatekit_last_error()); return 1; }
    }

    worker w[THREADS];
    pthread_t threads[THREADS];
    memset(w, 0, sizeof w);
    for (int t = 0; t < THREADS; t++) {
        w[t].index = t;
        pthread_create(&threads[t], NULL, run, &w[t]);
    }
    struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&pause, NULL);
    atomic_store(&stop, 1);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);

    /* Exact counts from the store itself. */
    long receipts = 0, eulas = 0, perms = 0, failures = 0, mismatches = 0;
    for (int t = 0; t < THREADS; t++) {
        receipts += w[t].receipts;
        eulas += w[t].eulas;
        perms += w[t].perm_changes;
        failures += w[t].failures;
        if (w[t].failures) fprintf(stderr, "thread %d: %ld failures, first: %s\n", t, w[t].failures, w[t].first_failure);
        char user[16], *json = NULL;
        snprintf(user, sizeof user, "t%d", t);
        rc = eula_history(&json, store, NULL, user);
        int entries = rc == 0 ? count(json, "\"document_id\"") : -1;
        gatekit_free(json);
        if (entries != w[t].eulas) { fprintf(stderr, "thread %d: %ld acceptances returned, %d in the history\n", t, w[t].eulas, entries); mismatches++; }
        json = NULL;
        rc = perm_history(&json, store, GATEKIT_PERM_HOST_FIRST + t);
        entries = rc == 0 ? count(json, "\"category\"") : -1;
        gatekit_free(json);
        if (entries != w[t].perm_changes) { fprintf(stderr, "thread %d: %ld permission changes returned, %d in the history\n", t, w[t].perm_changes, entries); mismatches++; }
    }
    int check = gatekit_store_check(store);
    gatekit_store_close(store);
    free(receipt);
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);

    printf("thread soak: %d threads, one store, %.0f s: %ld receipt validations, %ld EULA acceptances, "
           "%ld permission changes; %ld failures, %ld count mismatches, store check %d\n",
           THREADS, seconds, receipts, eulas, perms, failures, mismatches, check);
    int ok = failures == 0 && mismatches == 0 && check == 0 && eulas > 0 && perms > 0;
    printf("thread soak: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
