/* dlopen + first call, from C, each in a fresh process (fork), vs. the same for
 * libsqlite3 (a C library GateKit itself links) as the reference. */
#include "bench.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: dlopen(path), call symbol (an int(void) function), report elapsed ns. */
static uint64_t load_once(const char *path, const char *symbol) {
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); exit(2); }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        uint64_t t0 = bench_now_ns();
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        int (*fn)(void) = h ? (int (*)(void))dlsym(h, symbol) : NULL;
        int value = fn ? fn() : -1;
        uint64_t elapsed = bench_now_ns() - t0;
        if (value <= 0) { fprintf(stderr, "load %s: %s\n", path, dlerror()); _exit(1); }
        _exit(write(fds[1], &elapsed, sizeof elapsed) == sizeof elapsed ? 0 : 1);
    }
    close(fds[1]);
    uint64_t elapsed = 0;
    ssize_t n = read(fds[0], &elapsed, sizeof elapsed);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n != sizeof elapsed || !WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "child failed\n"); exit(1); }
    return elapsed;
}

static bench_stats sample(const char *path, const char *symbol, int runs) {
    uint64_t *s = malloc(sizeof(uint64_t) * (size_t)runs);
    if (!s) exit(2);
    load_once(path, symbol);  /* warm the page cache */
    for (int i = 0; i < runs; i++) s[i] = load_once(path, symbol);
    bench_stats st = bench_summarize(s, runs);
    free(s);
    return st;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bench_load LIBGATEKIT\n"); return 2; }
    bench_header("Load: dlopen + first call from C, fresh process each run");
    bench_stats ref = sample("libsqlite3.so.0", "sqlite3_libversion_number", 60);
    bench_stats gk = sample(argv[1], "gatekit_version_number", 60);
    bench_row("libsqlite3.so.0 + sqlite3_libversion_number() (reference)", ref);
    bench_row("libgatekit.so (toolchain-free) + gatekit_version_number()", gk);
    printf("| ratio libgatekit / libsqlite3 | **%.2f×** | | | |\n", gk.median / ref.median);
    return 0;
}
