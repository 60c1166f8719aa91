/* The launch check, whole process: a fresh process validates once and exits — what a host
 * does at launch. GateKit's host (bench/launch/gatekit_host.c, linking libgatekit) beside the
 * same work with OpenSSL alone (bench/launch/openssl_host.c), and from Python (ctypes +
 * GateKit beside `cryptography` doing the same verification), interleaved run by run; medians.
 * argv[1]: the library under test (make bench passes the release library). */
#include "bench.h"

#include <limits.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { RUNS = 30, FLOOR_RUNS = 100, LOAD_RUNS = 300 };

static uint64_t run_once(char *const argv[]) {
    uint64_t t0 = bench_now_ns();
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) { perror(argv[0]); exit(2); }
    int status = 0;
    waitpid(pid, &status, 0);
    uint64_t elapsed = bench_now_ns() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_launch: %s %s %s failed (exit %d)\n", argv[0], argv[1], argv[2] ? argv[2] : "", WEXITSTATUS(status));
        exit(1);
    }
    return elapsed;
}

/* Runs `a` and `b` alternately `runs` times (after one unmeasured run each) and prints both. */
static void compare_runs(int runs, const char *title, const char *name_a, char *const a[], const char *name_b, char *const b[], const char *aim) {
    uint64_t sa[LOAD_RUNS], sb[LOAD_RUNS];
    if (runs > LOAD_RUNS) runs = LOAD_RUNS;
    run_once(a);
    run_once(b);
    for (int i = 0; i < runs; i++) {
        sa[i] = run_once(a);
        sb[i] = run_once(b);
    }
    bench_stats x = bench_summarize(sa, runs), y = bench_summarize(sb, runs);
    printf("\n### %s\n\n| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|\n", title);
    printf("| %s | %.2f ms | %.2f ms | %.2f ms | %d |\n", name_b, y.median / 1e6, y.p10 / 1e6, y.p90 / 1e6, runs);
    printf("| %s | %.2f ms | %.2f ms | %.2f ms | %d |\n", name_a, x.median / 1e6, x.p10 / 1e6, x.p90 / 1e6, runs);
    printf("| **ratio** (%s) | **%.2f×** | | | |\n", aim, x.median / y.median);
}

static void compare(const char *title, const char *name_a, char *const a[], const char *name_b, char *const b[], const char *aim) {
    compare_runs(RUNS, title, name_a, a, name_b, b, aim);
}

static int build(const char *cmd) {
    int rc = system(cmd);
    if (rc != 0) fprintf(stderr, "bench_launch: build failed: %s\n", cmd);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bench_launch LIBRARY\n"); return 2; }
    char libdir[1024];
    snprintf(libdir, sizeof libdir, "%s", argv[1]);
    char *slash = strrchr(libdir, '/');
    if (slash) *slash = 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cc -std=c11 -O2 -D_GNU_SOURCE -o .build/bench/gatekit_host bench/launch/gatekit_host.c -Iinclude "
                              "-L'%s' -Wl,-rpath,'%s' -lgatekit", libdir, libdir);
    if (build(cmd) != 0) return 1;
    if (build("cc -std=c11 -O2 -D_GNU_SOURCE -o .build/bench/openssl_host bench/launch/openssl_host.c -lcrypto") != 0) return 1;

    const char *fx = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char receipt[1024], root[1024], jws[1024], anchor[1024];
    snprintf(receipt, sizeof receipt, "%s/receipts/apple/tp__receipt-sandbox-g5.der", fx);
    snprintf(root, sizeof root, "%s/certs/AppleIncRootCertificate.cer", fx);
    snprintf(jws, sizeof jws, "%s/jws/apple-test/mock_signed_data/transactionInfo", fx);
    snprintf(anchor, sizeof anchor, "%s/jws/apple-test/certs/testCA.der", fx);
    if (access(receipt, R_OK) != 0 || access(jws, R_OK) != 0) {
        printf("\n(launch check skipped: fixtures not found under %s; set GATEKIT_FIXTURES)\n", fx);
        return 0;
    }
    /* The floor: OpenSSL's program also loading a Swift library of one C function built as
     * libgatekit is (what any library carrying a Swift runtime costs), built in this run. */
    /* `make static`'s C++ runtime folder (Makefile, STATIC_CXX_DIR), absolute: `-L` next to the
     * library's folder named nothing (`release` is a link into the scratch folder), and the
     * floor then loaded libstdc++ and libgcc_s — which libgatekit does not. */
    char cxx[PATH_MAX];
    if (!realpath(getenv("STATIC_CXX_DIR") ? getenv("STATIC_CXX_DIR") : ".build-static/static-cxx", cxx)) { perror("STATIC_CXX_DIR"); return 2; }
    snprintf(cmd, sizeof cmd, "swift build -c release -Xswiftc -static-stdlib --package-path bench/launch/tiny --scratch-path .build/bench/tiny "
                              "-Xlinker -L'%s' >/dev/null", cxx);
    if (build(cmd) != 0) return 1;
    if (system("readelf -d .build/bench/tiny/release/libtiny.so | grep -qE 'NEEDED.*(libstdc|libgcc_s)'") == 0) {
        fprintf(stderr, "bench_launch: the floor library loads a shared C++ runtime: it is not built as libgatekit is\n");
        return 1;
    }
    if (build("cc -std=c11 -O2 -D_GNU_SOURCE -o .build/bench/openssl_floor_host bench/launch/openssl_host.c -Wl,--no-as-needed "
              "-L.build/bench/tiny/release -Wl,-rpath,'$ORIGIN/tiny/release' -ltiny -lcrypto") != 0) return 1;
    printf("\n## Launch check: a fresh process, one verdict, whole process (fork + exec + load + verify + exit)\n");
    printf("\nInterleaved, %d runs each after one unmeasured run; `make bench BENCH=launch` reproduces it.\n", RUNS);
    /* g5's creation date, 2025-12-26T18:39:47Z; the mock transaction's signedDate. */
    char *gk_receipt[] = {".build/bench/gatekit_host", "receipt", receipt, "dev.bonzer.weeka.app", NULL};
    char *ossl_receipt[] = {".build/bench/openssl_host", "receipt", receipt, root, "1766774387", NULL};
    compare("App Store receipt (tp__receipt-sandbox-g5), C host", "GateKit: receipt_validate_file", gk_receipt,
            "reference: OpenSSL alone, CMS_verify with the Apple root at the creation date", ossl_receipt, "aim ≤ 1.1");
    char *gk_jws[] = {".build/bench/gatekit_host", "jws", jws, anchor, "com.example", "Sandbox", NULL};
    char *ossl_jws[] = {".build/bench/openssl_host", "jws", jws, anchor, "1672956154", NULL};
    compare("StoreKit 2 signed transaction (Apple's mock transactionInfo), C host", "GateKit: jws_verify", gk_jws,
            "reference: OpenSSL alone, x5c chain to the anchor at signedDate + ES256", ossl_jws, "aim ≤ 1.1");
    char *floor_receipt[] = {".build/bench/openssl_floor_host", "receipt", receipt, root, "1766774387", NULL};
    char *floor_jws[] = {".build/bench/openssl_floor_host", "jws", jws, anchor, "1672956154", NULL};
    compare_runs(FLOOR_RUNS, "App Store receipt, C host, against the floor", "GateKit: receipt_validate_file", gk_receipt,
                 "floor: the OpenSSL program also loading a one-function Swift library (bench/launch/tiny)", floor_receipt, "aim ≤ 1.05");
    compare_runs(FLOOR_RUNS, "StoreKit 2 signed transaction, C host, against the floor", "GateKit: jws_verify", gk_jws,
                 "floor: the OpenSSL program also loading a one-function Swift library (bench/launch/tiny)", floor_jws, "aim ≤ 1.05");

    /* Loading alone. The same empty program linking libcrypto; libcrypto and the one-function
     * Swift library; libcrypto and libgatekit. */
    if (build("cc -O2 -o .build/bench/empty_crypto bench/launch/empty_host.c -Wl,--no-as-needed -lcrypto") != 0) return 1;
    if (build("cc -O2 -o .build/bench/empty_tiny bench/launch/empty_host.c -Wl,--no-as-needed -L.build/bench/tiny/release "
              "-Wl,-rpath,'$ORIGIN/tiny/release' -ltiny -lcrypto") != 0) return 1;
    snprintf(cmd, sizeof cmd, "cc -O2 -o .build/bench/empty_gatekit bench/launch/empty_host.c -Wl,--no-as-needed -L'%s' -Wl,-rpath,'%s' "
                              "-lgatekit -lcrypto", libdir, libdir);
    if (build(cmd) != 0) return 1;
    char *empty_crypto[] = {".build/bench/empty_crypto", NULL};
    char *empty_tiny[] = {".build/bench/empty_tiny", NULL};
    char *empty_gatekit[] = {".build/bench/empty_gatekit", NULL};
    compare_runs(LOAD_RUNS, "Loading alone: a Swift library of one C function (bench/launch/tiny), C host", "libcrypto + the one-function Swift library",
            empty_tiny, "reference: libcrypto alone", empty_crypto, "what a Swift runtime costs");
    compare_runs(LOAD_RUNS, "Loading alone: libgatekit, C host", "libcrypto + libgatekit", empty_gatekit, "reference: libcrypto alone", empty_crypto,
            "what loading GateKit costs");

    /* Python hosts: the interpreter itself (never the pyenv shim, ~70 ms), GateKit through ctypes
     * beside `cryptography` (+ asn1crypto for the receipt) doing the same verification. */
    char python[1024] = "";
    FILE *p = popen("${PYTHON:-python3} -c 'import sys; print(sys.executable)' 2>/dev/null", "r");
    if (p && fgets(python, sizeof python, p)) python[strcspn(python, "\n")] = 0;
    if (p) pclose(p);
    if (!*python || system("\"${PYTHON:-python3}\" -c 'import cryptography, asn1crypto' 2>/dev/null") != 0) {
        printf("\n(Python launch check skipped: no interpreter with cryptography and asn1crypto; make python-deps)\n");
        return 0;
    }
    setenv("GATEKIT_LIBRARY", argv[1], 1);
    setenv("PYTHONPATH", "python", 1);
    char *py_gk_receipt[] = {python, "bench/launch/python_host.py", "gatekit-receipt", receipt, "dev.bonzer.weeka.app", NULL};
    char *py_ref_receipt[] = {python, "bench/launch/python_host.py", "reference-receipt", receipt, root, "dev.bonzer.weeka.app", NULL};
    compare("App Store receipt (tp__receipt-sandbox-g5), Python host", "GateKit: gatekit.receipt.validate_file", py_gk_receipt,
            "reference: cryptography + asn1crypto, the same checks", py_ref_receipt, "aim ≤ 1.1");
    char *py_gk_jws[] = {python, "bench/launch/python_host.py", "gatekit-jws", jws, anchor, "com.example", "Sandbox", NULL};
    char *py_ref_jws[] = {python, "bench/launch/python_host.py", "reference-jws", jws, anchor, "1672956154", NULL};
    compare("StoreKit 2 signed transaction, Python host", "GateKit: SignedDataVerifier.verify_transaction", py_gk_jws,
            "reference: cryptography, x5c chain + ES256", py_ref_jws, "aim ≤ 1.1");
    return 0;
}
