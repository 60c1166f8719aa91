/* A test's wrong clock: LD_PRELOAD this library and every CLOCK_REALTIME reading of the process
 * (clock_gettime, gettimeofday, time) is GATEKIT_TEST_CLOCK_OFFSET_MS later (or earlier, when
 * negative). Monotonic clocks are untouched. Built by python/tests/test_sync_hostile.py. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_ms(void) {
    const char *text = getenv("GATEKIT_TEST_CLOCK_OFFSET_MS");
    return text ? strtoll(text, NULL, 10) : 0;
}

static void shift(struct timespec *ts) {
    long long ns = (long long)ts->tv_nsec + (offset_ms() % 1000) * 1000000LL;
    ts->tv_sec += (time_t)(offset_ms() / 1000) + (time_t)(ns / 1000000000LL) - (ns < 0 ? 1 : 0);
    ts->tv_nsec = (long)((ns % 1000000000LL + 1000000000LL) % 1000000000LL);
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(clock, ts);
    if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) shift(ts);
    return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0 && tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
