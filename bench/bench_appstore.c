/* App Store signing: GateKit's signature creators and API token beside a plain OpenSSL ES256
 * sign of a message of the same size (the floor: what any implementation must do), with
 * Apple's test key (../shared/fixtures/jws/apple-test/certs/testSigningKey.p8). */
#include "bench.h"
#include "bench_jws_signing.h"

#include <gatekit.h>
#include <openssl/pem.h>

typedef struct {
    gatekit_appstore_key *key;
    EVP_PKEY *pkey;
    char *message;
    char *header64;
} ctx;

static int body_openssl_jws(void *p) {
    ctx *c = p;
    char *jws = es256_jws(c->pkey, c->header64, c->message);
    free(jws);
    return 0;
}

static int body_openssl_der(void *p) {
    ctx *c = p;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[128];
    size_t n = sizeof der;
    int ok = EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, c->pkey) == 1 &&
             EVP_DigestSign(md, der, &n, (const unsigned char *)c->message, strlen(c->message)) == 1;
    EVP_MD_CTX_free(md);
    char *b = std_b64(der, n);
    free(b);
    return !ok;
}

static int body_offer_v1(void *p) {
    ctx *c = p;
    char *out = NULL;
    int rc = appstore_promotional_offer_signature(&out, c->key, "com.example.product", "offer.1", "app-account-token",
                                                  "20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e", 1698148900000LL);
    gatekit_free(out);
    return rc != 0;
}

static int body_offer_v2(void *p) {
    ctx *c = p;
    char *out = NULL;
    int rc = appstore_promotional_offer_v2_signature(&out, c->key, "com.example.product", "offer.1", "2000000123456789");
    gatekit_free(out);
    return rc != 0;
}

static int body_token(void *p) {
    ctx *c = p;
    char *out = NULL;
    int rc = appstore_api_token(&out, c->key, 300);
    gatekit_free(out);
    return rc != 0;
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    const char *fixtures = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char path[1024];
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testSigningKey.p8", fixtures);
    size_t len = 0;
    unsigned char *pem = read_file(path, &len);
    if (!pem) { printf("\n(App Store signing benchmarks skipped: %s not found; set GATEKIT_FIXTURES)\n", path); return 0; }
    ctx c = {0};
    if (appstore_key_load(&c.key, pem, len, "keyId", "issuerId", "com.example") != 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    FILE *f = fopen(path, "r");
    c.pkey = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
    if (f) fclose(f);
    if (!c.pkey) { fprintf(stderr, "bench_appstore: cannot read %s\n", path); return 1; }
    /* The same sizes as GateKit's V2 request: its header and claims. */
    c.header64 = b64url((const unsigned char *)"{\"alg\":\"ES256\",\"kid\":\"keyId\",\"typ\":\"JWT\"}", 41);
    c.message = strdup("{\"productId\":\"com.example.product\",\"offerIdentifier\":\"offer.1\",\"transactionId\":\"2000000123456789\","
                       "\"bid\":\"com.example\",\"iss\":\"issuerId\",\"aud\":\"promotional-offer\",\"iat\":1763870000,"
                       "\"nonce\":\"20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e\"}");
    printf("\n## App Store signing (Apple's test key, P-256)\n");
    bench_header("per signature");
    bench_stats jws = bench_run(body_openssl_jws, &c, 300, 5000);
    bench_stats der = bench_run(body_openssl_der, &c, 300, 5000);
    bench_stats v1 = bench_run(body_offer_v1, &c, 300, 5000);
    bench_stats v2 = bench_run(body_offer_v2, &c, 300, 5000);
    bench_stats token = bench_run(body_token, &c, 300, 20000);
    bench_row("reference: OpenSSL ES256 compact JWS of the same header and claims (EVP_DigestSign, raw r||s, base64url)", jws);
    bench_row("reference: OpenSSL ECDSA DER signature + base64 of a V1-sized message", der);
    bench_row("**appstore_promotional_offer_v2_signature**", v2);
    bench_row("**appstore_promotional_offer_signature** (V1)", v1);
    bench_row("appstore_api_token, reused (a cached token is returned)", token);
    printf("\nRatios: V2 %.2f× the OpenSSL JWS (aim ≤ 1.3); V1 %.2f× the OpenSSL DER signature.\n",
           v2.median / jws.median, v1.median / der.median);
    appstore_key_free(c.key);
    EVP_PKEY_free(c.pkey);
    free(pem); free(c.header64); free(c.message);
    return 0;
}
