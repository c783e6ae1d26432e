/* bench_engine.c -- the event engine under the classic hold model.
 *
 * Runs the hold model at 10 000 and 1 000 000 pending events (targets of
 * MISSION.md: >= 15 M events/s and >= 4 M events/s on the 2-core machine)
 * with fixed seeds, and prints events per second and the hash of the event
 * sequence (a speed run is also a correctness run: the hash must not change
 * when the engine is optimised).  Then, for issue 13, the engine against a
 * baseline measured in the same run: a plain binary heap of the engine's keys
 * (time, then round, logical process and that process's sequence number, as
 * the engine packs them into 64 bits: docs/ENGINE.md "Time and order"; the
 * hold model's one component schedules every event, as in the engine run)
 * doing the same hold model (each event drawn after an exponential hold
 * from a random stream of the same kind), at 1e3, 1e4, 1e5 and 1e6 pending
 * events, the two interleaved, three times each, the best run of each kept
 * (CPU time: on a shared machine the least disturbed run is the closest to
 * the code's own cost); the ratio engine / heap in events per second
 * (>= 1: the engine is at least as fast; issue 24 asks for >= 3 at every
 * count and >= 6 at 1e6).  Beside them, each one's cost per event in ns and
 * the machine's cost of one cache miss, measured here: a chase of dependent
 * loads through a random cycle of 64-byte lines over 64 MiB (past this
 * machine's L2 and its share of L3; CPU time).  Output: aligned text, then
 * one JSON line per case.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_chase.h"

#include <sys/resource.h>

#include "app/hold.h"
#include "myri/rng.h"

typedef struct be__key {
    uint64_t t, ord; /* ord: round << 52 | logical process << 32 | its sequence number */
} be__key;

static int be__less(const be__key *a, const be__key *b) { return a->t < b->t || (a->t == b->t && a->ord < b->ord); }

/* The key of an event that process 0 schedules at t, the running event at
 * now of round `round` (set-up: round 0, as the engine). */
static be__key be__mk(uint64_t t, uint64_t now, uint64_t round, uint64_t *seq)
{
    uint64_t r = t == now ? round + 1 : 0;
    return (be__key){t, r << 52 | (*seq)++};
}

/* The process's CPU time (the machine is shared: other processes' time slices do not count). */
static double be__cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The baseline: the hold model on a plain binary heap; returns events per CPU second, *hash the sequence's hash. */
static double be__heap_hold(uint64_t pending, uint64_t events, uint64_t mean_ps, uint64_t *hash)
{
    be__key *h = malloc(pending * sizeof *h);
    if (!h) return 0;
    myri_rng rng;
    myri_rng_seed(&rng, 1);
    uint64_t seq = 1, hs = UINT64_C(0xcbf29ce484222325);
    for (uint64_t i = 0; i < pending; i++) { /* sift up each */
        be__key k = be__mk((uint64_t)(myri_rng_exponential(&rng, (double)mean_ps) + 0.5), UINT64_MAX, 0, &seq);
        size_t j = i;
        while (j > 0 && be__less(&k, &h[(j - 1) / 2])) h[j] = h[(j - 1) / 2], j = (j - 1) / 2;
        h[j] = k;
    }
    double t0 = be__cpu_now();
    for (uint64_t e = 0; e < events; e++) {
        uint64_t now = h[0].t;
        hs = (hs ^ now) * UINT64_C(0x100000001b3);
        /* replace the top by its successor and sift it down */
        be__key k = be__mk(now + (uint64_t)(myri_rng_exponential(&rng, (double)mean_ps) + 0.5), now, h[0].ord >> 52, &seq);
        size_t j = 0;
        for (;;) {
            size_t c = 2 * j + 1;
            if (c >= pending) break;
            if (c + 1 < pending && be__less(&h[c + 1], &h[c])) c++;
            if (!be__less(&h[c], &k)) break;
            h[j] = h[c];
            j = c;
        }
        h[j] = k;
    }
    double dt = be__cpu_now() - t0;
    free(h);
    *hash = hs;
    return dt > 0 ? (double)events / dt : 0;
}

static double be__miss_ns(uint64_t bytes) { return bench_chase_ns(bytes, 4000000); }

static int be__targets(myri_hold_result r[2])
{
    static const struct {
        uint64_t pending, events;
        double target;
    } cases[] = {{10000, 30000000, 15e6}, {1000000, 20000000, 4e6}};
    printf("%-10s %12s %12s %10s %14s %10s  %s\n", "benchmark", "pending", "events", "wall_s", "events/s",
           "target", "hash");
    for (int i = 0; i < 2; i++) {
        if (myri_hold_bench(1, cases[i].pending, cases[i].events, 1000000, &r[i]) != MYRI_OK) {
            fprintf(stderr, "bench_engine: run failed\n");
            return 1;
        }
        printf("%-10s %12" PRIu64 " %12" PRIu64 " %10.3f %14.0f %10.0f  0x%016" PRIx64 "\n", "hold", r[i].pending,
               r[i].events, r[i].wall_s, r[i].events_per_sec, cases[i].target, r[i].hash);
    }
    for (int i = 0; i < 2; i++)
        printf("{\"benchmark\":\"engine-hold\",\"pending\":%" PRIu64 ",\"events\":%" PRIu64
               ",\"wall_s\":%.6f,\"events_per_sec\":%.0f,\"target_events_per_sec\":%.0f,\"hash\":\"0x%016" PRIx64
               "\"}\n",
               r[i].pending, r[i].events, r[i].wall_s, r[i].events_per_sec, cases[i].target, r[i].hash);
    return 0;
}

int main(int argc, char **argv)
{
    myri_hold_result r[2];
    bool vs_heap_only = argc > 1 && !strcmp(argv[1], "--vs-heap"); /* the comparison alone */
    if (!vs_heap_only && be__targets(r)) return 1;
    double miss = be__miss_ns(64ull << 20);
    printf("\nengine against a plain binary heap, hold model, same run, interleaved, events per CPU second, "
           "best of 3 pairs of 4 M events (issue 13: ratio >= 1; issue 24: >= 3, >= 6 at 1e6)\n");
    printf("one cache miss (dependent loads at random over 64 MiB, CPU time): %.1f ns\n", miss);
    printf("%12s %14s %14s %8s %10s %10s %10s  %-18s  %s\n", "pending", "engine_ev/s", "heap_ev/s", "ratio",
           "engine_ns", "heap_ns", "miss_ns", "engine_hash", "heap_hash");
    static const uint64_t pend[] = {1000, 10000, 100000, 1000000};
    for (int i = 0; i < 4; i++) {
        /* best of three interleaved pairs (the machine is shared: the least disturbed run of each) */
        uint64_t events = 4000000, hh = 0;
        double heap = 0;
        myri_hold_result e = {0};
        for (int rep = 0; rep < 3; rep++) {
            double hr = be__heap_hold(pend[i], events, 1000000, &hh);
            myri_hold_result er;
            if (myri_hold_bench(1, pend[i], events, 1000000, &er) != MYRI_OK || hr <= 0 || er.cpu_s <= 0) {
                fprintf(stderr, "bench_engine: run failed\n");
                return 1;
            }
            er.events_per_sec = (double)er.events / er.cpu_s; /* per CPU second, as the heap's */
            if (hr > heap) heap = hr;
            if (er.events_per_sec > e.events_per_sec) e = er;
        }
        printf("%12" PRIu64 " %14.0f %14.0f %8.2f %10.1f %10.1f %10.1f  0x%016" PRIx64 "  0x%016" PRIx64 "\n", pend[i],
               e.events_per_sec, heap, e.events_per_sec / heap, 1e9 / e.events_per_sec, 1e9 / heap, miss, e.hash, hh);
        printf("{\"benchmark\":\"engine-vs-heap\",\"pending\":%" PRIu64 ",\"engine_events_per_sec\":%.0f,"
               "\"heap_events_per_sec\":%.0f,\"ratio\":%.3f,\"engine_ns_per_event\":%.2f,\"heap_ns_per_event\":%.2f,"
               "\"cache_miss_ns\":%.2f}\n",
               pend[i], e.events_per_sec, heap, e.events_per_sec / heap, 1e9 / e.events_per_sec, 1e9 / heap, miss);
    }
    return 0;
}
