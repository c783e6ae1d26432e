/* bench_qna.c -- the QNA of the seed-004 NIC model (MISSION.md target: under
 * 1 ms per solve).
 *
 * Two cases, each over the six arrival rates of seed 004 Tables 3 and 8:
 *   solve       myri_qna_solve on a prebuilt network (converged step 2)
 *   build+solve myri_qna_nic_build + myri_qna_solve + myri_qna_net_destroy (what
 *               `myri qna --model nic-seed004` does per rate)
 * Prints the time per solve and an FNV-1a hash of every result's Lq, rho and
 * cd2 (a speed run is also a correctness run: the hash must not change when
 * the solver is optimised).  Output: aligned text, then one JSON line per case.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/qna/qna.h"

static const double rates_per_us[6] = {0.00273, 0.00493, 0.00786, 0.00900, 0.01079, 0.01100};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t hash_result(uint64_t h, const myri_qna_result *r)
{
    for (size_t i = 0; i < r->n_nodes; i++) {
        h = fnv(h, &r->node[i].lq, sizeof(double));
        h = fnv(h, &r->node[i].rho, sizeof(double));
        h = fnv(h, &r->node[i].cd2, sizeof(double));
    }
    return h;
}

/* Runs `reps` rounds over the six rates; returns seconds, *hash of all results. */
static double run(int build_each, long reps, uint64_t *hash, int *sweeps)
{
    myri_qna_net *nets[6];
    for (int k = 0; k < 6; k++)
        if (myri_qna_nic_build(rates_per_us[k], NULL, &nets[k]) != MYRI_OK) return -1;
    uint64_t h = 0xcbf29ce484222325ULL;
    myri_qna_result r;
    double t0 = now_s();
    for (long i = 0; i < reps; i++)
        for (int k = 0; k < 6; k++) {
            myri_qna_net *n = nets[k];
            if (build_each && myri_qna_nic_build(rates_per_us[k], NULL, &n) != MYRI_OK) return -1;
            if (myri_qna_solve(n, NULL, &r, NULL) != MYRI_OK) return -1;
            if (build_each) myri_qna_net_destroy(n);
            if (i == 0) {
                h = hash_result(h, &r);
                sweeps[k] = r.iterations;
            }
        }
    double dt = now_s() - t0;
    for (int k = 0; k < 6; k++) myri_qna_net_destroy(nets[k]);
    *hash = h;
    return dt;
}

int main(void)
{
    const long reps = 20000;
    const char *names[2] = {"solve", "build+solve"};
    double us[2];
    uint64_t hash[2];
    int sweeps[6];
    printf("%-12s %8s %10s %12s %10s  %s\n", "benchmark", "solves", "wall_s", "us/solve",
           "target_us", "hash");
    for (int c = 0; c < 2; c++) {
        double dt = run(c, reps, &hash[c], sweeps);
        if (dt < 0) {
            fprintf(stderr, "bench_qna: solve failed\n");
            return 1;
        }
        us[c] = dt / (reps * 6.0) * 1e6;
        printf("%-12s %8ld %10.3f %12.3f %10.0f  0x%016" PRIx64 "\n", names[c], reps * 6, dt,
               us[c], 1000.0, hash[c]);
    }
    printf("step-2 sweeps to convergence at the six rates:");
    for (int k = 0; k < 6; k++) printf(" %d", sweeps[k]);
    printf("\n");
    for (int c = 0; c < 2; c++)
        printf("{\"benchmark\":\"qna-nic-seed004-%s\",\"solves\":%ld,\"us_per_solve\":%.4f,"
               "\"target_us\":1000,\"hash\":\"0x%016" PRIx64 "\"}\n",
               names[c], reps * 6, us[c], hash[c]);
    return 0;
}
