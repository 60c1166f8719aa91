/* Signed ledger data for the benchmarks: a throw-away PKI (leaf, intermediate, root) and
 * DID_RENEW notifications and transactions of numbered customers, signed in-process. */
#ifndef GATEKIT_BENCH_LEDGER_DATA_H
#define GATEKIT_BENCH_LEDGER_DATA_H
#include "bench_jws_signing.h"

#include <gatekit.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static EVP_PKEY *key;
static char *header64;
static gatekit_jws_options options;
static unsigned char *anchor;
static size_t anchor_len;

/* The store file `name` in `dir`, opened (the benchmark ends on failure). */
static inline gatekit_store *open_store(const char *dir, const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gatekit_store *s = NULL;
    if (gatekit_store_open(&s, path, NULL) != 0) { fprintf(stderr, "open %s: %s\n", path, gatekit_last_error()); exit(1); }
    return s;
}

static inline double seconds_since(uint64_t t0) { return (double)(bench_now_ns() - t0) / 1e9; }

/* Makes the throw-away PKI in `folder` (Tests/scripts/jws-test-pki.sh) and the verify options. */
static void setup_pki(const char *folder) {
    char cmd[1024], path[700];
    snprintf(cmd, sizeof cmd, "Tests/scripts/jws-test-pki.sh '%s' >/dev/null 2>&1", folder);
    if (system(cmd) != 0) { fprintf(stderr, "bench: cannot make the test PKI (openssl CLI)\n"); exit(1); }
    char header[8192];
    size_t o = (size_t)snprintf(header, sizeof header, "{\"alg\":\"ES256\",\"x5c\":[");
    const char *names[3] = {"leaf", "int", "root"};
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s.der", folder, names[i]);
        unsigned char *der = read_file(path, &len);
        char *b = std_b64(der, len);
        o += (size_t)snprintf(header + o, sizeof header - o, "%s\"%s\"", i ? "," : "", b);
        free(b);
        if (i == 2) { anchor = der; anchor_len = len; } else free(der);
    }
    snprintf(header + o, sizeof header - o, "]}");
    header64 = b64url((const unsigned char *)header, strlen(header));
    snprintf(path, sizeof path, "%s/leaf.key", folder);
    FILE *kf = fopen(path, "r");
    key = kf ? PEM_read_PrivateKey(kf, NULL, NULL, NULL) : NULL;
    if (kf) fclose(kf);
    if (!key) { fprintf(stderr, "bench: cannot read %s\n", path); exit(1); }
    if (jws_options_init(&options, GATEKIT_JWS_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "jws_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    options.bundle_id = "com.example";
    options.environment = "Sandbox";
    options.test_anchor_der = anchor;
    options.test_anchor_len = anchor_len;
    options.verify_time = time(NULL) + 60;
}

/* `payload` signed with the leaf key, x5c [leaf, int, root]: a compact JWS, malloc'd. */
static char *sign_payload(const char *payload) { return es256_jws(key, header64, payload); }

/* A DID_RENEW notification of customer `n`, renewal `k`: its signed transaction and renewal
 * info nested, as Apple sends them. */
static char *signed_transaction(long n, int k, long long base_ms);
static char *signed_notification(long n, int k, long long base_ms) {
    long long signed_ms = base_ms + (long long)k * 2592000000LL;
    char *tx = signed_transaction(n, k, base_ms);
    char renewal[512];
    snprintf(renewal, sizeof renewal,
             "{\"originalTransactionId\":\"%ld\",\"autoRenewProductId\":\"pro.monthly\",\"productId\":\"pro.monthly\","
             "\"autoRenewStatus\":1,\"isInBillingRetryPeriod\":false,\"signedDate\":%lld,\"environment\":\"Sandbox\","
             "\"recentSubscriptionStartDate\":%lld,\"renewalDate\":%lld}",
             1000000000L + n, signed_ms, base_ms, signed_ms + 2592000000LL);
    char *rn = sign_payload(renewal);
    size_t cap = strlen(tx) + strlen(rn) + 1024;
    char *payload = malloc(cap);
    snprintf(payload, cap,
             "{\"notificationType\":\"DID_RENEW\",\"notificationUUID\":\"%08lx-0000-4000-8000-%012d\",\"data\":{"
             "\"environment\":\"Sandbox\",\"appAppleId\":41234,\"bundleId\":\"com.example\",\"bundleVersion\":\"1.0\","
             "\"signedTransactionInfo\":\"%s\",\"signedRenewalInfo\":\"%s\",\"status\":1},\"version\":\"2.0\",\"signedDate\":%lld}",
             (unsigned long)n, k, tx, rn, signed_ms + 1000);
    char *jws = sign_payload(payload);
    free(tx); free(rn); free(payload);
    return jws;
}

/* A signed transaction of customer `n` (its own original transaction id), renewal `k`, bought
 * at `purchase` (signed then), first bought at `original`, expiring at `expires`. */
static char *signed_transaction_at(long n, int k, long long purchase, long long original, long long expires) {
    char payload[1024];
    snprintf(payload, sizeof payload,
             "{\"transactionId\":\"%ld%03d\",\"originalTransactionId\":\"%ld\",\"webOrderLineItemId\":\"%ld%03d0\","
             "\"bundleId\":\"com.example\",\"productId\":\"pro.monthly\",\"subscriptionGroupIdentifier\":\"21000000\","
             "\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"expiresDate\":%lld,\"quantity\":1,"
             "\"type\":\"Auto-Renewable Subscription\",\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,"
             "\"environment\":\"Sandbox\",\"transactionReason\":\"PURCHASE\",\"storefront\":\"USA\",\"storefrontId\":\"143441\","
             "\"price\":9990,\"currency\":\"USD\"}",
             1000000000L + n, k, 1000000000L + n, 1000000000L + n, k, purchase, original, expires, purchase);
    return sign_payload(payload);
}

/* Renewal `k` of customer `n`: the k-th month from `base_ms`, a month long. */
static char *signed_transaction(long n, int k, long long base_ms) {
    long long purchase = base_ms + (long long)k * 2592000000LL;
    return signed_transaction_at(n, k, purchase, base_ms, purchase + 2592000000LL);
}

#endif
