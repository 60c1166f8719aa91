/* Throughput with 1 and 2 threads (the machine's cores): warm receipt validations and warm
 * JWS verifications per second, each thread calling in a loop for a fixed time. Shows whether
 * the caches and locks let verdicts scale with cores. */
#include "bench.h"
#include "bench_jws_signing.h"

#include <gatekit.h>
#include <pthread.h>
#include <string.h>

typedef struct {
    int jws;                /* 0: receipt, 1: JWS */
    unsigned char *data;
    size_t len;
    const unsigned char *anchor;
    size_t anchor_len;
    double seconds;
    long count;
    int failed;
} worker;

static int once(worker *w) {
    if (!w->jws) {
        gatekit_receipt_options o = GATEKIT_RECEIPT_OPTIONS_INIT;
        o.bundle_id = "dev.bonzer.weeka.app";
        gatekit_receipt *r = NULL;
        int rc = receipt_validate(&r, w->data, w->len, &o);
        receipt_free(r);
        return rc;
    }
    gatekit_jws_options o = GATEKIT_JWS_OPTIONS_INIT;
    o.bundle_id = "com.example";
    o.environment = "Sandbox";
    o.test_anchor_der = w->anchor;
    o.test_anchor_len = w->anchor_len;
    gatekit_jws *v = NULL;
    int rc = jws_verify(&v, GATEKIT_JWS_TRANSACTION, (const char *)w->data, &o);
    jws_free(v);
    return rc;
}

static void *run(void *arg) {
    worker *w = arg;
    uint64_t end = bench_now_ns() + (uint64_t)(w->seconds * 1e9);
    while (bench_now_ns() < end) {
        if (once(w) != 0) { w->failed = 1; break; }
        w->count++;
    }
    return NULL;
}

static double rate(worker proto, int threads) {
    pthread_t t[8];
    worker w[8];
    for (int i = 0; i < threads; i++) {
        w[i] = proto;
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        if (w[i].failed) { fprintf(stderr, "bench_throughput: a verification failed: %s\n", gatekit_last_error()); exit(1); }
        total += w[i].count;
    }
    return total / proto.seconds;
}

int main(void) {
    const char *fx = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char path[1024];
    worker receipt = {.seconds = 3}, jws = {.jws = 1, .seconds = 3};
    snprintf(path, sizeof path, "%s/receipts/apple/tp__receipt-sandbox-g5.der", fx);
    receipt.data = read_file(path, &receipt.len);
    snprintf(path, sizeof path, "%s/jws/apple-test/mock_signed_data/transactionInfo", fx);
    jws.data = read_file(path, &jws.len);
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testCA.der", fx);
    jws.anchor = read_file(path, &jws.anchor_len);
    if (!receipt.data || !jws.data || !jws.anchor) { printf("\n(throughput skipped: fixtures not found under %s)\n", fx); return 0; }
    while (jws.len > 0 && (jws.data[jws.len - 1] == '\n' || jws.data[jws.len - 1] == ' ')) jws.data[--jws.len] = 0;
    once(&receipt);  /* warm the caches */
    once(&jws);
    printf("\n## Throughput, warm, 1 and 2 threads (this machine has 2 cores), 3 s each\n\n");
    printf("| verdicts per second | 1 thread | 2 threads | scaling |\n|---|---:|---:|---:|\n");
    double r1 = rate(receipt, 1), r2 = rate(receipt, 2);
    printf("| receipt_validate (tp__receipt-sandbox-g5) | %.0f | %.0f | %.2f× |\n", r1, r2, r2 / r1);
    double j1 = rate(jws, 1), j2 = rate(jws, 2);
    printf("| jws_verify (Apple's mock transactionInfo) | %.0f | %.0f | %.2f× |\n", j1, j2, j2 / j1);
    free(receipt.data); free(jws.data); free((void *)jws.anchor);
    return 0;
}
