/* bench_scale.c -- the cost of the fabric as it grows (issue 13): fat trees
 * k = 4 with n = 3, 4, 5, 6 levels (64, 256, 1024, 4096 hosts), uniform
 * traffic at 20 % load, 20-byte and 4 KiB payloads, the fast model, all in
 * one run.  The simulated time is scaled so that each case carries about the
 * same number of packets.  Prints per case: hosts, packets delivered, mean
 * hops (links a packet crosses: for uniform traffic on a k-ary n-tree a packet
 * whose source and destination first share a level-L switch crosses 2L links,
 * with probability (k^L - k^(L-1)) / (k^n - 1)), the packet-hops the run
 * simulated (counted by the fabric: every link a packet began to cross, the
 * warm-up's and the packets still in flight at the end included), the CPU
 * time of the simulation run itself (myri_sim_run, process CPU), the cost per
 * packet-hop (that CPU time / packet-hops) and its ratio to the 64-host case
 * of the same size, the fabric's events per packet-hop (ev/hop: the events of
 * its own agenda, counted by the fabric, over the packet-hops), the time spent building (topology, routes, fabric: the
 * rest of the process CPU time), the fabric events per CPU second of the run,
 * and the result hash; then the hash of all cases.
 *
 * The machine's baseline, measured in the same run: the state the run's
 * events touch (mem_MB: the heap it holds beyond the topology and routes) and
 * the time of one dependent load at random over that many bytes (load_ns: a
 * pointer chase through a random cycle of 64-byte lines).  cost / load_ns is
 * the cost per packet-hop in dependent cache misses at that size: where it
 * stays flat while load_ns grows, the growth of the cost is the memory's.  (Until issue 13's second
 * stop the cost divided the run's wall time by delivered packets x mean hops,
 * which left out the hops of the packets in flight at the end: 23 % of the
 * packets at 4096 hosts, 20 B, against 0.3 % at 64.)
 * Nothing is asserted: machines differ; the ratios are measured in one run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_chase.h"

#include "app/fabric_job.h"

#define SC_K 4
#define SC_PACKETS 60000.0 /* about this many per case */

static double sc__cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Mean links crossed by a packet between two distinct hosts (uniform). */
static double sc__mean_links(int n)
{
    double hosts = pow(SC_K, n), m = 0;
    for (int L = 1; L <= n; L++) m += 2.0 * L * (pow(SC_K, L) - pow(SC_K, L - 1)) / (hosts - 1);
    return m;
}

typedef struct sc__case {
    int n;
    int bytes;
    double cpu_s, hops, cost_ns, load_ns;
    myri_fabric_run_result r;
} sc__case;

static int sc__run(sc__case *c)
{
    double hosts = pow(SC_K, c->n);
    /* packets per host per second at 20 % of the 80 M characters/s (640 Mb/s), payload + about 6 bytes */
    double rate = 0.2 * 80e6 / (c->bytes + 6.0);
    double dur_us = SC_PACKETS / (hosts * rate) * 1e6;
    double warm_us = c->bytes > 100 ? 200.0 : 20.0;
    char doc[1024];
    snprintf(doc, sizeof doc,
             "seed: 1\nwarmup: %.3fus\nduration: %.3fus\nmodel: fast\nlink: {rate: 640Mb/s, length: 10m}\n"
             "switch: {latency: 550ns}\ntopology: {generator: fat-tree, k: %d, n: %d}\n"
             "traffic: {pattern: uniform, load: 0.2, size: %dB, arrivals: poisson}\n",
             warm_us, dur_us, SC_K, c->n, c->bytes);
    myri_node *root = NULL;
    myri_error err = {.msg = ""};
    double t0 = sc__cpu_s();
    myri_status st = myri_doc_parse("(bench_scale)", doc, strlen(doc), &root, &err);
    if (!st) st = myri_fabric_run_doc(root, NULL, &c->r, &err);
    myri_node_free(root);
    c->cpu_s = sc__cpu_s() - t0;
    if (st) {
        fprintf(stderr, "bench_scale: %d hosts, %d B: %s\n", (int)hosts, c->bytes, err.msg);
        return 1;
    }
    c->hops = sc__mean_links(c->n);
    c->cost_ns = c->r.hops ? c->r.cpu_s * 1e9 / (double)c->r.hops : 0;
    return 0;
}

static double sc__load_ns(uint64_t bytes) { return bench_chase_ns(bytes, 2000000); }

/* usage: bench_scale [N BYTES]: every case, or only the fat tree with N levels
 * (3..6) and BYTES of payload (20 or 4096), for profiling one case. */
int main(int argc, char **argv)
{
    static const int sizes[2] = {20, 4096};
    int only_n = argc > 2 ? atoi(argv[1]) : 0, only_b = argc > 2 ? atoi(argv[2]) : 0;
    sc__case cs[2][4];
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    printf("fabric scaling: fat trees k=4, uniform traffic at 20 %% load, fast model, about %.0f packets per case\n",
           SC_PACKETS);
    printf("%6s %6s %8s %6s %11s %7s %8s %13s %8s %7s %11s %7s %7s %9s  %s\n", "bytes", "hosts", "packets", "hops",
           "packet-hops", "cpu_s", "build_s", "ns/packet-hop", "ratio_64", "ev/hop", "fab.ev/s", "mem_MB", "load_ns",
           "cost/load", "hash");
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) {
            sc__case *c = &cs[s][i];
            memset(c, 0, sizeof *c);
            c->n = 3 + i;
            c->bytes = sizes[s];
            if (only_n && (c->n != only_n || c->bytes != only_b)) continue;
            if (sc__run(c)) return 1;
            c->load_ns = sc__load_ns(c->r.mem_bytes);
            h = (h ^ c->r.result_hash) * UINT64_C(0x100000001b3);
            printf("%6d %6.0f %8" PRIu64 " %6.3f %11" PRIu64 " %7.3f %8.3f %13.1f %8.2f %7.2f %11.3g %7.1f %7.1f %9.1f"
                   "  0x%016" PRIx64 "\n",
                   c->bytes, pow(SC_K, c->n), c->r.delivered, c->hops, c->r.hops, c->r.cpu_s, c->cpu_s - c->r.cpu_s,
                   c->cost_ns, cs[s][0].cost_ns > 0 ? c->cost_ns / cs[s][0].cost_ns : 0,
                   c->r.hops ? (double)c->r.fabric_events / (double)c->r.hops : 0,
                   c->r.cpu_s > 0 ? (double)c->r.fabric_events / c->r.cpu_s : 0, (double)c->r.mem_bytes / 1048576.0,
                   c->load_ns, c->load_ns > 0 ? c->cost_ns / c->load_ns : 0, c->r.result_hash);
        }
    printf("goal (issue 13): ratio_64 at most 1.5 at 1024 and 4096 hosts\n");
    printf("goal (issue 24): ratio_64 at most 2 at 4096 hosts, cost/load at most 3, mem_MB well under 12 at 4096 hosts\n");
    printf("hash     0x%016" PRIx64 "\n", h);
    return 0;
}
