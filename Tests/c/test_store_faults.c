/* The store under faults: disk full (RLIMIT_FSIZE and a tiny tmpfs), read-only files and
 * folders, a store deleted or replaced while open, a parent path that is a file, truncated
 * and bit-flipped files, and SIGKILL at random points of a 4-process, 10,000-decision run.
 * Every case must give a specific error code (never a crash, never EINTERNAL), leave a
 * refused file byte-for-byte as it was, and lose no decision whose call returned.
 *
 * Environment: GATEKIT_FAULT_DECISIONS (default 10000) sizes the SIGKILL run;
 * GATEKIT_FAULT_SEED fixes its random kill points (printed on every run);
 * GATEKIT_SANITIZER (set by make test-asan / test-valgrind) shrinks the slow loads. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-faults-XXXXXX";

static const char *path_in(const char *name) { return check_path_in(folder, name); }

static void write_file(const char *path, const void *data, size_t len) {
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    if (len && fwrite(data, 1, len, f) != len) { perror(path); exit(2); }
    fclose(f);
}

static int same_bytes(const char *path, const unsigned char *data, size_t len) {
    size_t n = 0;
    unsigned char *now = check_read_file(path, &n);
    int same = now && n == len && memcmp(now, data, len) == 0;
    free(now);
    return same;
}

static void remove_store(const char *path) {
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);
}

/* A distinct, valid hash per (worker, index). */
static void hash_of(char out[GATEKIT_HASH_HEX_SIZE], int worker, int i) {
    char text[64];
    int n = snprintf(text, sizeof text, "w%d/%d", worker, i);
    if (eula_hash_bytes(out, text, (size_t)n) != 0) { fprintf(stderr, "hash failed\n"); exit(2); }
}

static int accept_indexed(gatekit_store *s, int worker, int i) {
    char doc[64], user[16], h[GATEKIT_HASH_HEX_SIZE];
    snprintf(doc, sizeof doc, "k%di%d", worker, i);
    snprintf(user, sizeof user, "w%d", worker);
    hash_of(h, worker, i);
    return eula_accept(s, doc, h, user);
}

static int is_present(gatekit_store *s, int worker, int i) {
    char doc[64], user[16], h[GATEKIT_HASH_HEX_SIZE];
    snprintf(doc, sizeof doc, "k%di%d", worker, i);
    snprintf(user, sizeof user, "w%d", worker);
    hash_of(h, worker, i);
    return eula_should_present_hash(s, doc, h, user) == 0;
}

/* A closed store holding `count` decisions of worker 0. */
static void make_store(const char *path, int count) {
    remove_store(path);
    gatekit_store *s = NULL;
    if (gatekit_store_open(&s, path, NULL) != 0) { fprintf(stderr, "make_store: %s\n", gatekit_last_error()); exit(2); }
    for (int i = 0; i < count; i++)
        if (accept_indexed(s, 0, i) != 0) { fprintf(stderr, "make_store: %s\n", gatekit_last_error()); exit(2); }
    gatekit_store_close(s);
}

/* ---- disk full --------------------------------------------------------------------- */

static const char *full_path;
static int full_pipe[2];

/* Writes until the disk is "full"; reports how many calls returned 0 and the error. */
static int fill_until_error(void) {
    signal(SIGXFSZ, SIG_IGN);  /* a write past RLIMIT_FSIZE then fails with EFBIG */
    gatekit_store *s = NULL;
    int rc = gatekit_store_open(&s, full_path, NULL);
    if (rc != 0) { fprintf(stderr, "open: %s\n", gatekit_last_error()); return 1; }
    struct rlimit limit = {128 * 1024, 128 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) { perror("setrlimit"); return 1; }
    int acked = 0;
    for (; acked < 100000; acked++) {
        rc = accept_indexed(s, 0, acked);
        if (rc != 0) break;
    }
    int again = accept_indexed(s, 0, acked);       /* still full: a clean error again */
    int readable = acked > 0 && is_present(s, 0, acked - 1);  /* reads keep working */
    char detail[256] = "";
    snprintf(detail, sizeof detail, "%s", gatekit_last_error());
    int report[4] = {acked, rc, again, readable};
    if (write(full_pipe[1], report, sizeof report) != sizeof report) return 1;
    if (write(full_pipe[1], detail, sizeof detail) != sizeof detail) return 1;
    gatekit_store_close(s);
    return 0;
}

static void test_disk_full_rlimit(void) {
    full_path = path_in("full.sqlite");
    remove_store(full_path);
    if (pipe(full_pipe) != 0) { perror("pipe"); exit(2); }
    CHECK(check_in_child(0, fill_until_error) == 0);
    int report[4] = {0, 0, 0, 0};
    char detail[256] = "";
    CHECK(read(full_pipe[0], report, sizeof report) == sizeof report);
    CHECK(read(full_pipe[0], detail, sizeof detail) == sizeof detail);
    close(full_pipe[0]);
    close(full_pipe[1]);
    printf("  RLIMIT_FSIZE 128 KiB: %d decisions, then %d (%s): %s\n", report[0], report[1], gatekit_strerror(report[1]), detail);
    CHECK(report[0] > 0);
    CHECK_RC(report[1], GATEKIT_EIO);
    CHECK_RC(report[2], GATEKIT_EIO);
    CHECK(report[3] == 1);

    /* Space is back: every decision whose call returned is there, and writing works. */
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, full_path, NULL), GATEKIT_OK);
    if (!s) return;
    CHECK_RC(gatekit_store_check(s), GATEKIT_OK);
    int missing = 0;
    for (int i = 0; i < report[0]; i++) missing += !is_present(s, 0, i);
    CHECK(missing == 0);
    CHECK_RC(accept_indexed(s, 0, report[0]), GATEKIT_OK);
    gatekit_store_close(s);
}

static void test_disk_full_tmpfs(void) {
    const char *mnt = path_in("tmpfs");
    mkdir(mnt, 0700);
    if (geteuid() != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=512k") != 0) {
        printf("  SKIP tiny tmpfs: cannot mount a tmpfs here (%s); RLIMIT_FSIZE covers disk full\n",
               geteuid() != 0 ? "not root" : strerror(errno));
        return;
    }
    char store[600], filler[600];
    snprintf(store, sizeof store, "%s/s.sqlite", mnt);
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    static unsigned char block[32 * 1024];  /* leaves room for the schema (v8: ~45 tables and indexes, a page each) and some decisions */
    write_file(filler, block, sizeof block);

    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, store, NULL), GATEKIT_OK);
    if (s) {
        int acked = 0, rc = 0;
        for (; acked < 100000 && (rc = accept_indexed(s, 0, acked)) == 0; acked++) {}
        printf("  tmpfs 512 KiB: %d decisions, then %d (%s): %s\n", acked, rc, gatekit_strerror(rc), gatekit_last_error());
        CHECK(acked > 0);
        CHECK_RC(rc, GATEKIT_EIO);
        CHECK_RC(accept_indexed(s, 0, acked), GATEKIT_EIO);
        CHECK(acked == 0 || is_present(s, 0, acked - 1));
        /* Free space on the same handle: it recovers without reopening. */
        unlink(filler);
        CHECK_RC(accept_indexed(s, 0, acked), GATEKIT_OK);
        int missing = 0;
        for (int i = 0; i <= acked; i++) missing += !is_present(s, 0, i);
        CHECK(missing == 0);
        CHECK_RC(gatekit_store_check(s), GATEKIT_OK);
        gatekit_store_close(s);
    }
    if (umount2(mnt, MNT_DETACH) != 0) perror("umount tmpfs");
}

/* ---- read-only ----------------------------------------------------------------------- */

static const char *ro_store;
static unsigned char *ro_before;
static size_t ro_len;

/* Read-only file in a folder the user cannot write: refused at open, untouched. */
static int ro_file_ro_folder(void) {
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, ro_store, NULL), GATEKIT_EREADONLY);
    CHECK(strstr(gatekit_last_error(), "untouched") != NULL);
    CHECK(same_bytes(ro_store, ro_before, ro_len));
    gatekit_store_close(s);
    return check_failed;
}

static size_t exported_bytes;

static int count_bytes(void *context, const void *bytes, size_t length) {
    (void)bytes;
    *(size_t *)context += length;
    return 0;
}

/* Read-only file in a folder the user owns: reads answer, writes fail with EREADONLY. */
static int ro_file_rw_folder(void) {
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, ro_store, NULL), GATEKIT_OK);
    if (!s) return 1;
    CHECK(is_present(s, 0, 0));
    CHECK_RC(accept_indexed(s, 0, 999), GATEKIT_EREADONLY);
    CHECK_RC(eula_mark_minor_revision(s, "k0i0", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                                      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), GATEKIT_EREADONLY);
    CHECK_RC(gatekit_store_check(s), GATEKIT_OK);
    /* An export is recorded in the store (its digest): refused before a byte is written. */
    CHECK_RC(eula_export(NULL, s, NULL, NULL, GATEKIT_EULA_EXPORT_EVERYONE, count_bytes, &exported_bytes), GATEKIT_EREADONLY);
    CHECK(exported_bytes == 0);
    gatekit_store_close(s);
    CHECK(same_bytes(ro_store, ro_before, ro_len));
    return check_failed;
}

/* A new store in a folder the user cannot write. */
static int new_store_in_ro_folder(void) {
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, path_in("ro/new.sqlite"), NULL), GATEKIT_EIO);
    CHECK(access(path_in("ro/new.sqlite"), F_OK) != 0);
    return check_failed;
}

static void test_read_only(void) {
    const char *dir = path_in("ro");
    mkdir(dir, 0755);
    static char store[600];
    snprintf(store, sizeof store, "%s/s.sqlite", dir);
    ro_store = store;
    make_store(ro_store, 3);
    chmod(ro_store, 0444);
    /* The children are "nobody": it is their own read-only store (another user's is EUNSAFE). */
    if (geteuid() == 0) CHECK(chown(ro_store, CHECK_NOBODY_ID, CHECK_NOBODY_ID) == 0);
    ro_before = check_read_file(ro_store, &ro_len);
    int root = geteuid() == 0;
    /* Root ignores permissions: the children drop to "nobody" (65534). */
    if (!root) chmod(dir, 0555);
    CHECK(check_in_child(1, ro_file_ro_folder) == 0);
    CHECK(check_in_child(1, new_store_in_ro_folder) == 0);
    if (root) CHECK(chown(dir, CHECK_NOBODY_ID, CHECK_NOBODY_ID) == 0);
    else chmod(dir, 0755);
    CHECK(check_in_child(1, ro_file_rw_folder) == 0);
    if (root) CHECK(chown(dir, 0, 0) == 0);
    chmod(ro_store, 0644);
    free(ro_before);
}

/* ---- deleted, replaced, impossible paths --------------------------------------------- */

static void test_deleted_or_replaced_while_open(void) {
    const char *path = path_in("deleted.sqlite");
    make_store(path, 2);
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, path, NULL), GATEKIT_OK);
    if (!s) return;
    remove_store(path);
    /* Writing would go to the orphaned inode and vanish: refused instead. */
    CHECK_RC(accept_indexed(s, 0, 10), GATEKIT_EIO);
    CHECK(strstr(gatekit_last_error(), "deleted or replaced") != NULL);
    CHECK(is_present(s, 0, 1));  /* reads still answer from what was there */
    CHECK(access(path, F_OK) != 0);
    gatekit_store_close(s);

    /* Replaced by another store (rename over it): also refused on the old handle. */
    make_store(path, 1);
    CHECK_RC(gatekit_store_open(&s, path, NULL), GATEKIT_OK);
    if (!s) return;
    make_store(path_in("other.sqlite"), 1);
    CHECK(rename(path_in("other.sqlite"), path) == 0);
    CHECK_RC(accept_indexed(s, 0, 11), GATEKIT_EIO);
    gatekit_store_close(s);
    /* Reopening works on the new file. */
    CHECK_RC(gatekit_store_open(&s, path, NULL), GATEKIT_OK);
    if (s) CHECK_RC(accept_indexed(s, 0, 12), GATEKIT_OK);
    gatekit_store_close(s);
}

static void test_parent_is_a_file(void) {
    write_file(path_in("plain"), "x", 1);
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, path_in("plain/s.sqlite"), NULL), GATEKIT_EIO);
    CHECK(strstr(gatekit_last_error(), "plain") != NULL);
    CHECK(s == NULL);
    CHECK_RC(gatekit_store_open(&s, path_in("plain/deeper/s.sqlite"), NULL), GATEKIT_EIO);
    CHECK(same_bytes(path_in("plain"), (const unsigned char *)"x", 1));
    CHECK_RC(gatekit_store_open(&s, folder, NULL), GATEKIT_EINVAL);  /* a folder */
}

/* ---- damaged files ------------------------------------------------------------------- */

/* Runs `gatekit store check` on path; returns its exit status (-1 without the tool). */
static int tool_check(const char *path) {
    const char *tool = getenv("GATEKIT_TOOL");
    if (!tool || access(tool, X_OK) != 0) return -1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' --store '%s' store check >/dev/null 2>&1", tool, path);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Opens a damaged copy: expect `code`, the file untouched, and `gatekit store check` exit 5. */
static void expect_refused(const char *what, const unsigned char *data, size_t len, int code) {
    const char *path = path_in("damaged.sqlite");
    remove_store(path);
    write_file(path, data, len);
    gatekit_store *s = NULL;
    int rc = gatekit_store_open(&s, path, NULL);
    if (rc != code) fprintf(stderr, "  %s: open gave %d (%s)\n", what, rc, gatekit_last_error());
    CHECK_RC(rc, code);
    CHECK(s == NULL);
    CHECK(same_bytes(path, data, len));
    gatekit_store_close(s);
    int tool = tool_check(path);
    if (tool >= 0) CHECK(tool == 5);
    CHECK(same_bytes(path, data, len));
}

static void test_truncated_and_flipped(void) {
    const char *path = path_in("sound.sqlite");
    make_store(path, 300);  /* several pages, checkpointed into the main file on close */
    size_t len = 0;
    unsigned char *sound = check_read_file(path, &len);
    CHECK(sound != NULL && len >= 4 * 4096);
    if (!sound) return;
    int tool = tool_check(path);
    if (tool < 0) printf("  SKIP gatekit store check: $GATEKIT_TOOL not set (make test-c sets it)\n");
    else CHECK(tool == 0);

    expect_refused("truncated to 10 bytes", sound, 10, GATEKIT_ENOTSTORE);
    expect_refused("truncated to 60 bytes", sound, 60, GATEKIT_ECORRUPT);
    expect_refused("truncated to one page", sound, 4096, GATEKIT_ECORRUPT);
    expect_refused("truncated to half", sound, len / 2 / 4096 * 4096, GATEKIT_ECORRUPT);
    expect_refused("truncated by one byte", sound, len - 1, GATEKIT_ECORRUPT);

    unsigned char *copy = malloc(len);
    if (!copy) return;
    /* Structural bytes: page 1's b-tree page type, page 2's page type, a cell pointer. */
    const size_t structural[] = {100, 4096, 4096 + 8};
    for (size_t k = 0; k < sizeof structural / sizeof structural[0]; k++) {
        memcpy(copy, sound, len);
        copy[structural[k]] ^= 0x40;
        char what[64];
        snprintf(what, sizeof what, "bit flipped at byte %zu", structural[k]);
        expect_refused(what, copy, len, GATEKIT_ECORRUPT);
    }
    free(copy);
    free(sound);
}

/* A sweep of single-bit flips over the whole file: every outcome is a clean answer. */
static int flip_sweep(void) {
    const char *path = path_in("sound.sqlite");
    size_t len = 0;
    unsigned char *sound = check_read_file(path, &len);
    if (!sound) return 1;
    unsigned char *copy = malloc(len);
    const char *flipped = path_in("flipped.sqlite");
    int opened = 0, refused = 0, bad = 0;
    /* Every 127th byte: 32 flips a page, at offsets that move from page to page (4096 mod 127
     * = 32), headers included; the store-file fuzz target damages files at random besides. */
    size_t stride = getenv("GATEKIT_SANITIZER") ? 307 : 127;  /* valgrind: ~50x slower per open */
    for (size_t at = 0; copy && at < len; at += stride) {
        memcpy(copy, sound, len);
        copy[at] ^= (unsigned char)(1u << (at % 8));
        remove_store(flipped);
        write_file(flipped, copy, len);
        gatekit_store *s = NULL;
        int rc = gatekit_store_open(&s, flipped, NULL);
        if (rc == 0) {
            opened++;
            char *json = NULL;
            int h = eula_history_all(&json, s, NULL);
            int c = gatekit_store_check(s);
            if ((h != 0 && h != GATEKIT_ECORRUPT) || (c != 0 && c != GATEKIT_ECORRUPT)) {
                fprintf(stderr, "  flip at %zu: history %d, check %d (%s)\n", at, h, c, gatekit_last_error());
                bad++;
            }
            gatekit_free(json);
            gatekit_store_close(s);
        } else {
            refused++;
            int expected = rc == GATEKIT_ECORRUPT || rc == GATEKIT_ENOTSTORE || rc == GATEKIT_ENEWER;
            if (!expected || !same_bytes(flipped, copy, len)) {
                fprintf(stderr, "  flip at %zu: open %d (%s), untouched %d\n", at, rc, gatekit_last_error(), same_bytes(flipped, copy, len));
                bad++;
            }
        }
    }
    printf("  bit-flip sweep: %d opened, %d refused cleanly, %d bad\n", opened, refused, bad);
    free(copy);
    free(sound);
    return bad;
}

static void test_flip_sweep(void) {
    CHECK(check_in_child(0, flip_sweep) == 0);  /* a crash would show as 128+signal */
}

static void test_damaged_empty_database(void) {
    /* Found by the store-file fuzz target: a damaged schema-less SQLite file was written to. */
    const char *input = "Tests/fuzz-regressions/store-file/damaged-empty-database";
    size_t len = 0;
    unsigned char *data = check_read_file(input, &len);
    if (!data) {
        printf("  SKIP %s: not found (run from the repository root)\n", input);
        return;
    }
    expect_refused("damaged empty database", data, len, GATEKIT_ECORRUPT);
    free(data);
}

/* ---- many processes creating one new store at once ---------------------------------- */

/* Found by make test-asan: a process could read the schema of a store another process was
 * just creating across that process's commit and refuse it as "not a GateKit store". */
static void test_concurrent_creation(void) {
    enum { PROCS = 8 };
    int rounds = getenv("GATEKIT_SANITIZER") ? 5 : 25, failures = 0;
    for (int round = 0; round < rounds; round++) {
        char name[64];
        snprintf(name, sizeof name, "created-%d.sqlite", round);
        const char *path = path_in(name);
        remove_store(path);
        int go[2];
        if (pipe(go) != 0) { perror("pipe"); exit(2); }
        pid_t pid[PROCS];
        fflush(NULL);
        for (int p = 0; p < PROCS; p++) {
            pid[p] = fork();
            if (pid[p] == 0) {
                close(go[1]);
                char c;
                if (read(go[0], &c, 1) < 0) _exit(3);  /* start together */
                gatekit_store *s = NULL;
                int rc = gatekit_store_open(&s, path, NULL);
                if (rc != 0) { fprintf(stderr, "  round %d: open gave %d: %s\n", round, rc, gatekit_last_error()); _exit(1); }
                rc = accept_indexed(s, p, round);
                if (rc != 0) { fprintf(stderr, "  round %d: accept gave %d: %s\n", round, rc, gatekit_last_error()); _exit(1); }
                gatekit_store_close(s);
                _exit(0);
            }
        }
        close(go[0]);
        close(go[1]);  /* EOF releases every child at once */
        for (int p = 0; p < PROCS; p++) {
            int status = 0;
            waitpid(pid[p], &status, 0);
            failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
    }
    printf("  concurrent creation: %d rounds of %d processes opening one new store, %d failures\n", rounds, PROCS, failures);
    CHECK(failures == 0);
}

/* ---- SIGKILL during a multi-process run ---------------------------------------------- */

enum { WORKERS = 4 };

static int worker_run(const char *path, int worker, int from, int to, int ack_fd) {
    gatekit_store *s = NULL;
    int rc = gatekit_store_open(&s, path, NULL);
    if (rc != 0) { fprintf(stderr, "worker %d open: %s\n", worker, gatekit_last_error()); return 1; }
    for (int i = from; i < to; i++) {
        rc = accept_indexed(s, worker, i);
        if (rc != 0) { fprintf(stderr, "worker %d decision %d: %d %s\n", worker, i, rc, gatekit_last_error()); return 1; }
        if (write(ack_fd, &i, sizeof i) != sizeof i) return 1;  /* the call returned: acknowledged */
    }
    gatekit_store_close(s);
    return 0;
}

static pid_t spawn_worker(const char *path, int worker, int from, int to, int *read_fd) {
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); exit(2); }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(worker_run(path, worker, from, to, fds[1]));
    }
    close(fds[1]);
    *read_fd = fds[0];
    return pid;
}

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static void test_sigkill_multiprocess(void) {
    const char *env = getenv("GATEKIT_FAULT_DECISIONS");
    int total = env ? atoi(env) : (getenv("GATEKIT_SANITIZER") ? 800 : 10000);
    if (total < WORKERS) total = WORKERS;
    const char *seed_env = getenv("GATEKIT_FAULT_SEED");
    unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    int per = total / WORKERS;
    const char *path = path_in("killed.sqlite");
    remove_store(path);
    { gatekit_store *s = NULL; CHECK_RC(gatekit_store_open(&s, path, NULL), GATEKIT_OK); gatekit_store_close(s); }

    pid_t pid[WORKERS];
    int fd[WORKERS], acked[WORKERS], kills[WORKERS], done[WORKERS], failures = 0;
    for (int w = 0; w < WORKERS; w++) {
        acked[w] = -1; kills[w] = 0; done[w] = 0;
        pid[w] = spawn_worker(path, w, 0, per, &fd[w]);
    }
    long started = now_ms(), next_kill = now_ms() + 2 + rand() % 25;
    int running = WORKERS, total_kills = 0;
    while (running > 0) {
        struct pollfd p[WORKERS];
        for (int w = 0; w < WORKERS; w++) { p[w].fd = done[w] ? -1 : fd[w]; p[w].events = POLLIN; }
        poll(p, WORKERS, 10);
        for (int w = 0; w < WORKERS; w++) {
            if (done[w] || !(p[w].revents & (POLLIN | POLLHUP))) continue;
            int i;
            ssize_t n;
            while ((n = read(fd[w], &i, sizeof i)) == sizeof i) {
                if (i != acked[w] + 1) { fprintf(stderr, "worker %d acked %d after %d\n", w, i, acked[w]); failures++; }
                acked[w] = i;
                if (p[w].revents & POLLHUP) continue;  /* drain everything before reaping */
                break;
            }
            if (n == 0) {  /* the worker exited */
                int status = 0;
                waitpid(pid[w], &status, 0);
                close(fd[w]);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "worker %d failed (status %d)\n", w, status); failures++; }
                if (acked[w] + 1 < per && WIFEXITED(status) && WEXITSTATUS(status) == 0) failures++;
                done[w] = 1;
                running--;
            }
        }
        if (now_ms() >= next_kill && running > 0) {
            int w = rand() % WORKERS;
            if (!done[w] && acked[w] + 1 < per) {
                kill(pid[w], SIGKILL);
                int status = 0;
                waitpid(pid[w], &status, 0);
                int i;
                while (read(fd[w], &i, sizeof i) == sizeof i) {  /* acks written before the kill */
                    if (i != acked[w] + 1) failures++;
                    acked[w] = i;
                }
                close(fd[w]);
                kills[w]++;
                total_kills++;
                pid[w] = spawn_worker(path, w, acked[w] + 1, per, &fd[w]);  /* resume after the last ack */
            }
            next_kill = now_ms() + 2 + rand() % 25;
        }
    }
    long elapsed = now_ms() - started;
    CHECK(failures == 0);
    for (int w = 0; w < WORKERS; w++) CHECK(acked[w] == per - 1);

    /* Recovery: every acknowledged decision is there; each worker's history is its indices in
     * order, each once, except that a decision in flight at a kill may be there twice. */
    gatekit_store *s = NULL;
    CHECK_RC(gatekit_store_open(&s, path, NULL), GATEKIT_OK);
    if (!s) return;
    CHECK_RC(gatekit_store_check(s), GATEKIT_OK);
    int missing = 0;
    for (int w = 0; w < WORKERS; w++)
        for (int i = 0; i < per; i++) missing += !is_present(s, w, i);
    CHECK(missing == 0);
    char *json = NULL;
    CHECK_RC(eula_history_all(&json, s, NULL), GATEKIT_OK);
    int last[WORKERS], entries[WORKERS], repeats[WORKERS], disorder = 0;
    for (int w = 0; w < WORKERS; w++) { last[w] = -1; entries[w] = 0; repeats[w] = 0; }
    for (const char *p = json ? strstr(json, "\"document_id\":\"k") : NULL; p; p = strstr(p + 1, "\"document_id\":\"k")) {
        int w = -1, i = -1;
        if (sscanf(p, "\"document_id\":\"k%di%d\"", &w, &i) != 2 || w < 0 || w >= WORKERS) { disorder++; continue; }
        entries[w]++;
        if (i == last[w]) repeats[w]++;
        else if (i != last[w] + 1) disorder++;
        last[w] = i;
    }
    CHECK(disorder == 0);
    for (int w = 0; w < WORKERS; w++) {
        CHECK(entries[w] == per + repeats[w]);
        CHECK(repeats[w] <= kills[w]);
    }
    gatekit_free(json);
    gatekit_store_close(s);
    int repeated = 0;
    for (int w = 0; w < WORKERS; w++) repeated += repeats[w];
    printf("  SIGKILL run: %d decisions by %d processes in %ld ms, %d kills (seed %u, GATEKIT_FAULT_SEED=%u to replay),\n"
           "  all acknowledged decisions present, %d in-flight decisions committed before their kill, check ok\n",
           per * WORKERS, WORKERS, elapsed, total_kills, seed, seed, repeated);
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    chmod(folder, 0755);  /* the unprivileged children must reach their files */
    signal(SIGPIPE, SIG_IGN);
    /* GATEKIT_FAULT_ONLY=name runs one case (e.g. read_only, sigkill_multiprocess). */
#define RUN(name) do { const char *only_ = getenv("GATEKIT_FAULT_ONLY"); \
        if (!only_ || strcmp(only_, #name) == 0) test_##name(); } while (0)
    RUN(disk_full_rlimit);
    RUN(disk_full_tmpfs);
    RUN(read_only);
    RUN(deleted_or_replaced_while_open);
    RUN(parent_is_a_file);
    RUN(truncated_and_flipped);
    RUN(flip_sweep);
    RUN(damaged_empty_database);
    RUN(concurrent_creation);
    RUN(sigkill_multiprocess);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_store_faults");
}
