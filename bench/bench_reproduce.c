/* bench_reproduce.c -- the simulation part of `myri reproduce seed004`
 * (MISSION.md target: both simulation models at all six arrival rates, HDMA
 * queue length within +-2 % (95 %), in under 10 s on the 2-core machine).
 *
 * Cases (fixed seed 1, precision 0.02):
 *   cv, 2 threads     what `myri reproduce seed004` runs (control variates)
 *   cv, 1 thread      the same on one core (same results, same hash)
 *   plain, 2 threads  plain batch means at the three lowest rates only, to
 *                     show the cost without control variates (the full plain
 *                     run needs minutes at rho = 0.98; see docs/NICSIM.md)
 * Prints wall time, simulated arrivals and events, and a hash of every
 * estimate; then one JSON line per case.  Nothing here asserts timings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/qsim/qsim.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report(const char *name, double wall, uint64_t arrivals, uint64_t events, uint64_t hash, int runs)
{
    printf("%-34s %8.2f s %12" PRIu64 " arrivals %12" PRIu64 " events %6.1f ns/event (wall)  hash %016" PRIx64 "\n",
           name, wall, arrivals, events, events ? 1e9 * wall / (double)events : 0.0, hash);
    printf("{\"bench\":\"reproduce\",\"case\":\"%s\",\"runs\":%d,\"wall_s\":%.4f,\"arrivals\":%" PRIu64
           ",\"events\":%" PRIu64 ",\"hash\":\"%016" PRIx64 "\"}\n",
           name, runs, wall, arrivals, events, hash);
}

static int full(const char *name, unsigned threads)
{
    myri_qsim_seed004 *s = malloc(sizeof *s);
    if (!s) return 1;
    double t0 = now_s();
    myri_status st = myri_qsim_seed004_run(1, 0.02, threads, false, MYRI_QSIM_HOLD, MYRI_QSIM_LIMITED, s);
    double wall = now_s() - t0;
    if (st != MYRI_OK) {
        fprintf(stderr, "bench_reproduce: %s\n", myri_strerror(st));
        free(s);
        return 1;
    }
    int bad = 0;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
            const myri_qsim_result *r = &s->job[m][k].result;
            if (!r->converged || r->st[MYRI_QSIM_HDMA].lq.hw > 0.02 * r->st[MYRI_QSIM_HDMA].lq.mean) bad = 1;
        }
    report(name, wall, s->arrivals, s->events, s->hash, 2 * MYRI_QSIM_NRATES);
    if (bad) printf("  some run missed the +-2 %% target\n");
    free(s);
    return bad;
}

/* Plain batch means, three lowest rates, both models, 2 threads. */
static int plain(void)
{
    myri_qsim_job jobs[6];
    memset(jobs, 0, sizeof jobs);
    int n = 0;
    for (int k = 2; k >= 0; k--)
        for (int m = 0; m < 2; m++, n++) {
            myri_qsim_net_seed004(&jobs[n].net, (myri_qsim_model)m, myri_qsim_paper_rates[k], 0.0, MYRI_QSIM_LIMITED,
                               MYRI_QSIM_HOLD);
            jobs[n].opts = (myri_qsim_opts){.seed = 1, .precision = 0.02, .plain_batch_means = true};
        }
    double t0 = now_s();
    myri_status st = myri_qsim_run_jobs(jobs, 6, 2);
    double wall = now_s() - t0;
    if (st != MYRI_OK) return 1;
    uint64_t arr = 0, ev = 0, h = 0;
    for (int i = 0; i < 6; i++) {
        arr += jobs[i].result.arrivals + jobs[i].result.warmup_arrivals;
        ev += jobs[i].result.events;
        h = myri_qsim_result_hash(&jobs[i].result, h);
    }
    report("plain batch means, 3 lowest rates", wall, arr, ev, h, 6);
    return 0;
}

int main(void)
{
    printf("bench_reproduce: seed 004, both models, six rates, HDMA queue +-2 %% (95 %%)\n");
    int rc = full("control variates, 2 threads", 2);
    rc |= full("control variates, 1 thread", 1);
    rc |= plain();
    return rc;
}
