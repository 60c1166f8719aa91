/* Signed data for the benchmarks: base64, files, and compact JWS signed in-process with
 * OpenSSL (ES256, raw r||s) — shared by bench_jws.c and bench_ledger.c. */
#ifndef GATEKIT_BENCH_JWS_SIGNING_H
#define GATEKIT_BENCH_JWS_SIGNING_H
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Unpadded base64url; malloc'd. */
static inline char *b64url(const unsigned char *in, size_t len) {
    char *out = malloc(len / 3 * 4 + 5), *o = out;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < len ? in[i + 2] : 0);
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        if (i + 1 < len) *o++ = b64chars[v >> 6 & 63];
        if (i + 2 < len) *o++ = b64chars[v & 63];
    }
    *o = 0;
    return out;
}

/* Padded standard base64 (x5c entries); malloc'd. */
static inline char *std_b64(const unsigned char *der, size_t len) {
    static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(len / 3 * 4 + 5), *o = out;
    for (size_t k = 0; k < len; k += 3) {
        uint32_t v = (uint32_t)der[k] << 16 | (k + 1 < len ? (uint32_t)der[k + 1] << 8 : 0) | (k + 2 < len ? der[k + 2] : 0);
        *o++ = std[v >> 18 & 63];
        *o++ = std[v >> 12 & 63];
        *o++ = k + 1 < len ? std[v >> 6 & 63] : '=';
        *o++ = k + 2 < len ? std[v & 63] : '=';
    }
    *o = 0;
    return out;
}

/* A whole file, NUL-terminated; NULL when it cannot be read. */
static inline unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); fclose(f); return NULL; }
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

/* header64 "." base64url(payload) "." ES256(raw r||s) with `key`; malloc'd. */
static inline char *es256_jws(EVP_PKEY *key, const char *header64, const char *payload) {
    char *p = b64url((const unsigned char *)payload, strlen(payload));
    size_t input_len = strlen(header64) + strlen(p) + 1;
    char *jws = malloc(input_len + 100);
    snprintf(jws, input_len + 1, "%s.%s", header64, p);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[128];
    size_t der_len = sizeof der;
    if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
        EVP_DigestSign(md, der, &der_len, (const unsigned char *)jws, input_len) != 1) { fprintf(stderr, "sign failed\n"); exit(1); }
    EVP_MD_CTX_free(md);
    const unsigned char *d = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &d, (long)der_len);
    unsigned char raw[64];
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), raw, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), raw + 32, 32);
    ECDSA_SIG_free(sig);
    char *s = b64url(raw, 64);
    snprintf(jws + input_len, 100, ".%s", s);
    free(p);
    free(s);
    return jws;
}

#endif
