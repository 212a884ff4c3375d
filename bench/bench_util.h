/* Timing helpers shared by the benchmarks (each bench/bench_*.c is its own
 * executable, hence static inline). */
#ifndef OSSA_BENCH_UTIL_H
#define OSSA_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Nanoseconds from the given clock (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...). */
static inline double bench_clock_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n); sorts v in place (so v[0] is the minimum afterwards). */
static inline double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
