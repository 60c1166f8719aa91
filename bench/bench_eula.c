/* eula_should_present on a 64 KB and a 4 MB document vs. hashing the same bytes with
 * OpenSSL's EVP_Digest in memory (the raw cost of the SHA-256 itself). */
#include "bench.h"

#include <gatekit.h>
#include <openssl/evp.h>
#include <string.h>

typedef struct {
    gatekit_store *store;
    const char *path;
    unsigned char *bytes;
    size_t len;
} doc_ctx;

static int raw_digest(void *p) {
    doc_ctx *c = p;
    unsigned char md[32];
    unsigned int n = 0;
    return EVP_Digest(c->bytes, c->len, md, &n, EVP_sha256(), NULL) == 1 ? 0 : 1;
}

static int should_present(void *p) {
    doc_ctx *c = p;
    return eula_should_present(c->store, "terms", c->path, NULL) == 0 ? 0 : 1;
}

static void measure(gatekit_store *store, const char *folder, size_t len, int runs) {
    char path[512];
    snprintf(path, sizeof path, "%s/eula-%zu.txt", folder, len);
    doc_ctx c = {store, path, malloc(len), len};
    for (size_t i = 0; i < len; i++) c.bytes[i] = (unsigned char)('a' + i % 26);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(c.bytes, 1, len, f) != len) { perror(path); exit(2); }
    fclose(f);
    char hash[GATEKIT_HASH_HEX_SIZE];
    if (eula_hash_file(hash, path) != 0 || eula_accept(store, "terms", hash, NULL) != 0) { fprintf(stderr, "setup: %s\n", gatekit_last_error()); exit(1); }

    bench_stats ref = bench_run(raw_digest, &c, runs / 10, runs);
    bench_stats gk = bench_run(should_present, &c, runs / 10, runs);
    char name[128];
    snprintf(name, sizeof name, "%zu KB: EVP_Digest SHA-256 in memory (reference)", len / 1024);
    bench_row(name, ref);
    snprintf(name, sizeof name, "%zu KB: eula_should_present (open, read, hash, query)", len / 1024);
    bench_row(name, gk);
    printf("| %zu KB: ratio eula_should_present / EVP_Digest | **%.2f×** | | | |\n", len / 1024, gk.median / ref.median);
    printf("| %zu KB: overhead over the raw hash | **%.1f µs** | | | |\n", len / 1024, (gk.median - ref.median) / 1e3);
    free(c.bytes);
}

int main(void) {
    char folder[] = "/tmp/gatekit-bench-eula-XXXXXX";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char store_path[600];
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", folder);
    gatekit_store *store = NULL;
    if (gatekit_store_open(&store, store_path, NULL) != 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    bench_header("EULA: eula_should_present vs. EVP_Digest (document in the page cache)");
    measure(store, folder, 64 * 1024, 4000);
    measure(store, folder, 4 * 1024 * 1024, 300);
    gatekit_store_close(store);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    return system(cmd) == 0 ? 0 : 1;
}
