/* bench_fabric_diff.c -- the long differential run of the two fabric models.
 *
 * The same randomised cases as tests/unit/test_fabric_diff.c (trees, extra
 * links, rings with cyclic routes broken by the long-period timeout, random
 * slack sizes and lines, latencies, control delays, bit errors, scripted
 * corruption, bad routes, cut and restored links, devices on the ports with
 * underruns, windows of random lengths and delays, ports never re-armed),
 * many more of them:
 * `bench_fabric_diff [N [FIRST]]`, default 5000 cases from seed 1000.  For
 * each case both models must agree on every delivery time (to the ps), every
 * drop and its reason, every per-channel counter and every byte seen by taps.
 * Prints the case counts, what they exercised, the wall time of each model,
 * the speed-up and a hash of all results; exits 1 on the first disagreement.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/unit/fabric_diff.h"

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000;
    uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
    uint64_t delivered = 0, dropped[MYRI_FABRIC_DROP_NREASONS] = {0}, stops = 0, trunc = 0;
    uint64_t ev[2] = {0, 0}, hash = 0, dev_cases = 0, notices = 0;
    myri_port_stats dev = {0};
    double w[2] = {0, 0};
    for (uint64_t s = first; s < first + n; s++) {
        fd_case c;
        fd_case_make(&c, s);
        fd_out a, b;
        char msg[512];
        double t0 = wall();
        fd_run(&c, MYRI_FABRIC_REFERENCE, s, 0, &a);
        double t1 = wall();
        fd_run(&c, MYRI_FABRIC_FAST, s, 0, &b);
        double t2 = wall();
        w[0] += t1 - t0;
        w[1] += t2 - t1;
        if (fd_compare(&a, &b, msg, sizeof msg)) {
            printf("case %" PRIu64 ": the models disagree: %s\n", s, msg);
            return 1;
        }
        ev[0] += a.ctr.events;
        ev[1] += b.ctr.events;
        delivered += a.ctr.delivered;
        for (int r = 0; r < MYRI_FABRIC_DROP_NREASONS; r++) dropped[r] += a.ctr.dropped[r];
        for (size_t ch = 0; ch < a.nch; ch++) {
            stops += a.ch[ch].stops;
            trunc += a.ch[ch].truncated;
        }
        hash = hash * 0x100000001b3ull ^ a.ctr.result_hash ^ a.tap_hash ^ a.dev_hash;
        if (c.devmask) {
            dev_cases++;
            notices += a.dev_notices;
            dev.tx_packets += a.dev.tx_packets;
            dev.tx_dropped += a.dev.tx_dropped;
            dev.rx_tail += a.dev.rx_tail;
            dev.rx_buff += a.dev.rx_buff;
            dev.rx_trunc += a.dev.rx_trunc;
        }
        free(a.rec);
        free(b.rec);
        fd_case_free(&c);
    }
    printf("cases            %" PRIu64 " (seeds %" PRIu64 "..%" PRIu64 "), all identical\n", n, first,
           first + n - 1);
    printf("packets          delivered %" PRIu64, delivered);
    for (int r = 0; r < MYRI_FABRIC_DROP_NREASONS; r++)
        printf(", %s %" PRIu64, myri_fabric_drop_name((myri_fabric_drop_reason)r), dropped[r]);
    printf("\nflow control     STOP %" PRIu64 ", truncated packets %" PRIu64 "\n", stops, trunc);
    printf("devices          %" PRIu64 " cases, %" PRIu64 " notices: sent %" PRIu64 ", dropped at the host %" PRIu64
           ", windows ended by tail %" PRIu64 ", buffer full %" PRIu64 ", truncation %" PRIu64 "\n",
           dev_cases, notices, dev.tx_packets, dev.tx_dropped, dev.rx_tail, dev.rx_buff, dev.rx_trunc);
    printf("reference model  %.3f s, %" PRIu64 " events\n", w[0], ev[0]);
    printf("fast model       %.3f s, %" PRIu64 " events (%.1fx fewer, %.1fx faster)\n", w[1], ev[1],
           ev[1] ? (double)ev[0] / (double)ev[1] : 0.0, w[1] > 0 ? w[0] / w[1] : 0.0);
    printf("hash             0x%016" PRIx64 "\n", hash);
    return 0;
}
