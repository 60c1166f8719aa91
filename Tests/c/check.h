/* A minimal assertion harness for the C tests: every check counts, a failure prints where
 * and why, and the program ends with the line "N passed, N failed". */
#ifndef GATEKIT_TEST_CHECK_H
#define GATEKIT_TEST_CHECK_H
#include <gatekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
    if (cond) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n", __FILE__, __LINE__, #cond, gatekit_last_error()); } \
} while (0)

#define CHECK_RC(expr, expected) do { \
    int check_rc_ = (expr); \
    if (check_rc_ == (expected)) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (last error: %s)\n", __FILE__, __LINE__, #expr, check_rc_, gatekit_strerror(check_rc_), (expected), gatekit_last_error()); } \
} while (0)

#define CHECK_STR(actual, expected) do { \
    const char *check_a_ = (actual), *check_e_ = (expected); \
    if (check_a_ && check_e_ && strcmp(check_a_, check_e_) == 0) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual, check_a_ ? check_a_ : "(null)", check_e_ ? check_e_ : "(null)"); } \
} while (0)

/* The unprivileged "nobody" user: root ignores file permissions, so permission checks run
 * in a child that has dropped to it. Returns 0 on success. */
#define CHECK_NOBODY_ID 65534
static inline int check_become_nobody(void) {
    return (setgid(CHECK_NOBODY_ID) == 0 && setuid(CHECK_NOBODY_ID) == 0) ? 0 : -1;
}

/* For tests whose forked children may crash on purpose: a crashing child must die at once,
 * but the Swift runtime's backtracer would start a helper that keeps our pipes open (30 s+).
 * Call first in main(): re-executes the test once with the backtracer disabled. */
static inline void check_disable_swift_backtracer(char **argv) {
    if (!getenv("SWIFT_BACKTRACE")) {
        setenv("SWIFT_BACKTRACE", "enable=no", 1);
        execv("/proc/self/exe", argv);
    }
}

/* Runs fn in a forked child — as "nobody" when as_nobody is set and we are root — with its own
 * check counts; returns the child's exit status (1 when fn's checks failed), 128+signal when it
 * died, 100 when it could not drop to nobody. */
static inline int check_in_child(int as_nobody, int (*fn)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        check_passed = check_failed = 0;
        if (as_nobody && geteuid() == 0 && check_become_nobody() != 0) _exit(100);
        int failed = fn();
        fflush(NULL);
        _exit(failed ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The contract tests (EULA, permissions, ledger) run on both backends: under
 * GATEKIT_TEST_BACKEND=postgresql the store a test names by file path opens on the test
 * server ($GATEKIT_TEST_POSTGRES, from scripts/with-postgres.sh) instead, as the app id
 * "c.<folder name>.<file name>": unique to the run (the folder is mkdtemp's), the same in
 * every process of it. */
static inline int check_on_postgres(void) {
    const char *backend = getenv("GATEKIT_TEST_BACKEND");
    return backend && strcmp(backend, "postgresql") == 0;
}

static inline int check_store_open(gatekit_store **s, const char *path) {
    if (!check_on_postgres()) return gatekit_store_open(s, path, NULL);
    const char *server = getenv("GATEKIT_TEST_POSTGRES");
    if (!server) {
        fprintf(stderr, "GATEKIT_TEST_BACKEND=postgresql needs GATEKIT_TEST_POSTGRES (run through scripts/with-postgres.sh)\n");
        exit(2);
    }
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    const char *folder = path;
    for (const char *p = path; p < name - 1; p++) if (*p == '/') folder = p + 1;
    char app[128];
    int n = snprintf(app, sizeof app, "c.%.*s.%s", (int)(name > folder ? name - 1 - folder : 0), folder, name);
    for (int i = 0; i < n && i < (int)sizeof app - 1; i++) {
        char c = app[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        if (!ok) app[i] = '-';
    }
    /* Behind the test pooler (GATEKIT_TEST_POSTGRES its address), the direct server hears commits. */
    const char *listen = getenv("GATEKIT_TEST_POSTGRES_LISTEN");
    if (listen) return gatekit_store_open_listening(s, server, app, 0, listen);
    return gatekit_store_open(s, server, app);
}

/* "folder/name" in one of eight rotating static buffers (so a few may be alive at once). */
static inline const char *check_path_in(const char *folder, const char *name) {
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s", folder, name);
    return p;
}

/* A whole file, malloc'd with a NUL after its bytes (text and binary alike); NULL when it
 * cannot be read. *len (when len is not NULL) gets the byte count. */
static inline unsigned char *check_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, n = 0, got;
    unsigned char *buf = malloc(cap + 1);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

/* Prints the closing line and returns the exit status. */
/* Runs the tool ($GATEKIT_TOOL) with args (shell words, quoted by the caller), its stdout and
 * stderr into out; its exit status, or -1. */
static inline int check_tool(const char *args, char *out, size_t cap) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", getenv("GATEKIT_TOOL"), args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int check_report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif
