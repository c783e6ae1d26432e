/* bench_system.c -- the system benchmark of issue 9: what the NIC layer
 * (LANai model, MCP firmware, host, API, programs) costs over the bare fabric.
 *
 * Case "system": scenarios/fattree64-api.yaml -- 64 hosts in a 4-ary 3-tree
 * of 8-port switches, every host a LANai 4 running seed 001's MCP and the
 * traffic program sending 512-byte payloads to random hosts through the API
 * at about 20 % load for 1 ms, every byte checked.
 * Case "bare": the same topology, links and switches with ideal hosts (the
 * fabric job, fast model) and the same traffic: uniform destinations,
 * Poisson arrivals, packets of the same length on the wire (514-byte fabric
 * payload = the MCP frame's subtype and channel + 512 bytes), at the load
 * the system case actually offered (measured from its packet count), for the
 * same simulated time.
 *
 * Prints per case: wall time, simulated time, events, packets, wall time per
 * packet, simulated time per wall second, and the hash; then the ratio of the
 * system's wall time per packet to the bare fabric's (goal: at most 3), and
 * one JSON line per case.  Both run in this process, one after the other, so
 * the ratio is measured on the same machine at the same time.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/fabric_job.h"
#include "app/system_job.h"

static const char *source_dir(int argc, char **argv, char *buf, size_t len)
{
    if (argc > 1) return argv[1];
    const char *f = __FILE__, *cut = strstr(f, "bench/bench_system.c");
    if (!cut || cut == f) return ".";
    snprintf(buf, len, "%.*s", (int)(cut - f - 1), f);
    return buf;
}

typedef struct bsys__case {
    const char *name;
    double wall_s, sim_s;
    uint64_t events, packets, hash;
} bsys__case;

static void bsys__print(const bsys__case *c)
{
    double per_pkt_us = c->packets ? 1e6 * c->wall_s / (double)c->packets : 0;
    printf("%-7s wall %8.3f s  sim %9.3f us  events %10" PRIu64 "  packets %7" PRIu64
           "  wall/packet %7.3f us  sim/wall %8.3f us/s  hash 0x%016" PRIx64 "\n",
           c->name, c->wall_s, c->sim_s * 1e6, c->events, c->packets, per_pkt_us,
           c->wall_s > 0 ? c->sim_s * 1e6 / c->wall_s : 0, c->hash);
}

static int bsys__system(const char *dir, bsys__case *c, double *offered_load)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/scenarios/fattree64-api.yaml", dir);
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_load(path, &root, &err) != MYRI_OK) {
        fprintf(stderr, "bench_system: %s\n", err.msg);
        return 1;
    }
    myri_run_opts ro = {0};
    myri_system_result res;
    myri_status st = myri_system_run_doc(root, NULL, &ro, &res, &err);
    myri_node_free(root);
    if (st) {
        fprintf(stderr, "bench_system: %s\n", err.msg);
        return 1;
    }
    uint64_t sent = 0, received = 0, errors = 0;
    for (size_t i = 0; i < res.nfig; i++) {
        if (!strcmp(res.fig[i].key, "traffic.sent")) sent += (uint64_t)res.fig[i].value;
        if (!strcmp(res.fig[i].key, "traffic.received")) received += (uint64_t)res.fig[i].value;
        if (!strcmp(res.fig[i].key, "traffic.errors")) errors += (uint64_t)res.fig[i].value;
    }
    *c = (bsys__case){"system", res.wall_s, (double)res.sim_time_ps * 1e-12, res.events, received, res.hash};
    /* offered load: packets sent in the 1 ms of traffic, each 521 characters of 6.25 ns, over 64 links */
    *offered_load = (double)sent * 521.0 * 6.25e-9 / (64.0 * 5e-3);
    printf("system  sent %" PRIu64 ", received %" PRIu64 ", errors %" PRIu64 ", all programs done: %s\n", sent,
           received, errors, res.all_done ? "yes" : "NO");
    int bad = !res.all_done || res.worst_exit != 0 || sent != received;
    myri_system_result_free(&res);
    return bad;
}

static int bsys__bare(double load, double sim_s, bsys__case *c)
{
    char text[1024];
    snprintf(text, sizeof text,
             "seed: 1\nwarmup: 0us\nduration: %.0fns\nmodel: fast\n"
             "link: {rate: 1280Mb/s, length: 10m}\nswitch: {latency: 550ns, ports: 8}\npacket: {type_bytes: 2}\n"
             "topology: {generator: fat-tree, k: 4, n: 3}\n"
             "traffic: {pattern: uniform, load: %.6f, size: 514B, arrivals: poisson}\n",
             sim_s * 1e9, load);
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("(bare fabric)", text, strlen(text), &root, &err) != MYRI_OK) {
        fprintf(stderr, "bench_system: %s\n", err.msg);
        return 1;
    }
    myri_fabric_run_result r;
    myri_status st = myri_fabric_run_doc(root, NULL, &r, &err);
    myri_node_free(root);
    if (st) {
        fprintf(stderr, "bench_system: bare fabric: %s\n", err.msg);
        return 1;
    }
    *c = (bsys__case){"bare", r.wall_s, (double)r.sim_time_ps * 1e-12, r.events, r.delivered, r.result_hash};
    return 0;
}

int main(int argc, char **argv)
{
    char buf[4096];
    const char *dir = source_dir(argc, argv, buf, sizeof buf);
    bsys__case sys, bare;
    double load = 0;
    int rc = bsys__system(dir, &sys, &load);
    if (!rc) rc = bsys__bare(load, 5e-3, &bare);
    if (rc) return rc;
    printf("offered load %.3f of the links (measured from the system's packets)\n", load);
    bsys__print(&sys);
    bsys__print(&bare);
    double ps = sys.packets ? sys.wall_s / (double)sys.packets : 0, pb = bare.packets ? bare.wall_s / (double)bare.packets : 0;
    double ratio = pb > 0 ? ps / pb : 0;
    printf("ratio   system/bare wall time per packet %.2f (goal: at most 3)\n", ratio);
    const bsys__case *cs[2] = {&sys, &bare};
    for (int i = 0; i < 2; i++)
        printf("{\"bench\":\"system\",\"case\":\"%s\",\"wall_s\":%.6f,\"sim_us\":%.3f,\"events\":%" PRIu64
               ",\"packets\":%" PRIu64 ",\"hash\":\"0x%016" PRIx64 "\"}\n",
               cs[i]->name, cs[i]->wall_s, cs[i]->sim_s * 1e6, cs[i]->events, cs[i]->packets, cs[i]->hash);
    printf("{\"bench\":\"system\",\"ratio_per_packet\":%.4f,\"offered_load\":%.4f}\n", ratio, load);
    return 0;
}
