/* Receipt validation: GateKit cold (chain verified from scratch) and warm (verified chain
 * cached) vs. two C references run in the same invocation:
 *   - OpenSSL CMS_verify with a cached X509_STORE (Apple root, time = creation date,
 *     purpose any): decode + chain + signature, no payload parsing;
 *   - "cached signer, one RSA verify": the signer's DER compared with a cached, already
 *     verified certificate, then one EVP_DigestVerify over the payload (offsets found at
 *     set-up, so no parsing at all): the near-limit for any validator.
 * GateKit's figures include the full payload parse (every attribute and purchase). */
#include "bench.h"

#include <gatekit.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <string.h>

typedef struct {
    const char *name, *bundle;
    unsigned char *der;
    size_t len;
    long long created;            /* Unix seconds */
    X509_STORE *store;            /* reference: Apple root only */
    /* near-limit reference */
    const unsigned char *payload, *signature, *leaf_der;
    size_t payload_len, signature_len, leaf_len;
    unsigned char *cached_leaf;   /* "already verified" signer bytes */
    EVP_PKEY *cached_key;
    const EVP_MD *md;
} receipt_ctx;

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int cms_reference(void *p) {
    receipt_ctx *c = p;
    const unsigned char *in = c->der;
    CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &in, (long)c->len);
    if (!cms) return 1;
    BIO *out = BIO_new(BIO_s_mem());
    int ok = CMS_verify(cms, NULL, c->store, NULL, out, CMS_BINARY);
    if (ok != 1) ERR_print_errors_fp(stderr);
    BIO_free(out);
    CMS_ContentInfo_free(cms);
    return ok == 1 ? 0 : 1;
}

static int near_limit_reference(void *p) {
    receipt_ctx *c = p;
    if (c->leaf_len == 0 || memcmp(c->leaf_der, c->cached_leaf, c->leaf_len) != 0) return 1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(ctx, NULL, c->md, NULL, c->cached_key) == 1 &&
             EVP_DigestVerify(ctx, c->signature, c->signature_len, c->payload, c->payload_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : 1;
}

static int gatekit_validate(receipt_ctx *c) {
    gatekit_receipt_options o;
    if (receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "receipt_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    o.bundle_id = c->bundle;
    gatekit_receipt *r = NULL;
    int rc = receipt_validate(&r, c->der, c->len, &o);
    if (rc != 0) fprintf(stderr, "%s: %s\n", c->name, gatekit_last_error());
    receipt_free(r);
    return rc;
}

static int gatekit_cold(void *p) {
    gatekit_clear_caches();
    return gatekit_validate(p);
}

static int gatekit_warm(void *p) { return gatekit_validate(p); }

static int gatekit_warm_json(void *p) {
    receipt_ctx *c = p;
    gatekit_receipt_options o;
    if (receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "receipt_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    o.bundle_id = c->bundle;
    gatekit_receipt *r = NULL;
    if (receipt_validate(&r, c->der, c->len, &o) != 0) return 1;
    char *json = NULL;
    int rc = receipt_to_json(&json, r);
    gatekit_free(json);
    receipt_free(r);
    return rc;
}

/* Finds payload, signature and signer for the near-limit reference (set-up only). */
static void prepare_reference(receipt_ctx *c, X509 *apple_root) {
    const unsigned char *in = c->der;
    CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &in, (long)c->len);
    if (!cms) { fprintf(stderr, "%s: not CMS\n", c->name); exit(1); }
    ASN1_OCTET_STRING **content = CMS_get0_content(cms);
    c->payload = memmem(c->der, c->len, ASN1_STRING_get0_data(*content), (size_t)ASN1_STRING_length(*content));
    c->payload_len = (size_t)ASN1_STRING_length(*content);
    STACK_OF(CMS_SignerInfo) *signers = CMS_get0_SignerInfos(cms);
    CMS_SignerInfo *si = sk_CMS_SignerInfo_value(signers, 0);
    ASN1_OCTET_STRING *sig = CMS_SignerInfo_get0_signature(si);
    c->signature = memmem(c->der, c->len, ASN1_STRING_get0_data(sig), (size_t)ASN1_STRING_length(sig));
    c->signature_len = (size_t)ASN1_STRING_length(sig);
    X509_ALGOR *digest = NULL;
    CMS_SignerInfo_get0_algs(si, NULL, NULL, &digest, NULL);
    c->md = EVP_get_digestbyobj(digest->algorithm);
    STACK_OF(X509) *certs = CMS_get1_certs(cms);
    for (int i = 0; i < sk_X509_num(certs); i++) {
        X509 *x = sk_X509_value(certs, i);
        if (CMS_SignerInfo_cert_cmp(si, x) == 0) {
            unsigned char *der = NULL;
            int n = i2d_X509(x, &der);
            c->leaf_der = memmem(c->der, c->len, der, (size_t)n);
            c->leaf_len = (size_t)n;
            c->cached_leaf = malloc((size_t)n);
            memcpy(c->cached_leaf, der, (size_t)n);
            OPENSSL_free(der);
            c->cached_key = X509_get_pubkey(x);
        }
    }
    sk_X509_pop_free(certs, X509_free);
    CMS_ContentInfo_free(cms);
    if (!c->payload || !c->signature || !c->leaf_der || !c->cached_key || !c->md) { fprintf(stderr, "%s: set-up failed\n", c->name); exit(1); }

    c->store = X509_STORE_new();
    X509_STORE_add_cert(c->store, apple_root);
    X509_VERIFY_PARAM *param = X509_STORE_get0_param(c->store);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_ANY);
}

static void measure(receipt_ctx *c, int runs) {
    /* creation date through GateKit itself */
    gatekit_receipt_options o;
    if (receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "receipt_options_init: %s\n", gatekit_last_error());
        exit(1);
    }
    o.bundle_id = c->bundle;
    gatekit_receipt *r = NULL;
    if (receipt_validate(&r, c->der, c->len, &o) != 0) { fprintf(stderr, "%s: %s\n", c->name, gatekit_last_error()); exit(1); }
    long long ms = 0;
    if (receipt_date_ms(&ms, r, GATEKIT_RECEIPT_CREATION_DATE) != 1) exit(1);
    int purchases = receipt_purchase_count(r);
    receipt_free(r);
    c->created = ms / 1000;
    X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(c->store), (time_t)c->created);

    bench_stats cms = bench_run(cms_reference, c, runs / 10, runs);
    bench_stats near = bench_run(near_limit_reference, c, runs / 10, runs);
    bench_stats cold = bench_run(gatekit_cold, c, runs / 10, runs);
    bench_stats warm = bench_run(gatekit_warm, c, runs / 10, runs);
    bench_stats json = bench_run(gatekit_warm_json, c, runs / 10, runs);
    char name[200];
    snprintf(name, sizeof name, "%s (%zu B, %d purchases): CMS_verify, cached X509_STORE (reference)", c->name, c->len, purchases);
    bench_row(name, cms);
    snprintf(name, sizeof name, "%s: cached signer + one RSA verify (near-limit reference)", c->name);
    bench_row(name, near);
    snprintf(name, sizeof name, "%s: GateKit receipt_validate cold (chain verified)", c->name);
    bench_row(name, cold);
    snprintf(name, sizeof name, "%s: GateKit receipt_validate warm (chain cached)", c->name);
    bench_row(name, warm);
    snprintf(name, sizeof name, "%s: GateKit warm validate + receipt_to_json", c->name);
    bench_row(name, json);
    printf("| %s: ratio cold / CMS_verify (target ≤ 1.2) | **%.2f×** | | | |\n", c->name, cold.median / cms.median);
    printf("| %s: ratio warm / near-limit (target ≤ 1.5) | **%.2f×** | | | |\n", c->name, warm.median / near.median);
}

int main(void) {
    const char *fx = getenv("GATEKIT_FIXTURES");
    if (!fx) fx = "../shared/fixtures";
    char path[1024];
    snprintf(path, sizeof path, "%s/certs/AppleIncRootCertificate.cer", fx);
    size_t root_len = 0;
    FILE *probe = fopen(path, "rb");
    if (!probe) { printf("\n(bench_receipt skipped: no fixtures at %s; set GATEKIT_FIXTURES)\n", fx); return 0; }
    fclose(probe);
    unsigned char *root_der = slurp(path, &root_len);
    const unsigned char *p = root_der;
    X509 *apple_root = d2i_X509(NULL, &p, (long)root_len);

    receipt_ctx receipts[] = {
        {.name = "sandbox-g5", .bundle = "dev.bonzer.weeka.app"},
        {.name = "sandbox-legacy", .bundle = "com.nutcall.alert"},
    };
    const char *files[] = {"receipts/apple/tp__receipt-sandbox-g5.der", "receipts/apple/tp__receipt-sandbox-legacy.der"};
    int runs[] = {3000, 600};
    bench_header("Receipts: receipt_validate vs. OpenSSL references (per receipt)");
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", fx, files[i]);
        receipts[i].der = slurp(path, &receipts[i].len);
        prepare_reference(&receipts[i], apple_root);
        measure(&receipts[i], runs[i]);
    }
    return 0;
}
