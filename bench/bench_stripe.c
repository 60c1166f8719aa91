/* Stripe webhook verification (stripe_verify_webhook) beside one HMAC-SHA256 of the same bytes
 * with OpenSSL's HMAC() (the reference: what a hand-rolled check costs at least), for a typical
 * event (~2 KB) and a large one (~64 KB); medians of interleaved runs. Aim: at most 1.3x. */
#include "bench.h"

#include <gatekit.h>
#include <openssl/hmac.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *body;
    size_t len;
    char header[160];
    long long now;
} delivery;

static const char *secret = "whsec_bench_secret_0123456789abcdef";

static int body_verify(void *p) {
    delivery *d = p;
    const char *secrets[] = {secret};
    return stripe_verify_webhook(NULL, d->header, d->body, d->len, secrets, 1, 0, d->now) != GATEKIT_OK;
}

static int body_hmac(void *p) {
    delivery *d = p;
    unsigned char mac[32], *message = malloc(d->len + 16);
    int n = snprintf((char *)message, 16, "%lld.", d->now);
    memcpy(message + n, d->body, d->len);
    unsigned int mac_len = 0;
    int failed = HMAC(EVP_sha256(), secret, (int)strlen(secret), message, (size_t)n + d->len, mac, &mac_len) == NULL;
    free(message);
    return failed;
}

static char *event_of(size_t size) {
    char *body = malloc(size + 512);
    int o = snprintf(body, 512, "{\"id\":\"evt_bench\",\"object\":\"event\",\"api_version\":\"2026-06-24.dahlia\",\"created\":1700000000,"
                                "\"livemode\":true,\"type\":\"invoice.paid\",\"data\":{\"object\":{\"id\":\"in_1\",\"object\":\"invoice\",\"lines\":\"");
    for (size_t i = 0; i < size; i++) body[o++] = (char)('a' + i % 26);
    strcpy(body + o, "\"}}}");
    return body;
}

int main(void) {
    printf("\n## Stripe webhook verification\n\n| event | stripe_verify_webhook | reference: one HMAC() of the same bytes | ratio |\n|---|---:|---:|---:|\n");
    size_t sizes[2] = {2000, 64000};
    for (int s = 0; s < 2; s++) {
        delivery d = {.body = event_of(sizes[s]), .now = (long long)time(NULL)};
        d.len = strlen(d.body);
        unsigned char *message = malloc(d.len + 16), mac[32];
        int n = snprintf((char *)message, 16, "%lld.", d.now);
        memcpy(message + n, d.body, d.len);
        unsigned int mac_len = 0;
        HMAC(EVP_sha256(), secret, (int)strlen(secret), message, (size_t)n + d.len, mac, &mac_len);
        free(message);
        int o = snprintf(d.header, sizeof d.header, "t=%lld,v1=", d.now);
        for (unsigned i = 0; i < mac_len; i++) o += snprintf(d.header + o, sizeof d.header - (size_t)o, "%02x", mac[i]);
        if (body_verify(&d)) { fprintf(stderr, "stripe_verify_webhook: %s\n", gatekit_last_error()); return 1; }
        double verify = 1e18, reference = 1e18;
        for (int round = 0; round < 5; round++) {  /* interleaved: the best median of each */
            bench_stats v = bench_run(body_verify, &d, 200, 3000), r = bench_run(body_hmac, &d, 200, 3000);
            if (v.median < verify) verify = v.median;
            if (r.median < reference) reference = r.median;
        }
        printf("| %zu bytes | %.2f µs | %.2f µs | %.2f× |\n", d.len, verify / 1e3, reference / 1e3, verify / reference);
        free((char *)d.body);
    }
    return 0;
}
