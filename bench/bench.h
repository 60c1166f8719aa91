/* A tiny benchmark harness: run a body many times, report the median (and p10/p90) in
 * nanoseconds. Every figure is printed beside its reference, measured in the same run. */
#ifndef GATEKIT_BENCH_H
#define GATEKIT_BENCH_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct { double median, p10, p90; int runs; } bench_stats;

static inline bench_stats bench_summarize(uint64_t *samples, int n) {
    qsort(samples, (size_t)n, sizeof samples[0], bench_cmp_u64);
    bench_stats s = {(double)samples[n / 2], (double)samples[n / 10], (double)samples[n * 9 / 10], n};
    return s;
}

/* Runs body(ctx) `warmup` times unmeasured, then `runs` times measured, one sample each. */
static inline bench_stats bench_run(int (*body)(void *), void *ctx, int warmup, int runs) {
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)runs);
    if (!samples) { perror("malloc"); exit(2); }
    for (int i = 0; i < warmup; i++) if (body(ctx) != 0) { fprintf(stderr, "bench: body failed\n"); exit(1); }
    for (int i = 0; i < runs; i++) {
        uint64_t t0 = bench_now_ns();
        if (body(ctx) != 0) { fprintf(stderr, "bench: body failed\n"); exit(1); }
        samples[i] = bench_now_ns() - t0;
    }
    bench_stats s = bench_summarize(samples, runs);
    free(samples);
    return s;
}

static inline void bench_header(const char *title) {
    printf("\n### %s\n\n| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|\n", title);
}

static inline void bench_row(const char *name, bench_stats s) {
    printf("| %s | %.1f µs | %.1f µs | %.1f µs | %d |\n", name, s.median / 1e3, s.p10 / 1e3, s.p90 / 1e3, s.runs);
}

#endif
