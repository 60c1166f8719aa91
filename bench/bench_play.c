/* Google Play from C. Push verification with cached keys beside one OpenSSL RS256
 * verification of the same token (the floor: the signature check is what a push must cost);
 * and, against the stand-in `make bench` starts (scripts/with-play-standin.sh), the client's
 * purchases.subscriptionsv2.get beside a bare keep-alive libcurl GET of the same URL with the
 * same kind of bearer token, rounds interleaved in one run. */
#include <gatekit.h>
#include <curl/curl.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <string.h>

#include "bench.h"

static const char *notification =
    "{\"version\":\"1.0\",\"packageName\":\"com.example.app\",\"eventTimeMillis\":\"1767225600000\","
    "\"subscriptionNotification\":{\"version\":\"1.0\",\"notificationType\":2,\"purchaseToken\":\"token-1\"}}";

static unsigned char *b64url_decode(const char *s, size_t n, size_t *out_len) {
    unsigned char *out = malloc(n * 3 / 4 + 3);
    unsigned acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int v = s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' : s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 26
              : s[i] >= '0' && s[i] <= '9' ? s[i] - '0' + 52 : s[i] == '-' ? 62 : s[i] == '_' ? 63 : -1;
        if (v < 0) break;
        acc = acc << 6 | (unsigned)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (unsigned char)(acc >> bits); }
    }
    *out_len = o;
    return out;
}

static char *b64(const char *text) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(text), o = 0;
    char *out = malloc((n + 2) / 3 * 4 + 1);
    const unsigned char *b = (const unsigned char *)text;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        out[o++] = a[v >> 18 & 63]; out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '='; out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = 0;
    return out;
}

/* The JWK member "name":"..." of the key set, base64url-decoded. */
static unsigned char *jwk_member(const char *keys, const char *name, size_t *len) {
    char pattern[16];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", name);
    const char *start = strstr(keys, pattern);
    if (!start) return NULL;
    start += strlen(pattern);
    return b64url_decode(start, (size_t)(strchr(start, '"') - start), len);
}

enum { FRESH_TOKENS = 600 };  /* more than the verifier keeps (256): each is seen as new */

typedef struct {
    gatekit_play_push_verifier *verifier;
    const char *bearer;
    char *fresh[FRESH_TOKENS];
    int next;
    char *body;
    EVP_PKEY *key;
    unsigned char *signature;
    size_t signature_len;
    const char *input;
    size_t input_len;
} push_ctx;

static int body_verify_push(void *p) {
    push_ctx *c = p;
    char *out = NULL;
    int rc = play_verify_push(&out, c->verifier, c->bearer, c->body, strlen(c->body));
    gatekit_free(out);
    return rc != 0;
}

static int body_verify_fresh_push(void *p) {
    push_ctx *c = p;
    char *out = NULL;
    int rc = play_verify_push(&out, c->verifier, c->fresh[c->next++ % FRESH_TOKENS], c->body, strlen(c->body));
    gatekit_free(out);
    return rc != 0;
}

static int body_openssl_rs256(void *p) {
    push_ctx *c = p;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, c->key) == 1 &&
             EVP_DigestVerify(ctx, c->signature, c->signature_len, (const unsigned char *)c->input, c->input_len) == 1;
    EVP_MD_CTX_free(ctx);
    return !ok;
}

static void bench_push(void) {
    gatekit_play_test_issuer *issuer = NULL;
    char *keys = NULL, *bearer = NULL;
    if (play_test_issuer_new(&issuer, NULL) != 0 || play_test_issuer_keys(&keys, issuer) != 0 ||
        play_test_issuer_sign_push(&bearer, issuer, "https://rtdn.example.com/play", "push@example.iam.gserviceaccount.com", 3600) != 0) {
        fprintf(stderr, "bench_play: %s\n", gatekit_last_error());
        exit(1);
    }
    gatekit_play_push_options o = GATEKIT_PLAY_PUSH_OPTIONS_INIT;
    o.package_name = "com.example.app";
    o.audience = "https://rtdn.example.com/play";
    o.service_account_email = "push@example.iam.gserviceaccount.com";
    o.issuer = "https://oidc.test.gatekit.invalid";
    o.keys_json = keys;
    o.duplicate_window = 0;  /* every run is the same push: measured as new each time */
    push_ctx c = {.bearer = bearer};
    for (int i = 0; i < FRESH_TOKENS; i++)  /* iat differs by the second only: a lifetime each makes each token its own */
        if (play_test_issuer_sign_push(&c.fresh[i], issuer, "https://rtdn.example.com/play", "push@example.iam.gserviceaccount.com", 3600 - i) != 0) exit(1);
    if (play_push_verifier_new(&c.verifier, &o) != 0) { fprintf(stderr, "bench_play: %s\n", gatekit_last_error()); exit(1); }
    char *data = b64(notification);
    size_t size = strlen(data) + 200;
    c.body = malloc(size);
    snprintf(c.body, size, "{\"message\":{\"data\":\"%s\",\"messageId\":\"1\"},\"subscription\":\"projects/p/subscriptions/s\"}", data);
    free(data);

    /* The reference: the same token's RS256 signature checked with the same key, by OpenSSL. */
    size_t n_len = 0, e_len = 0;
    unsigned char *n = jwk_member(keys, "n", &n_len), *e = jwk_member(keys, "e", &e_len);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bn = BN_bin2bn(n, (int)n_len, NULL), *be = BN_bin2bn(e, (int)e_len, NULL);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn);
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *pctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    EVP_PKEY_fromdata_init(pctx);
    EVP_PKEY_fromdata(pctx, &c.key, EVP_PKEY_PUBLIC_KEY, params);
    const char *token = bearer + 7, *dot = strrchr(token, '.');
    c.input = token;
    c.input_len = (size_t)(dot - token);
    c.signature = b64url_decode(dot + 1, strlen(dot + 1), &c.signature_len);

    printf("\n## Google Play: RTDN push verification (RSA-2048, keys cached)\n");
    bench_header("per push");
    bench_stats reference = bench_run(body_openssl_rs256, &c, 200, 5000);
    bench_stats fresh = bench_run(body_verify_fresh_push, &c, 200, 5000);
    bench_stats ours = bench_run(body_verify_push, &c, 200, 5000);
    bench_stats reference2 = bench_run(body_openssl_rs256, &c, 200, 5000);
    if (reference2.median < reference.median) reference = reference2;
    bench_row("reference: OpenSSL RS256 verification of one token (EVP_DigestVerify, key already loaded)", reference);
    bench_row("**play_verify_push**, a token never seen before: signature, claims, envelope, notification, answer JSON", fresh);
    bench_row("**play_verify_push**, the token of an earlier push (Pub/Sub reuses one for up to an hour): clock, envelope, notification", ours);
    printf("\nRatios: a new token %.2f× one OpenSSL RS256 verification (aim ≤ 1.3); a reused token %.2f×.\n",
           fresh.median / reference.median, ours.median / reference.median);

    EVP_PKEY_CTX_free(pctx); OSSL_PARAM_free(params); OSSL_PARAM_BLD_free(bld); BN_free(bn); BN_free(be);
    EVP_PKEY_free(c.key); free(n); free(e); free(c.signature); free(c.body);
    for (int i = 0; i < FRESH_TOKENS; i++) gatekit_free(c.fresh[i]);
    play_push_verifier_free(c.verifier);
    play_test_issuer_free(issuer);
    gatekit_free(keys);
    gatekit_free(bearer);
}

typedef struct {
    gatekit_play_client *client;
    CURL *curl;
    struct curl_slist *headers;
    char url[512];
    size_t received;
} api_ctx;

static size_t sink(char *data, size_t size, size_t count, void *p) {
    (void)data;
    ((api_ctx *)p)->received += size * count;
    return size * count;
}

static int body_client(void *p) {
    api_ctx *c = p;
    char *out = NULL;
    int rc = play_subscription_get(&out, c->client, "token-1");
    gatekit_free(out);
    return rc != 0;
}

static int body_bare_get(void *p) {
    api_ctx *c = p;
    long status = 0;
    int rc = curl_easy_perform(c->curl);
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    return rc != CURLE_OK || status != 200;
}

static size_t keep(char *data, size_t size, size_t count, void *p) {
    strncat((char *)p, data, size * count < 1000 ? size * count : 1000);
    return size * count;
}

static void bench_api(void) {
    const char *url = getenv("GATEKIT_TEST_PLAY_URL"), *ca = getenv("GATEKIT_TEST_PLAY_CA");
    if (!url) { printf("\n(Play Developer API calls skipped: no stand-in; make bench starts one with scripts/with-play-standin.sh)\n"); return; }
    /* The world: one subscription, as the API answers it. */
    char control[600], token[1024] = {0};
    snprintf(control, sizeof control, "Authorization: Bearer %s", getenv("GATEKIT_TEST_PLAY_CONTROL"));
    const char *world = "{\"subscriptions\":{\"token-1\":{\"kind\":\"androidpublisher#subscriptionPurchaseV2\",\"regionCode\":\"US\","
                        "\"lineItems\":[{\"productId\":\"pro.monthly\",\"expiryTime\":\"2026-02-01T00:00:00.000Z\",\"autoRenewingPlan\":"
                        "{\"autoRenewEnabled\":true,\"recurringPrice\":{\"currencyCode\":\"USD\",\"units\":\"9\",\"nanos\":990000000}},"
                        "\"offerDetails\":{\"basePlanId\":\"monthly\",\"offerTags\":[]},\"offerPhase\":{\"basePrice\":{}},"
                        "\"latestSuccessfulOrderId\":\"GPA.1\"}],\"startTime\":\"2026-01-01T00:00:00.000Z\",\"subscriptionState\":"
                        "\"SUBSCRIPTION_STATE_ACTIVE\",\"latestOrderId\":\"GPA.1\",\"acknowledgementState\":\"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED\"}}}";
    CURL *setup = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, control);
    h = curl_slist_append(h, "Content-Type: application/json");
    char target[600];
    snprintf(target, sizeof target, "%s/standin/play/world", url);
    curl_easy_setopt(setup, CURLOPT_URL, target);
    curl_easy_setopt(setup, CURLOPT_CAINFO, ca);
    curl_easy_setopt(setup, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(setup, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(setup, CURLOPT_POSTFIELDS, world);
    curl_easy_perform(setup);
    snprintf(target, sizeof target, "%s/standin/play/access-token", url);
    curl_easy_setopt(setup, CURLOPT_URL, target);
    curl_easy_setopt(setup, CURLOPT_CUSTOMREQUEST, "POST");
    curl_easy_setopt(setup, CURLOPT_POSTFIELDS, "{}");
    curl_easy_setopt(setup, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(setup, CURLOPT_WRITEDATA, token);
    curl_easy_perform(setup);
    curl_easy_cleanup(setup);
    curl_slist_free_all(h);
    char *access = strstr(token, "\"access_token\": \"");
    if (!access) { fprintf(stderr, "bench_play: no access token from the stand-in (%s)\n", token); exit(1); }
    access += strlen("\"access_token\": \"");
    *strchr(access, '"') = 0;

    api_ctx c = {0};
    gatekit_play_client_options o = GATEKIT_PLAY_CLIENT_OPTIONS_INIT;
    o.package_name = getenv("GATEKIT_TEST_PLAY_PACKAGE");
    o.service_account_file = getenv("GATEKIT_TEST_PLAY_SERVICE_ACCOUNT");
    o.base_url = url;
    o.ca_file = ca;
    if (play_client_new(&c.client, &o) != 0) { fprintf(stderr, "bench_play: %s\n", gatekit_last_error()); exit(1); }
    snprintf(c.url, sizeof c.url, "%s/androidpublisher/v3/applications/%s/purchases/subscriptionsv2/tokens/token-1", url, o.package_name);
    char bearer[1200];
    snprintf(bearer, sizeof bearer, "Authorization: Bearer %s", access);
    c.headers = curl_slist_append(curl_slist_append(NULL, bearer), "Accept: application/json");
    c.curl = curl_easy_init();
    curl_easy_setopt(c.curl, CURLOPT_URL, c.url);
    curl_easy_setopt(c.curl, CURLOPT_CAINFO, ca);
    curl_easy_setopt(c.curl, CURLOPT_HTTPHEADER, c.headers);
    curl_easy_setopt(c.curl, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c.curl, CURLOPT_WRITEDATA, &c);
    curl_easy_setopt(c.curl, CURLOPT_NOSIGNAL, 1L);

    printf("\n## Google Play: the Play Developer API client against the stand-in (loopback HTTPS, keep-alive)\n");
    bench_header("per call (purchases.subscriptionsv2.get)");
    bench_stats bare = bench_run(body_bare_get, &c, 50, 400), ours = bench_run(body_client, &c, 50, 400);
    for (int round = 0; round < 2; round++) {  /* interleaved: the stand-in's own speed drifts */
        bench_stats b = bench_run(body_bare_get, &c, 10, 400), g = bench_run(body_client, &c, 10, 400);
        if (b.median < bare.median) bare = b;
        if (g.median < ours.median) ours = g;
    }
    bench_row("reference: a bare keep-alive libcurl GET of the same URL with a bearer token", bare);
    bench_row("**play_subscription_get** (token cached, the answer checked as a JSON object)", ours);
    printf("\nRatio: play_subscription_get %.2f× the bare GET (aim ≤ 1.1); %.0f calls/s vs %.0f.\n",
           ours.median / bare.median, 1e9 / ours.median, 1e9 / bare.median);
    curl_easy_cleanup(c.curl);
    curl_slist_free_all(c.headers);
    play_client_free(c.client);
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    bench_push();
    bench_api();
    return 0;
}
