/* Hostile use of the C ABI: every exported function called with NULL for each pointer
 * argument, empty strings, non-UTF-8 bytes, oversized strings, lengths 0 and SIZE_MAX,
 * odd integers, and *_free(NULL). Each call runs in a forked child, so a crash is reported
 * as a failure naming the call instead of killing the test.
 *
 * Expectations: NULL for a required pointer gives exactly GATEKIT_EINVAL; every other
 * hostile value gives a success or a negative GATEKIT_E* code other than EINTERNAL, with a
 * non-NULL gatekit_last_error(); no call crashes, traps or hangs (5 s per call).
 *
 * Adding a function: write a thunk `static int call_x(arg *a)` and add one row to `api`
 * with the kind of each argument (see `kind`). The test fails when a function declared
 * with GATEKIT_API in include/gatekit.h has no row. */
#include "check.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef union {
    void *p;
    const char *s;
    size_t n;
    int i;
} arg;

/* What an argument is: decides its valid value and its hostile variants. */
typedef enum {
    END = 0,
    STORE,      /* gatekit_store *: an open store (required) */
    OUT_PTR,    /* T **out: receives a handle or string (required) */
    OUT_HASH,   /* char out[GATEKIT_HASH_HEX_SIZE] (required) */
    STR,        /* required UTF-8 string (identifier) */
    OPT_STR,    /* optional UTF-8 string (NULL = default/all) */
    OPT_BYTES,  /* optional byte string, need not be UTF-8 (user names) */
    HASH,       /* required 64-hex-digit string */
    PATH,       /* required path of an existing readable file */
    OPT_PATH,   /* optional store path (NULL = default location) */
    APP_ID,     /* optional app id */
    DATA,       /* const void *data, followed by its LEN */
    LEN,        /* size_t length of the preceding DATA */
    INT,        /* int: any value */
    FREE_PTR,   /* a pointer a *_free function accepts (NULL must be a no-op) */
} kind;

enum { MAX_ARGS = 8 };

typedef struct {
    const char *name;
    int (*call)(arg *a);   /* returns the function's result (void functions return 0) */
    kind args[MAX_ARGS];
    int returns_pointer;   /* the result is a pointer: only "no crash" is checked */
} api_entry;

/* ---- thunks: one per exported function ---------------------------------------------- */

static int call_gatekit_version(arg *a) { (void)a; return gatekit_version() ? 0 : -1; }
static int call_gatekit_version_number(arg *a) { (void)a; return gatekit_version_number() > 0 ? 0 : -1; }
static int call_gatekit_strerror(arg *a) { return gatekit_strerror(a[0].i) ? 0 : -1; }
static int call_gatekit_last_error(arg *a) { (void)a; return gatekit_last_error() ? 0 : -1; }
static int call_gatekit_free(arg *a) { gatekit_free(a[0].p); return 0; }
static int call_gatekit_hash_hex_size(arg *a) { (void)a; return gatekit_hash_hex_size() == GATEKIT_HASH_HEX_SIZE ? 0 : -1; }
static int call_gatekit_store_open(arg *a) {
    int rc = gatekit_store_open((gatekit_store **)a[0].p, a[1].s, a[2].s);
    if (rc == 0 && a[0].p) gatekit_store_close(*(gatekit_store **)a[0].p);
    return rc;
}
static int call_gatekit_store_close(arg *a) { gatekit_store_close((gatekit_store *)a[0].p); return 0; }
static int call_gatekit_store_path(arg *a) { return gatekit_store_path((const gatekit_store *)a[0].p) ? 0 : -1; }
static int call_gatekit_store_check(arg *a) { return gatekit_store_check((gatekit_store *)a[0].p); }
static int call_eula_hash_file(arg *a) { return eula_hash_file((char *)a[0].p, a[1].s); }
static int call_eula_hash_bytes(arg *a) { return eula_hash_bytes((char *)a[0].p, a[1].p, a[2].n); }
static int call_eula_should_present(arg *a) { return eula_should_present((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_should_present_hash(arg *a) { return eula_should_present_hash((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_accept(arg *a) { return eula_accept((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_decline(arg *a) { return eula_decline((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_history(arg *a) {
    int rc = eula_history((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_eula_history_all(arg *a) {
    int rc = eula_history_all((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_eula_mark_minor_revision(arg *a) { return eula_mark_minor_revision((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }

/* Returns-pointer / void functions still run every variant: only "no crash" is asserted
 * for them, plus their documented NULL answers in test_documented_null_answers(). */
static const api_entry api[] = {
    {"gatekit_version", call_gatekit_version, {END}, 1},
    {"gatekit_version_number", call_gatekit_version_number, {END}, 0},
    {"gatekit_strerror", call_gatekit_strerror, {INT, END}, 1},
    {"gatekit_last_error", call_gatekit_last_error, {END}, 1},
    {"gatekit_free", call_gatekit_free, {FREE_PTR, END}, 1},
    {"gatekit_hash_hex_size", call_gatekit_hash_hex_size, {END}, 0},
    {"gatekit_store_open", call_gatekit_store_open, {OUT_PTR, OPT_PATH, APP_ID, END}, 0},
    {"gatekit_store_close", call_gatekit_store_close, {FREE_PTR, END}, 1},
    {"gatekit_store_path", call_gatekit_store_path, {FREE_PTR, END}, 1},
    {"gatekit_store_check", call_gatekit_store_check, {STORE, END}, 0},
    {"eula_hash_file", call_eula_hash_file, {OUT_HASH, PATH, END}, 0},
    {"eula_hash_bytes", call_eula_hash_bytes, {OUT_HASH, DATA, LEN, END}, 0},
    {"eula_should_present", call_eula_should_present, {STORE, STR, PATH, OPT_BYTES, END}, 0},
    {"eula_should_present_hash", call_eula_should_present_hash, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_accept", call_eula_accept, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_decline", call_eula_decline, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_history", call_eula_history, {OUT_PTR, STORE, OPT_STR, OPT_BYTES, END}, 0},
    {"eula_history_all", call_eula_history_all, {OUT_PTR, STORE, OPT_STR, END}, 0},
    {"eula_mark_minor_revision", call_eula_mark_minor_revision, {STORE, STR, HASH, HASH, END}, 0},
};

/* ---- argument values ------------------------------------------------------------------ */

static char folder[] = "/tmp/gatekit-c-hostile-XXXXXX";
static char store_path[600], text_path[600];
static gatekit_store *store;     /* opened by each child: SQLite handles must not cross fork() */
static char store_sentinel;      /* stands for "the child's open store" in argument lists */
static void *out_slot;
static char hash_out[GATEKIT_HASH_HEX_SIZE];
static char *long_string;  /* 1 MiB of 'a' */
static const char valid_hash[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char non_utf8[] = "\xff\xfe\xc3\x28 \xed\xa0\x80 bad";
static const char bytes[] = "0123456789abcdef";  /* 16 bytes + NUL */

static arg valid_value(const api_entry *e, int k) {
    arg v = {0};
    switch (e->args[k]) {
    case STORE: v.p = &store_sentinel; break;
    case OUT_PTR: out_slot = NULL; v.p = &out_slot; break;
    case OUT_HASH: v.p = hash_out; break;
    case STR: v.s = "terms"; break;
    case OPT_STR: v.s = "terms"; break;
    case OPT_BYTES: v.s = "alice"; break;
    case HASH: v.s = valid_hash; break;
    case PATH: v.s = text_path; break;
    case OPT_PATH: v.s = store_path; break;
    case APP_ID: v.s = "com.example.hostile"; break;
    case DATA: v.p = (void *)bytes; break;
    case LEN: v.n = sizeof bytes - 1; break;
    case INT: v.i = 0; break;
    case FREE_PTR: v.p = NULL; break;
    case END: break;
    }
    return v;
}

typedef struct {
    const char *label;
    arg value;
    int must_be_einval;  /* NULL for a required pointer, a length without data */
} variant;

/* Hostile variants of argument k (given the whole row, for DATA/LEN pairs). */
static int variants_for(const api_entry *e, int k, variant *out) {
    int n = 0;
    kind what = e->args[k];
    int required = what == STORE || what == OUT_PTR || what == OUT_HASH || what == STR || what == HASH || what == PATH;
    switch (what) {
    case STORE: case OUT_PTR: case OUT_HASH: case STR: case OPT_STR: case OPT_BYTES:
    case HASH: case PATH: case OPT_PATH: case APP_ID: case DATA: case FREE_PTR:
        out[n++] = (variant){"NULL", {.p = NULL}, required};
        break;
    default: break;
    }
    switch (what) {
    case STR: case OPT_STR: case OPT_BYTES: case HASH: case PATH: case OPT_PATH: case APP_ID:
        out[n++] = (variant){"\"\"", {.s = ""}, 0};
        out[n++] = (variant){"non-UTF-8", {.s = non_utf8}, 0};
        out[n++] = (variant){"1 MiB string", {.s = long_string}, 0};
        break;
    default: break;
    }
    if (what == HASH) {
        out[n++] = (variant){"uppercase hash", {.s = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"}, 0};
        out[n++] = (variant){"63 hex digits", {.s = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a"}, 0};
        out[n++] = (variant){"65 hex digits", {.s = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0"}, 0};
    }
    if (what == PATH || what == OPT_PATH) {
        out[n++] = (variant){"a folder", {.s = folder}, 0};
        out[n++] = (variant){"missing file", {.s = "/nonexistent/gatekit/file"}, 0};
        out[n++] = (variant){"/dev/null", {.s = "/dev/null"}, 0};
    }
    if (what == APP_ID) {
        out[n++] = (variant){"\"../escape\"", {.s = "../escape"}, 0};
        out[n++] = (variant){"\"a/b\"", {.s = "a/b"}, 0};
    }
    if (what == LEN) {
        out[n++] = (variant){"0", {.n = 0}, 0};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 1};
        out[n++] = (variant){"(size_t)INT64_MAX + 1", {.n = (size_t)INT64_MAX + 1}, 1};
    }
    if (what == INT) {
        out[n++] = (variant){"INT_MIN", {.i = INT_MIN}, 0};
        out[n++] = (variant){"INT_MAX", {.i = INT_MAX}, 0};
        out[n++] = (variant){"-1", {.i = -1}, 0};
    }
    return n;
}

/* ---- running a call in a child ---------------------------------------------------------- */

enum { CHILD_OK = 0, CHILD_WRONG = 1, CHILD_SETUP = 2 };

static int run_isolated(const api_entry *e, arg *a, int must_be_einval, char *why, size_t why_len) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(5);
        char msg[512] = "";
        if (gatekit_store_open(&store, store_path, NULL) != 0) _exit(CHILD_SETUP);
        for (int k = 0; k < MAX_ARGS && e->args[k] != END; k++)
            if (a[k].p == &store_sentinel) a[k].p = store;
        int rc = e->call(a);
        int ok = 1;
        if (!e->returns_pointer) {
            if (must_be_einval && rc != GATEKIT_EINVAL) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d, expected GATEKIT_EINVAL", rc);
            } else if (rc == GATEKIT_EINTERNAL) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned GATEKIT_EINTERNAL (%s)", gatekit_last_error());
            } else if (rc < 0 && (!gatekit_last_error() || !*gatekit_last_error())) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d with an empty gatekit_last_error()", rc);
            } else if (rc < 0 && strcmp(gatekit_strerror(rc), "unknown error") == 0) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d, which is no GATEKIT_E* code", rc);
            }
        }
        gatekit_store_close(store);
        if (write(fds[1], msg, strlen(msg)) < 0) _exit(CHILD_SETUP);
        _exit(ok ? CHILD_OK : CHILD_WRONG);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], why, why_len - 1);
    why[got > 0 ? got : 0] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        snprintf(why, why_len, "CRASHED with signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return CHILD_WRONG;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : CHILD_WRONG;
}

static int arg_count(const api_entry *e) {
    int n = 0;
    while (n < MAX_ARGS && e->args[n] != END) n++;
    return n;
}

static int calls_run;

static void describe(char *buf, size_t len, const api_entry *e, int k, const char *label) {
    int n = snprintf(buf, len, "%s(", e->name);
    for (int j = 0; j < arg_count(e) && n > 0 && (size_t)n < len; j++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s", j ? ", " : "", j == k ? label : "valid");
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ")");
}

static void hammer(const api_entry *e) {
    int count = arg_count(e);
    arg a[MAX_ARGS];
    char why[512], call[256];
    /* The valid call first: it must not crash or claim an internal error. */
    for (int j = 0; j < count; j++) a[j] = valid_value(e, j);
    int r = run_isolated(e, a, 0, why, sizeof why);
    calls_run++;
    describe(call, sizeof call, e, -1, "");
    if (r != CHILD_OK) fprintf(stderr, "  %s: %s\n", call, why);
    CHECK(r == CHILD_OK);
    for (int k = 0; k < count; k++) {
        variant v[16];
        int nv = variants_for(e, k, v);
        for (int i = 0; i < nv; i++) {
            for (int j = 0; j < count; j++) a[j] = valid_value(e, j);
            a[k] = v[i].value;
            r = run_isolated(e, a, v[i].must_be_einval, why, sizeof why);
            calls_run++;
            describe(call, sizeof call, e, k, v[i].label);
            if (r != CHILD_OK) fprintf(stderr, "  %s: %s\n", call, why);
            CHECK(r == CHILD_OK);
        }
    }
}

/* ---- coverage of the header -------------------------------------------------------------- */

static void test_every_export_has_a_row(void) {
    const char *header = getenv("GATEKIT_HEADER") ? getenv("GATEKIT_HEADER") : "include/gatekit.h";
    FILE *f = fopen(header, "r");
    if (!f) {
        printf("  SKIP header coverage: cannot read %s (run from the repository root or set GATEKIT_HEADER)\n", header);
        return;
    }
    char line[1024];
    int declared = 0, missing = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "GATEKIT_API", 11) != 0) continue;
        char *paren = strchr(line, '(');
        if (!paren) continue;
        char *end = paren;
        while (end > line && (end[-1] == ' ')) end--;
        char *start = end;
        while (start > line && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') || (start[-1] >= '0' && start[-1] <= '9')))
            start--;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
        declared++;
        int found = 0;
        for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) found |= strcmp(api[i].name, name) == 0;
        if (!found) { fprintf(stderr, "  %s is exported but has no row in test_hostile.c\n", name); missing++; }
    }
    fclose(f);
    printf("  header: %d functions, %d without a hostile row\n", declared, missing);
    CHECK(declared > 0);
    CHECK(missing == 0);
}

/* The documented answers of the pointer-returning and void functions. */
static void test_documented_null_answers(void) {
    CHECK(gatekit_store_path(NULL) == NULL);
    gatekit_store_close(NULL);
    gatekit_free(NULL);
    CHECK(gatekit_strerror(INT_MIN) != NULL);
    CHECK_STR(gatekit_strerror(INT_MAX), "unknown error");
    CHECK(gatekit_last_error() != NULL);
}

int main(int argc, char **argv) {
    (void)argc;
    /* A crashing child must die at once: the Swift runtime's backtracer would otherwise
     * start a helper that keeps our pipes open (and can take 30 s+). Re-exec without it. */
    if (!getenv("SWIFT_BACKTRACE")) {
        setenv("SWIFT_BACKTRACE", "enable=no", 1);
        execv("/proc/self/exe", argv);
    }
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", folder);
    snprintf(text_path, sizeof text_path, "%s/EULA.txt", folder);
    FILE *t = fopen(text_path, "w");
    if (!t) return 2;
    fputs("Terms\n", t);
    fclose(t);
    long_string = malloc(1 << 20);
    if (!long_string) return 2;
    memset(long_string, 'a', (1 << 20) - 1);
    long_string[(1 << 20) - 1] = 0;
    /* NULL store paths resolve under the temporary folder, never the real home. */
    setenv("XDG_STATE_HOME", folder, 1);
    unsetenv("GATEKIT_STORE");
    if (gatekit_store_open(&store, store_path, NULL) != 0) { fprintf(stderr, "setup: %s\n", gatekit_last_error()); return 2; }
    gatekit_store_close(store);
    store = NULL;

    test_every_export_has_a_row();
    test_documented_null_answers();
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) hammer(&api[i]);
    printf("  %d isolated calls over %zu functions\n", calls_run, sizeof api / sizeof api[0]);

    free(long_string);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_hostile");
}
