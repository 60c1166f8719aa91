/* The same launch checks with OpenSSL alone (the reference of bench/bench_launch.c): a fresh
 * process, one verification, exit 0 when it passes.
 *   openssl_host receipt FILE ROOT_DER CREATED_UNIX   CMS_verify, store = the root, at the creation date
 *   openssl_host jws FILE ANCHOR_DER SIGNED_UNIX        x5c chain to the anchor at signedDate + ES256 */
#include "../bench_jws_signing.h"

#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static X509 *certificate(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    return d2i_X509(NULL, &p, (long)len);
}

static int receipt(const char *file, const char *root_path, long long created) {
    size_t n = 0, root_len = 0;
    unsigned char *der = read_file(file, &n), *root_der = read_file(root_path, &root_len);
    if (!der || !root_der) return 2;
    const unsigned char *p = der;
    CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, (long)n);
    X509 *root = certificate(root_der, root_len);
    if (!cms || !root) return 1;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, root);
    X509_VERIFY_PARAM *param = X509_STORE_get0_param(store);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_ANY);
    X509_VERIFY_PARAM_set_time(param, (time_t)created);
    BIO *out = BIO_new(BIO_s_mem());
    int ok = CMS_verify(cms, NULL, store, NULL, out, CMS_BINARY);
    return ok == 1 ? 0 : 1;
}

static unsigned char *b64(const char *in, size_t n, size_t *len, int url) {
    unsigned char *out = malloc(n * 3 / 4 + 4);
    unsigned int acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = in[i], v;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == (url ? '-' : '+')) v = 62;
        else if (c == (url ? '_' : '/')) v = 63;
        else continue;
        acc = acc << 6 | (unsigned int)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (unsigned char)(acc >> bits); }
    }
    *len = o;
    return out;
}

static int jws(const char *file, const char *anchor_path, long long signed_at) {
    size_t n = 0, anchor_len = 0;
    char *text = (char *)read_file(file, &n);
    unsigned char *anchor_der = read_file(anchor_path, &anchor_len);
    if (!text || !anchor_der) return 2;
    char *dot1 = strchr(text, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
    if (!dot2) return 1;
    size_t header_len = 0;
    char *header = (char *)b64(text, (size_t)(dot1 - text), &header_len, 1);
    header[header_len] = 0;
    /* x5c: the three quoted base64 strings after "x5c":[ */
    X509 *certs[3] = {0};
    char *q = strstr(header, "\"x5c\"");
    for (int i = 0; q && i < 3; i++) {
        char *open = strchr(q + (i ? 1 : 5), '"');
        char *close = open ? strchr(open + 1, '"') : NULL;
        if (!close) return 1;
        size_t der_len = 0;
        unsigned char *der = b64(open + 1, (size_t)(close - open - 1), &der_len, 0);
        certs[i] = certificate(der, der_len);
        free(der);
        q = close;
    }
    X509 *anchor = certificate(anchor_der, anchor_len);
    if (!certs[0] || !certs[1] || !anchor) return 1;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, anchor);
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    sk_X509_push(untrusted, certs[1]);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, certs[0], untrusted);
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), (time_t)signed_at);
    if (X509_verify_cert(ctx) != 1) return 1;
    size_t sig_len = 0;
    unsigned char *raw = b64(dot2 + 1, strlen(dot2 + 1), &sig_len, 1);
    if (sig_len != 64) return 1;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, NULL), BN_bin2bn(raw + 32, 32, NULL));
    unsigned char *der = NULL;
    int der_len = i2d_ECDSA_SIG(sig, &der);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, X509_get0_pubkey(certs[0])) == 1 &&
             EVP_DigestVerify(md, der, (size_t)der_len, (const unsigned char *)text, (size_t)(dot2 - text)) == 1;
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "receipt") == 0) return receipt(argv[2], argv[3], atoll(argv[4]));
    if (argc == 5 && strcmp(argv[1], "jws") == 0) return jws(argv[2], argv[3], atoll(argv[4]));
    return 2;
}
