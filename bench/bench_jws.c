/* StoreKit 2 signed data: jws_verify_transaction vs. a C reference on OpenSSL, same run.
 *
 * Reference (written here, plain C + OpenSSL, what a careful C host would write): split the
 * compact JWS, base64url-decode, find alg / x5c / signedDate, decode the certificates,
 * X509_verify_cert against a prebuilt X509_STORE holding only the anchor at signedDate,
 * check the leaf and intermediate OIDs, then one ES256 verification (raw r||s -> DER).
 * "uncached" verifies the chain on every call; "cached" remembers the last verified x5c and
 * its key, leaving one ES256 verification. GateKit "cold" verifies a new signer on every
 * call (round-robin over more signers than its chain cache holds); "warm" repeats one signer.
 *
 * Data: chains made at run time by Tests/scripts/jws-test-pki.sh — P-256 throughout (the
 * shape of Apple's test chain), and P-384 root + intermediate with a P-256 signer (the shape
 * of Apple's production chain G3 -> WWDR G6 -> signer; Apple's real key cannot sign here) —
 * plus Apple's own mock transactionInfo with its test root (when the fixtures are present). */
#include "bench.h"
#include "bench_jws_signing.h"

#include <gatekit.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <string.h>
#include <unistd.h>

#define SIGNERS 80   /* > the library's chain cache (64): a round-robin always misses */

/* ---- base64 ------------------------------------------------------------------------------- */

static signed char b64table[256];

static void b64init(void) {
    memset(b64table, -1, sizeof b64table);
    for (int i = 0; i < 64; i++) b64table[(unsigned char)b64chars[i]] = (signed char)i;
    b64table['+'] = 62;
    b64table['/'] = 63;
}

/* Decodes base64 or base64url of n characters (padding skipped) into out; returns the length. */
static size_t unb64(const char *in, size_t n, unsigned char *out) {
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64table[(unsigned char)in[i]];
        if (v < 0) continue;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (unsigned char)(acc >> bits); }
    }
    return o;
}

/* ---- the reference verifier ------------------------------------------------------------------ */

typedef struct {
    X509_STORE *store;
    ASN1_OBJECT *leaf_oid, *int_oid;
    /* cache: the x5c text of the last verified chain, and its leaf key */
    char *cached_x5c;
    size_t cached_len;
    EVP_PKEY *cached_key;
} reference;

static EVP_PKEY *ref_chain(reference *r, const char *x5c, size_t x5c_len, time_t at) {
    /* x5c is the text inside [...]: three quoted base64 strings. */
    const char *p = x5c, *end = x5c + x5c_len;
    X509 *certs[3] = {0};
    int n = 0;
    unsigned char der[8192];
    while (p < end && n < 4) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (!q) break;
        const char *e = memchr(q + 1, '"', (size_t)(end - q - 1));
        if (!e || (size_t)(e - q) > sizeof der) break;
        if (n == 3) { n++; break; }
        size_t len = unb64(q + 1, (size_t)(e - q - 1), der);
        const unsigned char *d = der;
        certs[n++] = d2i_X509(NULL, &d, (long)len);
        p = e + 1;
    }
    EVP_PKEY *key = NULL;
    if (n == 3 && certs[0] && certs[1]) {
        STACK_OF(X509) *untrusted = sk_X509_new_null();
        sk_X509_push(untrusted, certs[1]);
        X509_STORE_CTX *ctx = X509_STORE_CTX_new();
        X509_STORE_CTX_init(ctx, r->store, certs[0], untrusted);
        X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
        X509_VERIFY_PARAM_set_time(param, at);
        X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_ANY);
        if (X509_verify_cert(ctx) == 1 && sk_X509_num(X509_STORE_CTX_get0_chain(ctx)) == 3 &&
            X509_get_ext_by_OBJ(certs[0], r->leaf_oid, -1) >= 0 && X509_get_ext_by_OBJ(certs[1], r->int_oid, -1) >= 0)
            key = X509_get_pubkey(certs[0]);
        X509_STORE_CTX_free(ctx);
        sk_X509_free(untrusted);
    }
    for (int i = 0; i < 3; i++) X509_free(certs[i]);
    ERR_clear_error();
    return key;
}

static int es256_verify(EVP_PKEY *key, const unsigned char *raw, const char *msg, size_t msg_len) {
    ECDSA_SIG *sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, NULL), BN_bin2bn(raw + 32, 32, NULL));
    unsigned char der[80], *d = der;
    int der_len = i2d_ECDSA_SIG(sig, &d);
    ECDSA_SIG_free(sig);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestVerify(md, der, (size_t)der_len, (const unsigned char *)msg, msg_len) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

/* 0 when the JWS verifies. */
static int ref_verify(reference *r, const char *jws, int use_cache) {
    const char *d1 = strchr(jws, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d2) return 1;
    size_t hl = (size_t)(d1 - jws), pl = (size_t)(d2 - d1 - 1), sl = strlen(d2 + 1);
    char *header = malloc(hl + 1), *payload = malloc(pl + 1);
    unsigned char sig[96];
    size_t hn = unb64(jws, hl, (unsigned char *)header), pn = unb64(d1 + 1, pl, (unsigned char *)payload);
    header[hn] = 0;
    payload[pn] = 0;
    size_t sn = sl <= 128 ? unb64(d2 + 1, sl, sig) : 0;
    int rc = 1;
    const char *x5c = strstr(header, "\"x5c\":[");
    const char *x5c_end = x5c ? strchr(x5c, ']') : NULL;
    const char *signed_date = strstr(payload, "\"signedDate\":");
    if (sn == 64 && strstr(header, "\"alg\":\"ES256\"") && x5c && x5c_end && signed_date) {
        x5c += 7;
        size_t x5c_len = (size_t)(x5c_end - x5c);
        time_t at = (time_t)(strtoll(signed_date + 13, NULL, 10) / 1000);
        EVP_PKEY *key = NULL;
        if (use_cache && r->cached_key && r->cached_len == x5c_len && memcmp(r->cached_x5c, x5c, x5c_len) == 0) {
            key = r->cached_key;
        } else {
            key = ref_chain(r, x5c, x5c_len, at);
            if (key && use_cache) {
                EVP_PKEY_free(r->cached_key);
                free(r->cached_x5c);
                r->cached_key = key;
                r->cached_x5c = malloc(x5c_len);
                memcpy(r->cached_x5c, x5c, x5c_len);
                r->cached_len = x5c_len;
            }
        }
        if (key && es256_verify(key, sig, jws, (size_t)(d2 - jws))) rc = 0;
        if (key && key != r->cached_key) EVP_PKEY_free(key);
    }
    free(header);
    free(payload);
    return rc;
}

/* ---- data ---------------------------------------------------------------------------------- */

static char folder[] = "/tmp/gatekit-bench-jws-XXXXXX";

static unsigned char *pki_der(const char *name, size_t *len) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s.der", folder, name);
    unsigned char *b = read_file(path, len);
    if (!b) { fprintf(stderr, "bench_jws: missing %s\n", path); exit(1); }
    return b;
}

/* A signed transaction from `signer` with x5c [signer, intermediate, root]. */
static char *make_jws(const char *signer, const char *intermediate, const char *root, long long signed_ms) {
    const char *names[3] = {signer, intermediate, root};
    char header[8192];
    size_t o = (size_t)snprintf(header, sizeof header, "{\"alg\":\"ES256\",\"x5c\":[");
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        unsigned char *der = pki_der(names[i], &len);
        char *b = std_b64(der, len);
        o += (size_t)snprintf(header + o, sizeof header - o, "%s\"%s\"", i ? "," : "", b);
        free(b);
        free(der);
    }
    snprintf(header + o, sizeof header - o, "]}");
    char payload[1024];
    snprintf(payload, sizeof payload,
             "{\"transactionId\":\"2000000123\",\"originalTransactionId\":\"2000000100\",\"webOrderLineItemId\":\"2000000050\","
             "\"bundleId\":\"com.example\",\"productId\":\"pro.monthly\",\"subscriptionGroupIdentifier\":\"21000000\","
             "\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"expiresDate\":%lld,\"quantity\":1,"
             "\"type\":\"Auto-Renewable Subscription\",\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,"
             "\"environment\":\"Sandbox\",\"transactionReason\":\"PURCHASE\",\"storefront\":\"USA\",\"storefrontId\":\"143441\","
             "\"price\":9990,\"currency\":\"USD\"}",
             signed_ms - 1000, signed_ms - 1000, signed_ms + 2592000000LL, signed_ms);
    char key_path[700];
    snprintf(key_path, sizeof key_path, "%s/%s.key", folder, signer);
    FILE *kf = fopen(key_path, "r");
    EVP_PKEY *key = kf ? PEM_read_PrivateKey(kf, NULL, NULL, NULL) : NULL;
    if (kf) fclose(kf);
    if (!key) { fprintf(stderr, "bench_jws: cannot read %s\n", key_path); exit(1); }
    char *h = b64url((const unsigned char *)header, strlen(header));
    char *jws = es256_jws(key, h, payload);
    EVP_PKEY_free(key);
    free(h);
    return jws;
}

/* ---- measured bodies ------------------------------------------------------------------------ */

typedef struct {
    reference *ref;
    char **jws;        /* round-robin over n */
    int n, next;
    gatekit_jws_options *options;
    EVP_PKEY *key;     /* ES256-only floor */
} ctx;

static const char *next_jws(ctx *c) {
    const char *j = c->jws[c->next];
    c->next = (c->next + 1) % c->n;
    return j;
}

static int body_ref_uncached(void *p) { ctx *c = p; return ref_verify(c->ref, next_jws(c), 0); }
static int body_ref_cached(void *p) { ctx *c = p; return ref_verify(c->ref, next_jws(c), 1); }

static int body_gatekit(void *p) {
    ctx *c = p;
    char *out = NULL;
    int rc = jws_verify_transaction(&out, next_jws(c), c->options);
    if (rc != 0) fprintf(stderr, "bench_jws: %s\n", gatekit_last_error());
    gatekit_free(out);
    return rc;
}

static int body_entitled(void *p) {
    ctx *c = p;
    /* Either answer is a verdict (Apple's mock transaction has expired); only an error fails. */
    int rc = jws_transaction_is_entitled(next_jws(c), c->options, NULL, 0);
    if (rc < 0) fprintf(stderr, "bench_jws: %s\n", gatekit_last_error());
    return rc < 0 ? 1 : 0;
}

static int body_es256(void *p) {
    ctx *c = p;
    const char *j = c->jws[0];
    const char *d2 = strrchr(j, '.');
    unsigned char sig[96];
    size_t n = unb64(d2 + 1, strlen(d2 + 1), sig);
    return n == 64 && es256_verify(c->key, sig, j, (size_t)(d2 - j)) ? 0 : 1;
}

static X509_STORE *store_with(const unsigned char *der, size_t len) {
    const unsigned char *d = der;
    X509 *x = d2i_X509(NULL, &d, (long)len);
    X509_STORE *s = X509_STORE_new();
    X509_STORE_add_cert(s, x);
    X509_free(x);
    return s;
}

static EVP_PKEY *leaf_key(const char *jws) {
    const char *d1 = strchr(jws, '.');
    char header[8192];
    size_t hn = unb64(jws, (size_t)(d1 - jws), (unsigned char *)header);
    header[hn] = 0;
    const char *q = strstr(header, "\"x5c\":[\"") + 8;
    const char *e = strchr(q, '"');
    unsigned char der[4096];
    size_t len = unb64(q, (size_t)(e - q), der);
    const unsigned char *d = der;
    X509 *x = d2i_X509(NULL, &d, (long)len);
    EVP_PKEY *k = X509_get_pubkey(x);
    X509_free(x);
    return k;
}

static void ratio(const char *what, bench_stats a, bench_stats b) {
    printf("| %s | **%.2f×** | | | |\n", what, a.median / b.median);
}

static void dataset(const char *title, char **jws, int n, const unsigned char *anchor, size_t anchor_len, int cold) {
    reference ref = {store_with(anchor, anchor_len), OBJ_txt2obj("1.2.840.113635.100.6.11.1", 1),
                     OBJ_txt2obj("1.2.840.113635.100.6.2.1", 1), NULL, 0, NULL};
    gatekit_jws_options o;
    if (jws_options_init(&o, GATEKIT_JWS_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "jws_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    o.bundle_id = "com.example";
    o.environment = "Sandbox";
    o.test_anchor_der = anchor;
    o.test_anchor_len = anchor_len;
    ctx one = {&ref, jws, 1, 0, &o, leaf_key(jws[0])};
    ctx all = {&ref, jws, n, 0, &o, NULL};

    bench_header(title);
    bench_stats es = bench_run(body_es256, &one, 200, 3000);
    bench_row("ES256 verification alone (OpenSSL EVP_DigestVerify: the floor)", es);
    bench_stats ref_un = bench_run(body_ref_uncached, cold ? &all : &one, 20, cold ? 600 : 1000);
    bench_row("reference C/OpenSSL: chain verified every call + ES256", ref_un);
    if (cold) {
        bench_stats gk_cold = bench_run(body_gatekit, &all, 20, 600);
        bench_row("GateKit cold: jws_verify_transaction, a new signer every call", gk_cold);
        ratio("ratio GateKit cold / reference uncached (target ≤ 1.2)", gk_cold, ref_un);
    }
    bench_stats ref_c = bench_run(body_ref_cached, &one, 200, 3000);
    bench_row("reference C/OpenSSL: verified-chain cache + ES256", ref_c);
    bench_stats gk_warm = bench_run(body_gatekit, &one, 200, 3000);
    bench_row("GateKit warm: jws_verify_transaction (JSON out), repeated signer", gk_warm);
    bench_stats gk_ent = bench_run(body_entitled, &one, 200, 3000);
    bench_row("GateKit warm: jws_transaction_is_entitled, repeated signer", gk_ent);
    ratio("ratio GateKit warm / reference cached (target ≤ 1.3)", gk_warm, ref_c);
    ratio("ratio GateKit warm / ES256 alone", gk_warm, es);
    EVP_PKEY_free(one.key);
    EVP_PKEY_free(ref.cached_key);
    free(ref.cached_x5c);
    X509_STORE_free(ref.store);
    ASN1_OBJECT_free(ref.leaf_oid);
    ASN1_OBJECT_free(ref.int_oid);
}

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    b64init();
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "LEAVES=%d Tests/scripts/jws-test-pki.sh '%s' >/dev/null 2>&1", SIGNERS, folder);
    if (system(cmd) != 0) { fprintf(stderr, "bench_jws: cannot make the test PKI (openssl CLI)\n"); return 1; }

    long long now_ms = (long long)time(NULL) * 1000;
    char *p256[SIGNERS], *p384[SIGNERS];
    for (int i = 0; i < SIGNERS; i++) {
        char name[32], name384[32];
        snprintf(name, sizeof name, "leaf_%d", i + 1);
        snprintf(name384, sizeof name384, "leaf384_%d", i + 1);
        p256[i] = make_jws(name, "int", "root", now_ms);
        p384[i] = make_jws(name384, "int384", "root384", now_ms);
    }
    size_t root_len, root384_len;
    unsigned char *root = pki_der("root", &root_len), *root384 = pki_der("root384", &root384_len);
    printf("\n## StoreKit 2 signed data (JWS), per signed transaction\n");
    dataset("JWS: P-256 chain (the shape of Apple's test chain), generated", p256, SIGNERS, root, root_len, 1);
    dataset("JWS: P-384 root + intermediate, P-256 signer (the shape of Apple's production chain), generated",
            p384, SIGNERS, root384, root384_len, 1);

    const char *fixtures = getenv("GATEKIT_FIXTURES");
    char path[1024];
    snprintf(path, sizeof path, "%s/jws/apple-test/mock_signed_data/transactionInfo", fixtures ? fixtures : "../shared/fixtures");
    size_t len = 0, ca_len = 0;
    char *apple = (char *)read_file(path, &len);
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testCA.der", fixtures ? fixtures : "../shared/fixtures");
    unsigned char *ca = read_file(path, &ca_len);
    if (apple && ca) {
        while (len && (apple[len - 1] == '\n' || apple[len - 1] == ' ')) apple[--len] = 0;
        char *one[1] = {apple};
        dataset("JWS: Apple's mock transactionInfo (Apple's test chain, fixture); warm only: one signer", one, 1, ca, ca_len, 0);
    } else {
        printf("\n(Apple's mock transactionInfo skipped: fixtures not found; set GATEKIT_FIXTURES)\n");
    }
    free(apple); free(ca); free(root); free(root384);
    for (int i = 0; i < SIGNERS; i++) { free(p256[i]); free(p384[i]); }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    return system(cmd) == 0 ? 0 : 1;
}
