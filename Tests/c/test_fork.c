/* A store handle belongs to the process that opened it: in a child made by fork(2) every call
 * on the inherited handle fails with GATEKIT_EFORKED and closing it touches nothing, while
 * the parent keeps using it; a store the child opens itself works. Children of a parent that
 * used the library ingest batches on helper threads without hanging. Both backends. */
#include "check.h"
#include "jws_signing.h"
#include "stack_dump.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-fork-XXXXXX";
static char path[128];
static gatekit_store *inherited;
static const char hash[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static int child(void) {
    CHECK_RC(eula_should_present_hash(inherited, "terms", hash, NULL), GATEKIT_EFORKED);
    CHECK(strstr(gatekit_last_error(), "forked") != NULL);
    CHECK_RC(eula_accept(inherited, "terms", hash, "child"), GATEKIT_EFORKED);
    CHECK_RC(perm_state(inherited, 5100), GATEKIT_EFORKED);
    gatekit_store_close(inherited);  /* leaves the parent's connection alone */
    gatekit_store *own = NULL;
    CHECK_RC(check_store_open(&own, path), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(own, "terms", hash, NULL), 0);  /* the parent's acceptance */
    CHECK_RC(eula_accept(own, "terms", hash, "child"), GATEKIT_OK);
    gatekit_store_close(own);
    return check_failed;
}

/* Batches in forked children. The parent has used the library, so its thread holds an id in
 * the Swift runtime's cache of thread ids, which the child's main thread inherits; each child's
 * first batch runs the ingestion's lazy initializers for the first time, verifying on helper
 * threads. Were the child's main thread among those threads, it and a helper could both spin
 * forever in one initializer's lock (Support/FreshThread.swift); the alarm turns that into a
 * failure. Each child runs it once, so the parent must not have ingested anything. */
enum { FORKED_CHILDREN = 24, FORKED_ITEMS = 16 };
static char *forked_items[FORKED_ITEMS];
static gatekit_jws_options forked_options;

static int batch_child(void) {
    stack_dump_on_alarm_install();  /* a hang prints where each thread waits */
    alarm(20);
    char name[160];
    snprintf(name, sizeof name, "%s/batch-%d.sqlite", folder, (int)getpid());
    gatekit_store *own = NULL;
    CHECK_RC(check_store_open(&own, name), GATEKIT_OK);
    CHECK_RC(ledger_ingest_batch(NULL, own, GATEKIT_JWS_TRANSACTION, (const char *const *)forked_items, FORKED_ITEMS, &forked_options),
             FORKED_ITEMS);
    gatekit_store_close(own);
    return check_failed;
}

static void test_batches_in_forked_children(void) {
    if (signing_make_pki(folder) != 0) {
        CHECK(!"the openssl CLI could not make the test PKI");
        return;
    }
    size_t anchor_len = 0;
    unsigned char *anchor = pki_der("root", &anchor_len);
    forked_options = opts("com.example", "Sandbox", 0, anchor, anchor_len);
    long long t = (long long)time(NULL) * 1000;
    for (int i = 0; i < FORKED_ITEMS; i++) {
        char payload[640];
        snprintf(payload, sizeof payload,
                 "{\"transactionId\":\"77%d\",\"originalTransactionId\":\"77%d\",\"bundleId\":\"com.example\","
                 "\"productId\":\"pro.monthly\",\"subscriptionGroupIdentifier\":\"21000001\",\"purchaseDate\":%lld,"
                 "\"originalPurchaseDate\":%lld,\"expiresDate\":%lld,\"quantity\":1,\"type\":\"Auto-Renewable Subscription\","
                 "\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,\"environment\":\"Sandbox\"}",
                 i, i, t, t, t + 86400000LL, t);
        forked_items[i] = sign_with("ES256", payload, "leaf", chain3, 3);
    }
    for (int c = 0; c < FORKED_CHILDREN; c++) CHECK_RC(check_in_child(0, batch_child), 0);
}

static void free_forked_items(void) {
    for (int i = 0; i < FORKED_ITEMS; i++) free(forked_items[i]);
    free((void *)forked_options.test_anchor_der);
}

/* Hardening IV, 21a: the parent forks while another of its threads is inside batches (its
 * helper threads verifying). Whatever lock a verifying thread held at that instant must not be
 * inherited held: each child's own batch, verifying on its own helpers, finishes within the
 * alarm. (4 of 13 runs hung before forks waited for verification in flight to finish.) */
static volatile int keep_ingesting;

static void *ingest_in_parent(void *arg) {
    gatekit_store *s = arg;
    while (keep_ingesting) {
        int rc = ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, (const char *const *)forked_items, FORKED_ITEMS, &forked_options);
        if (rc < 0) { fprintf(stderr, "parent batch: %s\n", gatekit_last_error()); break; }
    }
    return NULL;
}

static void test_forks_during_batches(void) {
    char name[160];
    snprintf(name, sizeof name, "%s/parent-batches.sqlite", folder);
    gatekit_store *s = NULL;
    CHECK_RC(check_store_open(&s, name), GATEKIT_OK);
    keep_ingesting = 1;
    pthread_t ingester;
    CHECK(pthread_create(&ingester, NULL, ingest_in_parent, s) == 0);
    for (int c = 0; c < FORKED_CHILDREN; c++) {
        usleep(2000 + 1000 * (unsigned)(c % 5));
        CHECK_RC(check_in_child(0, batch_child), 0);
    }
    keep_ingesting = 0;
    pthread_join(ingester, NULL);
    gatekit_store_close(s);
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(path, sizeof path, "%s/store.sqlite", folder);
    CHECK_RC(check_store_open(&inherited, path), GATEKIT_OK);
    CHECK_RC(eula_accept(inherited, "terms", hash, NULL), GATEKIT_OK);
    CHECK_RC(check_in_child(0, child), 0);
    /* The parent's handle and connection survived the child's attempts and its close. */
    CHECK_RC(eula_should_present_hash(inherited, "terms", hash, "child"), 0);
    CHECK_RC(eula_accept(inherited, "terms", hash, "parent"), GATEKIT_OK);
    gatekit_store_close(inherited);
    test_batches_in_forked_children();
    test_forks_during_batches();
    free_forked_items();
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_fork");
}
