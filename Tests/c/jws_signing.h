/* Signing for the C tests: base64, compact JWS made with the throw-away PKI of
 * Tests/scripts/jws-test-pki.sh (the openssl CLI signs), and JWS options. Shared by
 * test_jws.c and test_ledger.c; set signing_folder to the PKI's folder first. */
#ifndef GATEKIT_TEST_JWS_SIGNING_H
#define GATEKIT_TEST_JWS_SIGNING_H

#include "check.h"

#include <stdint.h>
#include <time.h>

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 (url: base64url without padding) of len bytes; malloc'd. */
static inline char *b64(const unsigned char *in, size_t len, int url) {
    char *out = malloc(len / 3 * 4 + 8), *o = out;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < len ? in[i + 2] : 0);
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        if (i + 1 < len) *o++ = b64chars[v >> 6 & 63]; else if (!url) *o++ = '=';
        if (i + 2 < len) *o++ = b64chars[v & 63]; else if (!url) *o++ = '=';
    }
    *o = 0;
    if (url) for (char *p = out; *p; p++) { if (*p == '+') *p = '-'; else if (*p == '/') *p = '_'; }
    return out;
}

static inline int b64value(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/* Decodes base64 or base64url (padding ignored) of n characters; malloc'd. */
static inline unsigned char *unb64(const char *in, size_t n, size_t *len) {
    unsigned char *out = malloc(n / 4 * 3 + 4);
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64value((unsigned char)in[i]);
        if (v < 0) continue;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (unsigned char)(acc >> bits); }
    }
    *len = o;
    return out;
}

static inline char *concat3(const char *a, const char *b, const char *c) {
    size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
    char *s = malloc(n);
    snprintf(s, n, "%s.%s.%s", a, b, c);
    return s;
}

/* Part i (0 header, 1 payload, 2 signature) of a compact JWS; malloc'd. */
static inline char *part(const char *jws, int i) {
    const char *p = jws;
    for (int k = 0; k < i; k++) { p = strchr(p, '.'); if (!p) return strdup(""); p++; }
    const char *end = strchr(p, '.');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char *s = malloc(n + 1);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* x5c[index] of a JWS header as DER; malloc'd. */
static inline unsigned char *x5c_cert(const char *jws, int index, size_t *len) {
    char *h64 = part(jws, 0);
    size_t hn;
    char *header = (char *)unb64(h64, strlen(h64), &hn);
    header = realloc(header, hn + 1);
    header[hn] = 0;
    const char *p = strstr(header, "\"x5c\":[");
    unsigned char *der = NULL;
    if (p) {
        p += 7;
        for (int k = 0; k <= index && p; k++) {
            p = strchr(p, '"');
            if (!p) break;
            p++;
            const char *end = strchr(p, '"');
            if (!end) { p = NULL; break; }
            if (k == index) der = unb64(p, (size_t)(end - p), len);
            p = end + 1;
        }
    }
    free(h64);
    free(header);
    return der;
}

/* {"alg":"<alg>","x5c":[<base64 of each DER>]} with no alg member when alg is NULL. */
static inline char *header_with(const char *alg, unsigned char **ders, const size_t *lens, int n) {
    size_t cap = 256;
    for (int i = 0; i < n; i++) cap += lens[i] * 2 + 4;
    char *h = malloc(cap);
    size_t o = 0;
    o += (size_t)snprintf(h + o, cap - o, "{");
    if (alg) o += (size_t)snprintf(h + o, cap - o, "\"alg\":\"%s\",", alg);
    o += (size_t)snprintf(h + o, cap - o, "\"x5c\":[");
    for (int i = 0; i < n; i++) {
        char *c = b64(ders[i], lens[i], 0);
        o += (size_t)snprintf(h + o, cap - o, "%s\"%s\"", i ? "," : "", c);
        free(c);
    }
    snprintf(h + o, cap - o, "]}");
    return h;
}

/* The same payload and signature under another header. */
static inline char *rehead(const char *jws, const char *header_json) {
    char *h = b64((const unsigned char *)header_json, strlen(header_json), 1);
    char *p = part(jws, 1), *s = part(jws, 2);
    char *out = concat3(h, p, s);
    free(h); free(p); free(s);
    return out;
}

/* ---- the generated PKI -------------------------------------------------------------- */

/* The folder Tests/scripts/jws-test-pki.sh made (set by the test before signing). */
static char signing_folder[512];

/* Makes the PKI in folder/pki (Tests/scripts/jws-test-pki.sh, from $GATEKIT_SOURCE_DIR or the
 * working directory) and signs with it from then on; 0 on success. */
static inline int signing_make_pki(const char *folder) {
    const char *source = getenv("GATEKIT_SOURCE_DIR");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s/Tests/scripts/jws-test-pki.sh' '%s/pki' >/dev/null 2>&1", source ? source : ".", folder);
    snprintf(signing_folder, sizeof signing_folder, "%s/pki", folder);
    return system(cmd) == 0 ? 0 : -1;
}

static inline const char *pki(const char *file) {
    static char buf[8][1024];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 1024, "%s/%s", signing_folder, file);
    return p;
}

static inline unsigned char *pki_der(const char *name, size_t *len) {
    char file[128];
    snprintf(file, sizeof file, "%s.der", name);
    return check_read_file(pki(file), len);
}

/* DER ECDSA-Sig-Value to raw 32-byte r || 32-byte s; 0 on success. */
static inline int der_to_raw(const unsigned char *der, size_t n, unsigned char raw[64]) {
    if (n < 8 || der[0] != 0x30) return -1;
    size_t i = der[1] == 0x81 ? 3 : 2;
    memset(raw, 0, 64);
    for (int k = 0; k < 2; k++) {
        if (i + 2 > n || der[i] != 0x02) return -1;
        size_t len = der[i + 1];
        const unsigned char *v = der + i + 2;
        if (i + 2 + len > n) return -1;
        while (len > 32 && *v == 0) { v++; len--; }
        if (len > 32) return -1;
        memcpy(raw + k * 32 + (32 - len), v, len);
        i += 2 + der[i + 1];
    }
    return 0;
}

/* Signs header_json.payload_json with the named key: ES256 raw r||s for EC keys, the plain
 * openssl signature otherwise. Returns the compact JWS; malloc'd. */
static inline char *sign_jws(const char *header_json, const char *payload_json, const char *key) {
    char *h = b64((const unsigned char *)header_json, strlen(header_json), 1);
    char *p = b64((const unsigned char *)payload_json, strlen(payload_json), 1);
    size_t n = strlen(h) + strlen(p) + 2;
    char *input = malloc(n);
    snprintf(input, n, "%s.%s", h, p);
    FILE *f = fopen(pki("input"), "wb");
    fwrite(input, 1, strlen(input), f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "openssl dgst -sha256 -sign '%s' -out '%s' '%s'", pki(key), pki("input.sig"), pki("input"));
    char *out = NULL;
    if (system(cmd) == 0) {
        size_t sn = 0;
        unsigned char *sig = check_read_file(pki("input.sig"), &sn);
        unsigned char raw[64];
        char *s = der_to_raw(sig, sn, raw) == 0 && strstr(key, "rsa") == NULL ? b64(raw, 64, 1) : b64(sig, sn, 1);
        size_t total = strlen(input) + strlen(s) + 2;
        out = malloc(total);
        snprintf(out, total, "%s.%s", input, s);
        free(sig);
        free(s);
    }
    free(h); free(p); free(input);
    return out;
}

/* A JWS signed by `signer` (a PKI key name) with the x5c of the named certificates. */
static inline char *sign_with(const char *alg, const char *payload, const char *signer, const char *const *names, int n) {
    unsigned char *ders[6] = {0};
    size_t lens[6] = {0};
    for (int i = 0; i < n && i < 6; i++) ders[i] = pki_der(names[i], &lens[i]);
    char *header = header_with(alg, ders, lens, n);
    char key[64];
    snprintf(key, sizeof key, "%s.key", signer);
    char *jws = sign_jws(header, payload, key);
    for (int i = 0; i < n; i++) free(ders[i]);
    free(header);
    return jws;
}

static const char *const chain3[] = {"leaf", "int", "root"};

static inline long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


static inline gatekit_jws_options opts(const char *bundle, const char *env, long long app, const unsigned char *anchor, size_t anchor_len) {
    gatekit_jws_options o;
    if (jws_options_init(&o, GATEKIT_JWS_OPTIONS_VERSION) != 0) {
        fprintf(stderr, "jws_options_init: %s\n", gatekit_last_error());
        abort();
    }
    o.bundle_id = bundle;
    o.environment = env;
    o.app_apple_id = app;
    o.test_anchor_der = anchor;
    o.test_anchor_len = anchor_len;
    return o;
}

#endif
