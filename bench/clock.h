/*
 * clock.h — wall-clock and peak-RSS helpers shared by the benchmarks
 * (header-only; each bench is one translation unit). Define
 * _POSIX_C_SOURCE 200809L before any include in the bench that uses it.
 */
#ifndef CX_BENCH_CLOCK_H
#define CX_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* monotonic seconds */
static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* peak resident set size of this process, MiB */
static inline double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

#endif
