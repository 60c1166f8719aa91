/* A launch check as a host does it: a fresh process validates once, with GateKit, and exits
 * 0 when the verdict is "genuine". Built and timed by bench/bench_launch.c.
 *   gatekit_host receipt FILE BUNDLE_ID
 *   gatekit_host jws FILE TEST_ANCHOR_DER BUNDLE_ID ENVIRONMENT */
#include <gatekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(b); return NULL; }
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "receipt") == 0) {
        gatekit_receipt_options o = GATEKIT_RECEIPT_OPTIONS_INIT;
        o.bundle_id = argv[3];
        gatekit_receipt *r = NULL;
        int rc = receipt_validate_file(&r, argv[2], &o);
        receipt_free(r);
        return rc == 0 ? 0 : 1;
    }
    if (argc == 6 && strcmp(argv[1], "jws") == 0) {
        size_t n = 0, anchor_len = 0;
        char *jws = slurp(argv[2], &n);
        char *anchor = slurp(argv[3], &anchor_len);
        if (!jws || !anchor) return 2;
        while (n > 0 && (jws[n - 1] == '\n' || jws[n - 1] == ' ')) jws[--n] = 0;
        gatekit_jws_options o = GATEKIT_JWS_OPTIONS_INIT;
        o.bundle_id = argv[4];
        o.environment = argv[5];
        o.test_anchor_der = (const unsigned char *)anchor;
        o.test_anchor_len = anchor_len;
        gatekit_jws *verified = NULL;
        int rc = jws_verify(&verified, GATEKIT_JWS_TRANSACTION, jws, &o);
        jws_free(verified);
        return rc == 0 ? 0 : 1;
    }
    return 2;
}
