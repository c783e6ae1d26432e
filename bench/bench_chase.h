/* bench_chase.h -- the machine's cost of one dependent load at random over a
 * region (a cache or TLB miss when the region is larger than the caches),
 * measured in the same process as a benchmark so that its figures can be
 * read against it (bench_engine, bench_scale).  Header-only: the benchmarks
 * are one file each. */
#ifndef MYRI_BENCH_CHASE_H
#define MYRI_BENCH_CHASE_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_chase_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Nanoseconds (CPU time) per dependent load over `bytes` bytes: `steps`
 * steps of a chase through one random cycle (Sattolo's shuffle) of 64-byte
 * lines; 0 when the region cannot be had. */
static inline double bench_chase_ns(uint64_t bytes, size_t steps)
{
    size_t n = (size_t)(bytes / 64);
    if (n < 2) return 0;
    uint64_t *a = aligned_alloc(64, n * 64);
    if (!a) return 0;
    for (size_t i = 0; i < n; i++) a[8 * i] = i;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = (size_t)(x % i), t = (size_t)a[8 * i];
        a[8 * i] = a[8 * j];
        a[8 * j] = t;
    }
    size_t p = 0;
    double t0 = bench_chase_cpu_s();
    for (size_t k = 0; k < steps; k++) p = (size_t)a[8 * p];
    double dt = bench_chase_cpu_s() - t0;
    free(a);
    return p == SIZE_MAX ? 0 : dt * 1e9 / (double)steps;
}

#endif
