/* On a test's alarm, every thread's stack on stderr before the process dies of it: a hang seen
 * once in many runs then says where each thread waited (backtrace(3): exported frames by name,
 * the others as library+offset). The handlers allocate nothing (the hang may hold malloc's
 * lock): threads are listed with getdents64, numbers written by hand. */
#ifndef GATEKIT_TEST_STACK_DUMP_H
#define GATEKIT_TEST_STACK_DUMP_H

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void stack_dump_write_number(const char *label, long n) {
    char digits[24];
    int i = (int)sizeof digits;
    do { digits[--i] = (char)('0' + n % 10); n /= 10; } while (n > 0 && i > 0);
    if (write(2, label, strlen(label)) < 0) return;
    if (write(2, digits + i, sizeof digits - (size_t)i) < 0) return;
    if (write(2, "\n", 1) < 0) return;
}

static void stack_dump_this_thread(int sig) {
    (void)sig;
    void *frames[64];
    int n = backtrace(frames, 64);
    stack_dump_write_number("-- stack of thread ", (long)syscall(SYS_gettid));
    backtrace_symbols_fd(frames, n, 2);
}

static void stack_dump_on_alarm(int sig) {
    stack_dump_write_number("-- alarm: every thread's stack, process ", (long)getpid());
    stack_dump_this_thread(sig);
    long self = (long)syscall(SYS_gettid);
    int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
    char buf[4096];
    long got;
    while (dir >= 0 && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long at = 0; at < got;) {
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);  /* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name */
            const char *name = buf + at + 19;
            long tid = 0;
            for (const char *p = name; *p >= '0' && *p <= '9'; p++) tid = tid * 10 + (*p - '0');
            if (tid > 0 && tid != self) {
                syscall(SYS_tgkill, (long)getpid(), tid, SIGUSR2);
                struct timespec pause = {0, 200 * 1000 * 1000};  /* one thread's stack at a time */
                nanosleep(&pause, NULL);
            }
            at += reclen;
        }
    }
    if (dir >= 0) close(dir);
    signal(SIGALRM, SIG_DFL);
    raise(SIGALRM);  /* dies of the alarm as before: the parent sees status 142 */
}

/* Call before alarm(2): the first backtrace loads the unwinder (it allocates) now, not in a handler. */
static inline void stack_dump_on_alarm_install(void) {
    void *warm[2];
    (void)backtrace(warm, 2);
    signal(SIGUSR2, stack_dump_this_thread);
    signal(SIGALRM, stack_dump_on_alarm);
}

#endif
