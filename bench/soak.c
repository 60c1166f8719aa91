/* Memory soak: N receipt validations and N JWS verifications in one process (default
 * 1,000,000 each), mixing valid, tampered and malformed inputs, with resident memory sampled
 * every N/10 calls. Passes when every call gives its expected answer and RSS grows by at most
 * 1 MB after the warm-up (the first sample). Prints the curve as Markdown.
 *
 *   soak [N]        fixtures from $GATEKIT_FIXTURES (default ../shared/fixtures)
 *
 * Inputs: tp__receipt-sandbox-g5 (valid at its creation date; bundle dev.bonzer.weeka.app),
 * the same bytes with one payload byte changed (signature failure), and truncated bytes
 * (malformed); Apple's mock transactionInfo JWS under Apple's test root (valid), with one
 * payload character changed (signature failure), and a malformed text. */
#include <gatekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct {
    const char *name;
    long samples[64];
    int count;
    long wrong;
    double seconds;
} curve;

static int report(curve *c, long n, long every) {
    long base = c->samples[0], peak = base;
    for (int i = 1; i < c->count; i++) if (c->samples[i] > peak) peak = c->samples[i];
    long growth = peak - base;
    printf("\n### %s: %ld calls in %.1f s (%.1f µs/call), %ld unexpected answers\n\n", c->name, n, c->seconds,
           c->seconds / (double)n * 1e6, c->wrong);
    printf("| calls | RSS (KB) | vs. warm-up |\n|---:|---:|---:|\n");
    for (int i = 0; i < c->count; i++)
        printf("| %ld | %ld | %+ld |\n", (long)(i + 1) * every, c->samples[i], c->samples[i] - base);
    int ok = growth <= 1024 && c->wrong == 0;
    printf("\ngrowth after warm-up (first sample): %ld KB (limit 1024 KB): %s\n", growth, ok ? "PASS" : "FAIL");
    return ok;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n < 10) n = 10;
    long every = n / 10;
    const char *fx = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char path[1024];
    size_t receipt_len = 0, jws_len = 0, anchor_len = 0;
    snprintf(path, sizeof path, "%s/receipts/apple/tp__receipt-sandbox-g5.der", fx);
    unsigned char *receipt = slurp(path, &receipt_len);
    snprintf(path, sizeof path, "%s/jws/apple-test/mock_signed_data/transactionInfo", fx);
    char *jws = (char *)slurp(path, &jws_len);
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testCA.der", fx);
    unsigned char *anchor = slurp(path, &anchor_len);
    if (!receipt || !jws || !anchor) {
        printf("SKIP soak: fixtures not found under %s (set GATEKIT_FIXTURES)\n", fx);
        return 0;
    }
    while (jws_len > 0 && (jws[jws_len - 1] == '\n' || jws[jws_len - 1] == '\r')) jws[--jws_len] = 0;

    /* Tampered receipt: one byte inside the payload (the in-app product id text). */
    unsigned char *tampered = malloc(receipt_len);
    memcpy(tampered, receipt, receipt_len);
    const char *needle = "dev.bonzer.weeka.app";
    for (size_t i = 0; i + strlen(needle) < receipt_len; i++)
        if (memcmp(tampered + i, needle, strlen(needle)) == 0) { tampered[i + 4] ^= 0x01; break; }
    /* Tampered JWS: one character of the payload part; malformed: not three parts. */
    char *jws_tampered = strdup(jws);
    char *dot = strchr(jws_tampered, '.');
    if (dot && dot[10]) dot[10] = dot[10] == 'A' ? 'B' : 'A';
    const char *jws_malformed = "eyJhbGciOiJFUzI1NiJ9.e30";

    gatekit_receipt_options ro;
    if (receipt_options_init(&ro, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "receipt_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    ro.bundle_id = "dev.bonzer.weeka.app";
    gatekit_jws_options jo;
    if (jws_options_init(&jo, GATEKIT_JWS_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "jws_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    jo.bundle_id = "com.example";
    jo.environment = "Sandbox";
    jo.test_anchor_der = anchor;
    jo.test_anchor_len = anchor_len;

    printf("# Soak: %ld receipt validations and %ld JWS verifications, RSS every %ld\n", n, n, every);
    int ok = 1;

    curve rc = {.name = "receipt_validate (valid / tampered / truncated, in turn)"};
    double t0 = now_s();
    for (long i = 1; i <= n; i++) {
        gatekit_receipt *r = NULL;
        int code;
        switch (i % 3) {
        case 0:
            code = receipt_validate(&r, receipt, receipt_len, &ro);
            if (code != 0) rc.wrong++;
            break;
        case 1:
            code = receipt_validate(&r, tampered, receipt_len, &ro);
            if (code != GATEKIT_ERECEIPT_SIGNATURE && code != GATEKIT_ERECEIPT_PAYLOAD) rc.wrong++;
            break;
        default:
            code = receipt_validate(&r, receipt, receipt_len / 2, &ro);
            if (code != GATEKIT_ERECEIPT_MALFORMED) rc.wrong++;
            break;
        }
        if (r) {
            char *json = NULL;
            if (i % 300 == 0 && receipt_to_json(&json, r) == 0) gatekit_free(json);
            receipt_free(r);
        }
        if (i % every == 0 && rc.count < 64) rc.samples[rc.count++] = rss_kb();
    }
    rc.seconds = now_s() - t0;
    ok &= report(&rc, n, every);
    fflush(stdout);

    curve jc = {.name = "jws_verify_transaction (valid / tampered / malformed, in turn)"};
    t0 = now_s();
    for (long i = 1; i <= n; i++) {
        char *json = NULL;
        int code;
        switch (i % 3) {
        case 0:
            code = jws_verify_transaction(&json, jws, &jo);
            if (code != 0) jc.wrong++;
            break;
        case 1:
            code = jws_verify_transaction(&json, jws_tampered, &jo);
            if (code != GATEKIT_EJWS_SIGNATURE && code != GATEKIT_EJWS_MALFORMED) jc.wrong++;
            break;
        default:
            code = jws_verify_transaction(&json, jws_malformed, &jo);
            if (code != GATEKIT_EJWS_MALFORMED) jc.wrong++;
            break;
        }
        gatekit_free(json);
        if (i % every == 0 && jc.count < 64) jc.samples[jc.count++] = rss_kb();
    }
    jc.seconds = now_s() - t0;
    ok &= report(&jc, n, every);

    free(tampered);
    free(jws_tampered);
    free(receipt);
    free(jws);
    free(anchor);
    printf("\nsoak: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
